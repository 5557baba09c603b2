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
- an encoding the person set (PYTHONIOENCODING) is kept, on standard output and
  standard error alike. A character it lacks is written on standard output as
  JSON writes it escaped (`\\u2192`, an emoji as its two surrogates): `--json`
  output stays JSON that reads back exactly, and prose shows which character it
  was. An error handler the person named (`ascii:replace`) is kept; `strict`, the
  default, would end the command at the first such character, and is not.
  Standard error keeps Python's own escapes (backslashreplace);
- a terminal whose encoding cannot hold every character, and which nobody chose,
  keeps its encoding, and a character it lacks is written as "?".

ASCII needs one more step. click 8.5 takes any stream whose codec is ASCII for a
misconfigured one and writes every `click.echo` past it, in UTF-8: under
PYTHONIOENCODING=ascii, `learn sessions`, `--help` and every error line came out
in UTF-8 bytes (measured 2026-12: `Error: no session matches 'nö-such-→'`). So a
chosen ASCII stream is given learn's own name for Python's ASCII codec
(`learn-ascii`: the same encoder), which click leaves alone.
"""

from __future__ import annotations

import codecs
import os
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from typing import TextIO

# Python's ASCII codec under a name click does not take for ASCII (the module docstring).
KEPT_ASCII: Final = "learn-ascii"
# The error handler writing what an encoding lacks as JSON's `\uXXXX` escapes.
JSON_ESCAPE: Final = "learn-json-escape"


def holds_all_text(encoding: str | None) -> bool:
    """Whether text in `encoding` can hold every character (a UTF)."""
    if not encoding:
        return False
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name.startswith("utf")  # utf-8, utf-8-sig, utf-16(-le/-be), utf-32, utf-7


def json_escape(error: UnicodeError) -> tuple[str, int]:
    """The characters `error` could not encode, as JSON escapes them: `\\u2192`, and one
    outside the BMP as its UTF-16 surrogate pair (`\\ud83d\\ude80`), which JSON reads back
    as the one character; Python's backslashreplace writes `\\U0001f680`, not JSON."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out: list[str] = []
    for char in error.object[error.start:error.end]:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            out.append(f"\\u{0xD800 | point >> 10:04x}\\u{0xDC00 | point & 0x3FF:04x}")
        else:
            out.append(f"\\u{point:04x}")
    return "".join(out), error.end


def _kept_ascii(name: str) -> codecs.CodecInfo | None:
    """The codec search function for KEPT_ASCII (names come lower-cased, `-` as `_`)."""
    if name != KEPT_ASCII.replace("-", "_"):
        return None
    ascii_codec = codecs.lookup("ascii")
    return codecs.CodecInfo(
        ascii_codec.encode, ascii_codec.decode, name=KEPT_ASCII,
        incrementalencoder=ascii_codec.incrementalencoder,
        incrementaldecoder=ascii_codec.incrementaldecoder,
        streamreader=ascii_codec.streamreader, streamwriter=ascii_codec.streamwriter)


_registered: list[bool] = []


def _register() -> None:
    """KEPT_ASCII and JSON_ESCAPE registered with codecs, once per process."""
    if not _registered:
        codecs.register(_kept_ascii)
        codecs.register_error(JSON_ESCAPE, json_escape)
        _registered.append(True)


def kept_encoding(encoding: str) -> str:
    """`encoding` as a stream keeps it: ASCII under KEPT_ASCII, any other as it is."""
    try:
        ascii_codec = codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return encoding
    if not ascii_codec:
        return encoding
    _register()
    return KEPT_ASCII


def asked_errors(value: str | None = None) -> str | None:
    """The error handler PYTHONIOENCODING names (`ascii:replace`), None for none or
    `strict` (which would end a command at a character the encoding lacks)."""
    setting = os.environ.get("PYTHONIOENCODING", "") if value is None else value
    errors = setting.partition(":")[2].strip()
    return errors if errors and errors != "strict" else None


def _chosen(chosen: bool | None) -> bool:
    return bool(os.environ.get("PYTHONIOENCODING")) if chosen is None else chosen


def make_writable(stream: TextIO | None, *, chosen: bool | None = None) -> None:
    """Set `stream` (sys.stdout) up as the module docstring says; one that cannot be
    reconfigured (a test runner's capture, None under pythonw) is left as it is."""
    reconfigure = getattr(stream, "reconfigure", None)
    encoding = getattr(stream, "encoding", None)
    if reconfigure is None or holds_all_text(encoding):
        return
    chosen = _chosen(chosen)
    try:
        interactive = bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):
        interactive = False
    try:
        if chosen and encoding:
            _register()
            reconfigure(encoding=kept_encoding(encoding), errors=asked_errors() or JSON_ESCAPE)
        elif not interactive and not chosen:
            reconfigure(encoding="utf-8", errors="strict")
        else:
            reconfigure(errors="replace")
    except (OSError, ValueError, LookupError):  # a closed or detached stream: nothing to print to
        return


def make_errors_writable(stream: TextIO | None, *, chosen: bool | None = None) -> None:
    """Set `stream` (sys.stderr) up: an encoding the person chose that cannot hold every
    character is kept (ASCII as KEPT_ASCII, so click writes in it too), with Python's
    escapes for what it lacks; any other is left as it is."""
    reconfigure = getattr(stream, "reconfigure", None)
    encoding = getattr(stream, "encoding", None)
    if reconfigure is None or not encoding or holds_all_text(encoding) or not _chosen(chosen):
        return
    errors = getattr(stream, "errors", None)
    try:
        reconfigure(encoding=kept_encoding(encoding),
                    errors=errors if errors and errors != "strict" else "backslashreplace")
    except (OSError, ValueError, LookupError):
        return
