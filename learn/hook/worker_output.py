"""Everything the detached hook worker prints goes through redaction, tracebacks too.

spawn_worker gives the worker hook.log (0600) as its stdout and stderr, so Claude
Code never waits on a pipe. Log.write redacts the lines it writes; what Python itself
printed there did not go through it: the traceback of an exception raised outside
drain's handler (importing, finding the queue's directory, click), a thread's, a
warning, a library's last-resort log record. A traceback quotes the exception's
message, and a client's message can quote a URL with its password or the header
holding the key: both reached the log whole.

`guard_output` is the worker's first step (learn.entry, before the command line is
imported): sys.stdout and sys.stderr become writers that redact what was written
since their last flush as one text (learn.render.redact.redact_message: the held
credentials by value, then every shape), and an uncaught exception, in the main
thread or another, is formatted whole and then flushed, so a message spanning lines
(a PEM block) is redacted as one. Not covered: what reaches the file descriptor
without going through sys.stderr (the interpreter's fatal errors); the subprocesses
learn starts capture their own output (learn.models.claude_cli).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Final, TextIO, cast

from learn.crash_output import WITHHELD, exception_text, thread_exception_text

if TYPE_CHECKING:
    from collections.abc import Iterable

# Written out when this much is waiting for a flush: a loop printing without
# flushing must not hold the worker's memory.
_MAX_PENDING_CHARS: Final = 1 << 20


class RedactingWriter:
    """A text stream that writes what it is given to `inner`, redacted, at each flush.

    The part of a text stream that print, traceback, warnings, logging and click use;
    no `buffer`, or click would write bytes to it, past the redaction."""

    closed = False

    def __init__(self, inner: TextIO, redact: Callable[[str], str]) -> None:
        self.inner = inner
        self.encoding: str = getattr(inner, "encoding", None) or "utf-8"
        self.errors: str | None = getattr(inner, "errors", None)
        self._redact = redact
        self._pending: list[str] = []
        self._size = 0
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    def close(self) -> None:  # sys.stdout is not closed by whoever holds it
        self.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def write(self, text: str) -> int:
        with self._lock:
            self._pending.append(text)
            self._size += len(text)
            full = self._size > _MAX_PENDING_CHARS
        if full:
            self.flush()
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
            self._size = 0
            if not text:
                return
            try:
                clean = self._redact(text)
            except Exception:  # a redaction bug must not write the secret it missed
                clean = WITHHELD
            try:
                self.inner.write(clean)
                self.inner.flush()
            except (OSError, ValueError):  # the log is gone or closed: nothing to write to
                pass


def guard_output() -> None:
    """Route this process's stdout, stderr and uncaught exceptions through redaction."""
    if isinstance(sys.stderr, RedactingWriter):
        return
    # Imported now, not at the first flush: the last flush runs while the
    # interpreter shuts down.
    from learn.render.redact import redact_message

    streams = [sys.stdout, sys.stderr]
    for name, stream in zip(("stdout", "stderr"), streams, strict=True):
        if stream is not None:
            setattr(sys, name, cast(TextIO, RedactingWriter(stream, redact_message)))
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook


def _write_whole(text: str) -> None:
    err = sys.stderr
    if err is None:
        return
    err.write(text)
    err.flush()


# Written whole into the redacting stderr, which redacts it as one text at the flush
# (learn.crash_output's hooks, which redact before writing, are replaced here: the
# worker's stderr would redact their text twice).
def _excepthook(kind: type[BaseException], value: BaseException,
                tb: TracebackType | None) -> None:
    _write_whole(exception_text(kind, value, tb))


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    text = thread_exception_text(args)
    if text is not None:
        _write_whole(text)
