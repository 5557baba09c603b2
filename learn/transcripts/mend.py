"""A JSON text a strict decoder refused, read again with the two faults clients write mended.

Every reader decodes a line (or a file) with msgspec first, and only a refused one
comes here, so a good line pays nothing for it. Two faults are mended, each to
U+FFFD, the character a reader shows for what it cannot read, and one is read past:

- **Invalid UTF-8**: one stray byte in a typed prompt dropped the whole prompt, and
  the session then showed no typed turn at all.
- **Half a surrogate pair, escaped** (`\\ud83d` with no `\\udXXX` after it, or the low
  half alone). JavaScript strings are UTF-16, and `JSON.stringify` writes a lone half
  as an escape where strict JSON allows only whole pairs, so msgspec refuses the line.
  Claude Code writes them when it cuts a tool's output for its preview in the middle of
  an emoji (anthropics/claude-code #50019, #69927), or a model's tool input holds one
  (#68325); Gemini CLI, Copilot CLI and OpenCode are JavaScript too. The line is a
  whole message or tool result, and its uuid holds the session's chain together: lost,
  the turns after it hung from nothing.
- **NUL padding** before or after the record (format-drift audit, Claude Code 2.1.111
  to 2.1.202: anthropics/claude-code #49876, #76059, #81843). A crash during an append
  leaves the file extended with zero-filled blocks the data never reached (ext4's
  delayed allocation, NTFS), and the client's next append lands right after them: the
  line is a run of `\x00` then a whole record, or a record then kilobytes of `\x00`.
  Claude Code's own reader skips leading NULs before it parses a line; here the line was
  counted undecodable, and a prompt the person typed just after a crash was lost.
  Only the padding's ends are read past: a NUL inside the JSON stays a refusal.

Nothing else is guessed: a line that is cut, or not JSON, stays refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, TypeVar

import msgspec

__all__ = ["decoded", "mended"]

_T = TypeVar("_T")

# Every backslash escape, read left to right so that `\\\\ud83d` (an escaped
# backslash, then the letters) is never taken for an escape: a high half with its low
# half after it (a pair, kept), a high half alone, a low half alone, or any other escape.
_ESCAPE_RE: Final = re.compile(
    rb"\\(?:u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|(u[dD][c-fC-F][0-9a-fA-F]{2})|.)", re.DOTALL)
_HALF_RE: Final = re.compile(rb"\\u[dD][89a-fA-F]")
_REPLACEMENT: Final = b"\\ufffd"
_NUL: Final = b"\x00"
# The byte order mark a Windows tool puts before a file's first line (no client writes
# one): read past, at the start of a transcript and of its head.
UTF8_BOM: Final = b"\xef\xbb\xbf"


def _mend_escape(match: re.Match[bytes]) -> bytes:
    if match.group(3) is not None or (match.group(1) is not None and match.group(2) is None):
        return _REPLACEMENT
    return match.group(0)


def mended(raw: bytes | memoryview | str) -> bytes | str | None:
    """`raw` with its lone surrogate escapes and invalid UTF-8 replaced by U+FFFD, for
    a second decode; None when it holds neither (the decoder's refusal stands)."""
    # A text (a database's column) is its UTF-8; a surrogate in it, not escaped, is
    # no JSON any client writes: it goes as "?" and the decode says what it says.
    data = raw.encode("utf-8", "replace") if isinstance(raw, str) else bytes(raw)
    if data[:1] == _NUL or data[-1:] == _NUL:
        data = data.strip(_NUL)
        if not data:
            return None  # padding alone: no record to read
        fixed = mended(data)
        return data if fixed is None else fixed
    fixed = _ESCAPE_RE.sub(_mend_escape, data) if _HALF_RE.search(data) else data
    try:
        fixed.decode("utf-8")
    except UnicodeDecodeError:
        return fixed.decode("utf-8", "replace")
    return fixed if fixed != data else None


def decoded(decode: Callable[[bytes | str], _T], data: bytes | memoryview | str) -> _T:
    """`decode(data)`, or, when the decoder refuses it, `decode` of it mended; the first
    refusal stands when there was nothing to mend."""
    try:
        return decode(data)  # type: ignore[arg-type]
    except msgspec.DecodeError:
        fixed = mended(data)
        if fixed is None:
            raise
        return decode(fixed)
