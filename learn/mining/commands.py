"""Comparing commands: one normal form for a command a model named and a command that ran.

A fix is kept only when its command really ran (learn.mining.verify), a shared
fix carries only the steps that ran (learn.reduce.sharing), and an escalation
must not deny a command the person ran (learn.report.escalation). All of them
compare commands, and a comparison that treats the two sides differently drops
real fixes: on a real project a fix repeated in three sessions was lost because
quote characters were stripped from the model's command and not from what ran
(any command ending in a quote never matched itself), and commands the model
copied up to the render's `…` cut were dropped as "never ran" although they ran.

So `command_key` is applied to both sides alike: typographic quotes and the
ellipsis character mapped to ASCII, a wrapping pair of backticks (or of quotes)
dropped, whitespace collapsed, case folded. A command cut by the render (ending
in `...`, or as long as the render's cut and no marker) matches a command that
ran and starts with it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

from learn.redaction.redact import redact
from learn.render.render import TOOL_SUMMARY_CHARS
from learn.textfold import fold
from learn.transcripts.view.model import Session

_TYPOGRAPHY: Final = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "…": "..."})
# Where one shell command line holds several commands.
_SEGMENT_SPLIT: Final = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")
CUT: Final = "..."
# A cut copy must still say something: `go test ./...` ends in "..." and is whole.
MIN_CUT_PREFIX: Final = 24
# A model that copies a tool line up to the render's cut and drops the `…`: a
# candidate this long that starts a command that ran is that command.
UNMARKED_CUT: Final = TOOL_SUMMARY_CHARS * 3 // 4


def _unwrap(text: str) -> str:
    for left, right in (("`", "`"), ('"', '"'), ("'", "'")):
        if len(text) >= 2 and text[0] == left and text[-1] == right and left not in text[1:-1]:
            return text[1:-1].strip()
    return text


def command_key(command: str) -> str:
    """`command` in the one form commands are compared in (see the module doc)."""
    return fold(_unwrap(command.translate(_TYPOGRAPHY).strip()))


def command_segments(command: str) -> tuple[str, ...]:
    """The commands of one command line: split on `&&`, `||`, `;`, `|` and newlines."""
    return tuple(p for p in (s.strip() for s in _SEGMENT_SPLIT.split(command)) if p)


def _cut_prefix(key: str) -> str | None:
    """The part of a cut command that was kept, when `key` is one."""
    if key.endswith(CUT) and len(key) - len(CUT) >= MIN_CUT_PREFIX:
        return key[: -len(CUT)].rstrip()
    if len(key) >= UNMARKED_CUT:
        return key
    return None


def command_ran(command: str, commands: Sequence[str]) -> bool:
    """True when `command` is a command that ran, whole segments of one, or one the
    render cut that a command that ran starts with.

    Segments, because the model sees `cd app && pytest -q` and names the part that
    mattered (`pytest -q`); whole ones, because any substring matched before, and
    "st" or "test" is part of nearly every command line.
    """
    # `commands` come redacted (session_commands); the candidate is redacted the same way.
    cand = command_key(redact(command))
    wanted = command_segments(cand)
    if not wanted:
        return False
    prefix = _cut_prefix(cand)
    for raw in commands:
        ran = command_key(raw)
        if cand == ran or (prefix is not None and ran.startswith(prefix)):
            return True
        have = command_segments(ran)
        size = len(wanted)
        if any(have[i : i + size] == wanted for i in range(len(have) - size + 1)):
            return True
    return False


def command_tokens(command: str) -> list[str]:
    """A command line's words as the shell splits them (plain splitting when it cannot)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def starts_with(prefix: Sequence[str], command: str) -> bool:
    """Whether a segment of `command` begins with the words `prefix` (environment
    assignments in front skipped): what a prefix rule of Claude Code or Codex matches."""
    want = [w.casefold() for w in prefix]
    for segment in command_segments(command):
        words = command_tokens(segment)
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if [w.casefold() for w in words[: len(want)]] == want:
            return True
    return False


_SHELLS: Final = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})


def shell_command(value: Any) -> str | None:
    """A tool input's command as one line: Claude Code's string, Codex's argv
    (["bash", "-lc", "<script>"] is the script)."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-lc", "-c"):
            return str(value[2])
        return " ".join(value)
    return None


def unrefused_commands(session: Session) -> list[str]:
    """The shell commands the session's tool calls ran that nobody refused (a call the
    person or a rule denied is left out)."""
    denied = {d.tool_use_id for d in session.denials}
    out: list[str] = []
    for call in session.tool_calls:
        if call.id in denied:
            continue
        inp: Mapping[str, Any] = call.input if isinstance(call.input, Mapping) else {}
        for key in ("command", "cmd"):
            command = shell_command(inp.get(key))
            if command:
                out.append(command)
                break
    return out
