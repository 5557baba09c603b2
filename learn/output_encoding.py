"""Standard output that can carry any text a transcript holds.

What learn prints quotes people and agents: arrows, emoji, CJK, box drawing. On
Windows, output redirected to a file or a pipe is encoded in the locale's code
page (cp1252 and the like), which lacks most of those: `learn show > out.txt`
ended in a UnicodeEncodeError traceback at the first "→". So before any command
runs:

- output to a file or a pipe, in an encoding that cannot hold every character
  and that nobody chose (no PYTHONIOENCODING), is written in UTF-8: JSON's own
  encoding (RFC 8259), and what the tools reading it (Claude Code, jq, editors)
  expect;
- any other stream whose encoding cannot hold every character (a terminal, or
  an encoding the person set) keeps its encoding, and a character it lacks is
  written as "?" rather than ending the command.

Standard error already writes what it cannot encode as escapes (Python's default).
"""

from __future__ import annotations

import codecs
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO


def holds_all_text(encoding: str | None) -> bool:
    """Whether text in `encoding` can hold every character (a UTF)."""
    if not encoding:
        return False
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name.startswith("utf")  # utf-8, utf-8-sig, utf-16(-le/-be), utf-32, utf-7


def make_writable(stream: TextIO | None, *, chosen: bool | None = None) -> None:
    """Set `stream` (sys.stdout) up as the module docstring says; one that cannot be
    reconfigured (a test runner's capture, None under pythonw) is left as it is."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or holds_all_text(getattr(stream, "encoding", None)):
        return
    if chosen is None:
        chosen = bool(os.environ.get("PYTHONIOENCODING"))
    try:
        interactive = bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):
        interactive = False
    try:
        if not interactive and not chosen:
            reconfigure(encoding="utf-8", errors="strict")
        else:
            reconfigure(errors="replace")
    except (OSError, ValueError):  # a closed or detached stream: nothing to print to anyway
        return
