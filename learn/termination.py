"""SIGTERM and SIGHUP end learn the way Ctrl-C does: one line, what was finished kept.

`kill`, `timeout`, systemd stopping a unit and a CI runner cancelling a job send
SIGTERM; a terminal that closes sends SIGHUP. Python's default for both is to die
where it stands: `learn run` ended with no word and exit -15 (the store stayed
whole, its writes are transactions, as after `kill -9`), and the `claude`
processes it had started were left running, as nothing up the stack ran. Ctrl-C
already had a clean path (learn.cli: the running calls aborted, every `finally`
run, "interrupted (what was finished is kept)", exit 130). The handler here
raises Terminated, a KeyboardInterrupt, in the main thread, where Ctrl-C's is
raised (learn.waiting: the main thread waits in slices, so it sees it at once),
so every place that handles Ctrl-C handles these too; the exit is 128 + the
signal (143, 129), what a shell reports for a process the signal killed, so a
supervisor reads the same code as before.

After the first signal both go back to their default: a second one ends learn at
once, in the middle of its cleanup. A signal ignored when learn started stays
ignored (`nohup learn run`: a closing terminal must not end it). A forked child
(the listing's worker processes, learn.transcripts.pool) gets the defaults back
at the fork: the parent ends its workers with SIGTERM, a closing terminal sends
SIGHUP to the whole process group, and a worker must just die, not raise inside
the file it was parsing (its errors are sent back to the parent as results).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Final

# signal.signal knows SIGHUP on POSIX only; SIGTERM everywhere.
NAMES: Final = tuple(name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
# What learn exits with when one of them ended it (143, 129).
EXIT_CODES: Final = frozenset(128 + int(getattr(signal, name)) for name in NAMES)

_installed: list[int] = []
_fork_hook = False


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread as Ctrl-C's KeyboardInterrupt is."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def install() -> None:
    """End learn with Terminated on SIGTERM and SIGHUP, where they have their default."""
    global _fork_hook
    for name in NAMES:
        signum = int(getattr(signal, name))
        if signum in _installed:
            continue
        try:
            if signal.getsignal(signum) is not signal.SIG_DFL:
                continue  # ignored at start (nohup), or an embedding's own handler: kept
            signal.signal(signum, _raise)
        except ValueError:  # not the main thread (learn called from a program's thread)
            return
        _installed.append(signum)
    if _installed and not _fork_hook and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=restore)
        _fork_hook = True


def restore() -> None:
    """The default disposition back for every signal `install` took."""
    for signum in _installed:
        with contextlib.suppress(ValueError, OSError):  # a fork from another thread
            signal.signal(signum, signal.SIG_DFL)


def _raise(signum: int, _frame: FrameType | None) -> None:
    restore()  # a second signal ends learn at once, whatever the cleanup is doing
    raise Terminated(signum)


def stopped_by(exc: BaseException) -> str:
    """How `exc` stopped learn, in words: "terminated by SIGTERM", or "interrupted"."""
    return f"terminated by {exc.signal_name}" if isinstance(exc, Terminated) else "interrupted"


def ending(exc: BaseException) -> tuple[str, int]:
    """The line that says how learn was stopped (no newline) and the exit code:
    "learn: terminated by SIGTERM", 143 for a signal; "learn: interrupted", 130 for
    Ctrl-C, on a line of its own (the terminal echoed `^C`)."""
    if isinstance(exc, Terminated):
        return f"learn: {stopped_by(exc)}", exc.exit_code
    # 128 + SIGINT, learn.errors.EXIT_INTERRUPTED by the same rule: not imported from
    # there, which imports doctor, which imports the hook worker, which imports this.
    return f"\nlearn: {stopped_by(exc)}", 128 + int(signal.SIGINT)


def end_while_loading(exc: BaseException, write: Callable[[str], object], *,
                      log: bool = False) -> None:
    """Ctrl-C, SIGTERM or SIGHUP that arrived before learn.cli's handler was reached, as
    a process's exception hook sees it (learn.crash_output, the hook worker's
    learn.hook.worker_output): what was printed flushed first, then `ending`'s one line
    through `write` (`log`: no leading newline, no terminal echoed a ^C), and for a
    signal exit 128 + it at once. Python exits 1 after a KeyboardInterrupt's subclass
    (only Ctrl-C's own is turned back into the signal); after Ctrl-C it ends as it does."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stdout.flush()
    line, code = ending(exc)
    write((line.lstrip("\n") if log else line) + "\n")
    if code in EXIT_CODES:
        os._exit(code)
