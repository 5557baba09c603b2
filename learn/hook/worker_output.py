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
since their last flush as one text (learn.redaction.redact.redact_message: the held
credentials by value, then every shape), and an uncaught exception, in the main
thread or another, is formatted whole and then flushed, so a message spanning lines
(a PEM block) is redacted as one; a SIGTERM or SIGHUP that ends the worker before
the command line's handler is reached is one line and exit 128 + the signal, as for
every other command (learn.crash_output), not a traceback. Not covered: what reaches
the file descriptor without going through sys.stderr (the interpreter's fatal
errors); the subprocesses learn starts capture their own output
(learn.models.claude_cli).
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
    no `buffer`, or click would write bytes to it, past the redaction. Bytes are taken
    all the same: click 8.5 probes a stream with `write(b"")` and, the probe passing,
    writes every echo as bytes through a wrapper of its own. Refused, the first flush
    failed on them and every later one too (they stayed pending): the hook worker failed
    every session whose mining printed a retry notice."""

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

    def write(self, text: str | bytes | bytearray) -> int:
        if isinstance(text, (bytes, bytearray)):
            # Replaced, not refused, where the bytes are not text: a line of a log
            # is worth more than the character it cannot show.
            piece = bytes(text).decode(self.encoding, errors="replace")
        elif isinstance(text, str):
            piece = text
        else:  # as a text stream refuses it, before it is pending
            raise TypeError(f"write() argument must be str or bytes, not {type(text).__name__}")
        with self._lock:
            self._pending.append(piece)
            self._size += len(piece)
            full = self._size > _MAX_PENDING_CHARS
        if full:
            self.flush()
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._lock:
            # Taken before it is joined: whatever fails below, the next flush starts
            # empty instead of failing on the same pieces again.
            pending, self._pending, self._size = self._pending, [], 0
            text = "".join(pending)
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
    from learn.redaction.redact import redact_message

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
    if issubclass(kind, KeyboardInterrupt):
        _stopped(value)
        return
    _write_whole(exception_text(kind, value, tb))


def _stopped(value: BaseException) -> None:
    """A SIGTERM or SIGHUP (learn.termination: a logout, a shutdown) that arrived before
    the command line's own handler was reached, while modules loaded: one line in
    hook.log, as that handler says it ("learn: terminated by SIGTERM"), and exit 128 +
    the signal, what a supervisor reads for a process the signal ended. It was a
    traceback and exit 1, as if the worker had crashed. Ctrl-C's line is said too, and
    Python then ends the process as Ctrl-C does (learn.crash_output, every other
    command's hook, does the same)."""
    from learn.termination import end_while_loading  # loaded: learn.entry installed it

    end_while_loading(value, _write_whole, log=True)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    text = thread_exception_text(args)
    if text is not None:
        _write_whole(text)
