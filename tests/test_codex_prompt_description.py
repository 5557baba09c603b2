"""A Codex prompt's description shows in Codex as the words learn meant, whatever they hold.

learn wrote a Codex custom prompt (`~/.codex/prompts/<name>.md`) with the front matter of
a Claude Code command: `description: <JSON string>`, with `\\u002d` for the first hyphen
of a `---`. Codex reads no YAML there (codex-rs/core/src/custom_prompts.rs,
`parse_frontmatter`: line by line, split at the first colon, the value trimmed and one
pair of matching quotes taken off, no escape read). The real Codex 0.116.0, the last
release that reads the folder (0.117.0 removed it; the pinned build/codex, 0.171.0,
lists none of its files under `/`), showed `\\u002d-- leading dashes` and
`He said \\"hi\\" \\\\ back` in its `/prompts:` menu (its TUI under tmux, offline, with a
temp CODEX_HOME, 2026-12). `codex_reads` below is that parser, checked against what the
real menu showed (`SEEN`); the hostile descriptions are written by `learn`'s planner and
read back by it.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from learn.report.apply import plan_file
from learn.report.codex_commands import prompt_path
from learn.report.codex_prompt import codex_description
from learn.report.command_plan import command_description, yaml_string
from learn.report.edits import RuleEdit
from learn.report.targets import claude_home

BODY = "Collect the merged pull requests and write the release notes, one line each."


def codex_reads(text: str) -> tuple[dict[str, str], str] | None:
    """(front matter keys, body) as Codex reads a custom prompt; None when it reads no
    front matter. Codex's `parse_frontmatter` (codex-rs/core/src/custom_prompts.rs),
    written again: `str::lines` splits at `\\n` (dropping a `\\r` before it), the front
    matter ends at the first line that is `---` once trimmed, a blank line or one opening
    with `#` is skipped, a line without a colon is ignored, the key is lower-cased, and
    the last line of a key wins."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    lines = [x.removesuffix("\r") for x in lines]
    if not lines or lines[0].strip() != "---":
        return None
    keys: dict[str, str] = {}
    for at, line in enumerate(lines[1:], start=1):
        trimmed = line.strip()
        if trimmed == "---":
            return keys, "\n".join(lines[at + 1:])
        if not trimmed or trimmed.startswith("#") or ":" not in trimmed:
            continue
        key, value = trimmed.split(":", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        keys[key.strip().lower()] = value
    return None  # unterminated: Codex takes the whole file as the body


# Prompt files given to the real Codex 0.116.0, and the description its `/prompts:` menu
# showed for each.
SEEN = [
    ('---\ndescription: "\\u002d-- leading dashes and a: colon"\n---\nBody one.\n',
     "\\u002d-- leading dashes and a: colon"),
    ('---\ndescription: "He said \\"hi\\" \\\\ back"\n---\nBody two.\n',
     'He said \\"hi\\" \\\\ back'),
    ("---\ndescription: plain: with colon # and hash\n---\nBody three.\n",
     "plain: with colon # and hash"),
    ("---\ndescription: 'it''s single'\n---\nBody four.\n", "it''s single"),
    ('---\ndescription: "first"\ndescription: second wins?\nargument-hint: [x]\n---\n'
     "Body five.\n", "second wins?"),
    ('---\n# a comment line\ndescription: "x" trailing\n---\nBody six.\n', '"x" trailing'),
]


@pytest.mark.parametrize(("text", "shown"), SEEN)
def test_the_parser_here_reads_what_the_real_codex_menu_showed(text: str, shown: str) -> None:
    read = codex_reads(text)
    assert read is not None
    assert read[0]["description"] == shown


HOSTILE = [
    "--- leading dashes, then --- more of them ---",
    "- a list item's dash at the start",
    "key: value: and another: colon space",
    'He said "ship it" and left',
    "it's the team's way",
    "Don't write \"done\" before the tests pass",
    "a backslash \\ and \\n and \\u002d written out",
    "a Windows path C:\\Users\\dev\\notes, don't touch it",
    "'single quoted whole'",
    '"double quoted whole"',
    "# a heading's hash first, and # one inside",
    "first line\nsecond line\r\nthird\rfourth\u2028fifth\u0085sixth",
    "description: a second key in the value",
    "x\n---\nargument-hint: injected\ndescription: forged",
    "an escape \x1b]0;title\x07 and a bidi \u202eoverride",
    "The " + "very " * 40 + "long description, cut at the menu's width",
    "中文的描述，含有引号“和”冒号：以及 'single' 与 \"double\"",
]


def _prompt(description: str) -> tuple[Path, str]:
    """A Codex prompt for `description`, as `learn apply` plans it; its path and text."""
    path = prompt_path("release-notes")
    edit = RuleEdit(key="request:release-notes", text="Release notes.", target=path,
                    provenance="2 sessions", form="command", description=description,
                    body=BODY)
    plan = plan_file(path, [edit])
    assert plan.refused is None and plan.applied == [edit], plan.notes
    return path, plan.new_text


@pytest.mark.parametrize("description", HOSTILE)
def test_codex_shows_the_description_learn_meant(description: str) -> None:
    path, text = _prompt(description)
    assert path.parent == Path.home() / ".codex" / "prompts"
    read = codex_reads(text)
    assert read is not None, text
    keys, body = read
    # What Codex shows is learn's one-line description itself: no escape, no quote left.
    assert keys == {"description": command_description(description)}
    assert body.startswith(BODY + "\n\n<!-- learn request:release-notes, 2 sessions -->")
    # One front matter line: no description can add a key or close the front matter.
    assert text.split("\n")[2] == "---" and text.split("\n")[1].startswith("description: ")


def _alike(meant: str) -> bool:
    """Whether one quoting reads as `meant` in Codex and in YAML: not with `'` and `"` or a
    backslash (written for Codex then: learn.report.codex_prompt)."""
    return "'" not in meant or ('"' not in meant and "\\" not in meant)


@pytest.mark.parametrize("description", [d for d in HOSTILE if _alike(command_description(d))])
def test_a_yaml_reader_reads_the_same_words_when_one_quoting_allows_it(description: str) -> None:
    meant = command_description(description)
    assert yaml.safe_load("description: " + codex_description(meant)) == {"description": meant}


def test_the_description_is_never_code_on_the_terminal_codex_draws_on() -> None:
    quoted = codex_description("stop \x1b[2J\x1b]52;c;cm0gLXJm\x07 here\u200b\u202e now")
    assert quoted == '"stop [2J ]52;c;cm0gLXJm here now"'
    assert quoted.isprintable()


def test_a_long_description_is_cut_to_one_menu_line() -> None:
    _, text = _prompt("word " * 100)
    description = codex_reads(text)
    assert description is not None
    shown = description[0]["description"]
    assert len(shown) <= 80 and shown.endswith("…")


def test_a_claude_command_keeps_its_yaml_string() -> None:
    """Claude Code reads YAML and ends the front matter at any `---`: its command is
    written as before (learn.report.command_plan.yaml_string, tests/test_f5_command_description
    _yaml.py)."""
    path = claude_home() / "commands" / "release-notes.md"
    description = 'Notes --- for "the" release'
    edit = RuleEdit(key="request:release-notes", text="Release notes.", target=path,
                    provenance="2 sessions", form="command", description=description,
                    body=BODY)
    text = plan_file(path, [edit]).new_text
    assert text.startswith(f"---\ndescription: {yaml_string(description)}\n---\n")
    assert "\\u002d--" in text.split("\n")[1]


def test_a_prompt_in_codex_home_is_written_for_codex(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-elsewhere"))
    path, text = _prompt('The "--- release" notes')
    assert path.parent == tmp_path / "codex-elsewhere" / "prompts"
    assert text.startswith("---\ndescription: 'The \"--- release\" notes'\n---\n")
