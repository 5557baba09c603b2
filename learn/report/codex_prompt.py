"""A Codex custom prompt's `description:` line, written the way Codex reads it.

Codex does not read YAML there. Its reader (codex-rs/core/src/custom_prompts.rs,
`parse_frontmatter`, in every release that reads `~/.codex/prompts`: 0.116.0 was the
last, 0.117.0 removed the folder) takes each line up to the first one that is `---`,
skips a blank line or one that opens with `#`, splits the rest at its first colon,
trims the value and takes off one pair of matching quotes around it (`"…"` or `'…'`):
nothing else. No escape is read, a doubled `''` stays doubled, and the last
`description:` line wins.

So the YAML quoting learn writes for Claude Code (learn.report.command_plan.yaml_string) was
shown as written in Codex's `/prompts:` menu: `\\u002d-- leading dashes` for
"--- leading dashes", `He said \\"hi\\" \\\\ back` (the real Codex 0.116.0, its TUI
menu read with tmux, 2026-12; tests/test_codex_prompt_description.py).

Only a person whose Codex is older than 0.117.0 gets a prompt: a current Codex's command
is a skill (learn.report.codex_commands decides which).
"""

from __future__ import annotations

from pathlib import Path

from learn.report.confine import surface_of
from learn.report.words import flatten
from learn.visible import visible


def codex_description(value: str) -> str:
    """`value` as the value of a Codex prompt's `description:` line, which Codex shows as
    `value` (on one line, nothing hidden) whatever it holds.

    One line: Codex's front matter is read line by line, so a line break is the only way
    a value could end the front matter (`---`) or add a key; `flatten` leaves none, and
    `visible` no character that acts on the terminal the menu is drawn on. Codex takes
    off exactly the one pair of quotes put around it, so any text comes back whole.
    Which quotes: double, the way Claude Code's commands are written, unless the text
    holds `"` or a backslash and no `'`: then single, so a YAML reader (an editor, a
    linter) reads the same words as Codex too. Text with `'` and `"` or a backslash has
    no quoting both read alike; it is written for Codex, the file's reader."""
    line = flatten(visible(value))
    if ('"' in line or "\\" in line) and "'" not in line:
        return f"'{line}'"
    return f'"{line}"'


def is_codex_prompt(real: Path) -> bool:
    """Whether the resolved path `real` is a Codex custom prompt: learn.report.confine's
    `~/.codex/prompts/*.md` (CODEX_HOME's, when set), the one folder Codex reads them from."""
    surface = surface_of(real, ())
    return surface is not None and surface.base == "codex-home" and surface.kind == "command"
