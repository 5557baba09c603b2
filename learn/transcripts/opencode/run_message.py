"""The message `opencode run` sends: what the person typed, and what `run` added to it.

`run` (1.18.33, driven for real offline, 2026-12) builds its one text part from its
arguments and its stdin. Each argument holding a space is wrapped in double quotes (its
own `"` escaped as `\\"`), the arguments are joined by single spaces, and when stdin is
not a terminal and not empty, what it held is appended after a newline (alone when there
were no arguments). The store keeps no other trace of either:

    opencode run "why does this fail" < log.txt   ->  "why does this fail"\\n<log.txt>
    opencode run why is it red < log.txt          ->  why is it red\\n<log.txt>
    cat prompt.md | opencode run                  ->  <prompt.md>
    opencode run "typed at a tty"                 ->  "typed at a tty"

The person typed the arguments only: the quotes are `run`'s and the piped text is a
file's or a program's (a log, a diff), never words typed at a prompt. A joined argument
line holds no newline outside quotes, no run of spaces and no leading space, so a text
that opens with something else is stdin alone. Piped text nearly always ends in a newline
(a file, `echo`, a command's output); an argument line never does, so a newline right
after unquoted words is read as the start of stdin only when the text ends in one: a
multi-line message typed into the same session from the TUI (`opencode -c` picks the
latest session, a `run` one too) is left whole.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from learn.lazy import lazy_pattern

__all__ = ["RunMessage", "split_run_message"]

# One argument as `run` writes it: quoted (it held a space; `\"` inside, and a backslash
# ending the argument stays one: the backtracking takes it as text), or a bare word.
_QUOTED: Final = r'"(?:\\"|[^"])*"'
_ARG: Final = rf'(?:{_QUOTED}|[^ \n"][^ \n]*)'
_ARGS_RE: Final = lazy_pattern(rf"\A(?P<args>{_ARG}(?: {_ARG})*)(?:\n(?P<piped>.*))?\Z", re.S)
_WORD_RE: Final = lazy_pattern(rf"{_QUOTED}|[^ ]+", re.S)


class RunMessage(NamedTuple):
    typed: str  # the arguments as the person gave them ("" when there were none)
    piped: str  # what stdin added ("" when nothing was piped)


def _run_quoted(word: str) -> bool:
    """A word `run` quoted: in quotes, holding a space (it quotes no other)."""
    return len(word) >= 2 and word[0] == word[-1] == '"' and " " in word


def _unquoted(args: str) -> str:
    """The arguments as typed: `run`'s quotes taken off, its `\\"` back to `"`."""
    if '"' not in args:
        return args
    return " ".join(w[1:-1].replace('\\"', '"') if _run_quoted(w) else w
                    for w in (m.group(0) for m in _WORD_RE.finditer(args)))


def split_run_message(text: str) -> RunMessage:
    """The typed arguments and the piped stdin of one `opencode run` message."""
    got = _ARGS_RE.match(text)
    if got is None:
        # No argument line opens it: stdin alone (`cat prompt.md | opencode run`) when it
        # ends as piped text does, else left whole (typed).
        return RunMessage("", text) if text.endswith("\n") else RunMessage(text, "")
    args, piped = got.group("args"), got.group("piped")
    quoted = any(_run_quoted(m.group(0)) for m in _WORD_RE.finditer(args))
    if piped is None:
        return RunMessage(_unquoted(args), "")
    if not piped:
        # "<words>\n": `run` never ends its argument line with a newline and stdin brings
        # its own: all of it is stdin.
        return RunMessage("", text)
    if quoted or text.endswith("\n"):
        return RunMessage(_unquoted(args), piped)
    return RunMessage(text, "")
