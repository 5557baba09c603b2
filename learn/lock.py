"""One run at a time.

Two runs racing would mine the same sessions twice (paying twice) and
interleave their writes to the store and to CLAUDE.md. A second run waits
briefly for the first to finish, then gives up with a message naming the lock,
instead of queueing forever behind a run that may be stuck on a slow model.

`learn apply` and `learn decline` read the proposals a run stores and record the
person's decisions on them: they hold the same lock shared (`between_runs`), so
they never read a run's result half-stored nor write while it stores, and wait
for a run in progress the same bounded way, saying what they wait for.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from learn.paths import data_dir, ensure_private_dir


class LockedError(Exception):
    pass


# Lock files this process holds (run_lock or between_runs), with how many holds: a command
# that already holds one goes on under it. flock locks belong to an open file, not to the
# process, so a second hold of the same file from here would wait on this very process.
_HELD: dict[str, int] = {}


def _timeout_from_env() -> float:
    """LEARN_LOCK_TIMEOUT in seconds (default 10): a number of seconds, or a ConfigError
    saying so (`LEARN_LOCK_TIMEOUT=10s` was a ValueError traceback)."""
    raw = os.environ.get("LEARN_LOCK_TIMEOUT", "").strip()
    if not raw:
        return 10.0
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        from learn.config import ConfigError

        raise ConfigError(f"LEARN_LOCK_TIMEOUT={raw!r} is not a number of seconds "
                          "(how long a run waits for another to finish; 0 does not wait)")
    return seconds


@contextmanager
def run_lock(name: str = "run", *, timeout: float | None = None, directory: Path | None = None) -> Iterator[Path]:
    """Hold learn's run lock; wait `timeout` seconds (LEARN_LOCK_TIMEOUT, default 10)."""
    from filelock import FileLock, Timeout

    if timeout is None:
        timeout = _timeout_from_env()

    directory = ensure_private_dir(directory or data_dir())
    path = directory / f"{name}.lock"
    lock = FileLock(str(path), mode=0o600)
    try:
        lock.acquire(timeout=timeout)
    except Timeout as exc:
        raise LockedError(
            f"another learn run is in progress (lock {path}); waited {timeout:g}s. "
            "Try again when it finishes."
        ) from exc
    _HELD[str(path)] = _HELD.get(str(path), 0) + 1
    try:
        yield path
    finally:
        _HELD[str(path)] -= 1
        lock.release()


# How often a waiting reader looks again: a run lets go once, at its end.
POLL = 0.05


@contextmanager
def between_runs(doing: str, *, timeout: float | None = None, directory: Path | None = None,
                 say: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold the run lock shared while `doing` (said in the wait's message: "recording
    your decisions"): no `learn run` stores meanwhile, and none is in progress.

    Shared, not the run's own exclusive hold: what must not overlap a run is a read of
    the proposals it stores (its result and their states are stored by several writes:
    a pending row renamed away, then the new rows, then the run's row) and a decision
    recorded while it stores or between its reading states and storing them. Two
    readers overlap harmlessly (each decision is one transaction; two applies' file
    writes are ordered by their own lock, learn.commands.apply_lock.one_apply), so a
    `learn decline` never queues behind a `learn apply`. It is the same file as the
    run's FileLock (flock: a shared hold and an exclusive one exclude each other), so
    `learn run` needs no change to see it. Where flock is missing (Windows, some network
    file systems) the hold is the run's exclusive lock: readers then take turns.

    A run in progress is waited for as a second run waits for it (LEARN_LOCK_TIMEOUT,
    default 10 s), said once on stderr (or to `say`); past that, LockedError. A run
    holds its lock from its first session read to its last store, so a long run
    refuses the reader: the caller says nothing was written and to run it again."""
    if timeout is None:
        timeout = _timeout_from_env()
    directory = ensure_private_dir(directory or data_dir())
    path = directory / "run.lock"
    if _HELD.get(str(path)):
        yield path
        return

    def waiting() -> None:
        line = (f"learn: waiting for the `learn run` in progress to finish before {doing} "
                f"(up to {timeout:g}s, LEARN_LOCK_TIMEOUT; lock {path})")
        if say is not None:
            say(line)
        else:
            print(line, file=sys.stderr, flush=True)

    def refused() -> LockedError:
        return LockedError(f"a `learn run` is in progress (lock {path}); waited {timeout:g}s "
                           f"for it to finish before {doing}")

    fd = _shared(path, timeout, waiting, refused)
    if fd is None:  # no flock here: the run's own lock, exclusive
        with _exclusive(path, timeout, waiting, refused):
            yield path
        return
    _HELD[str(path)] = _HELD.get(str(path), 0) + 1
    try:
        yield path
    finally:
        _HELD[str(path)] -= 1
        os.close(fd)  # closing the file lets go of its flock


def _shared(path: Path, timeout: float, waiting: Callable[[], None],
            refused: Callable[[], LockedError]) -> int | None:
    """An open file descriptor of `path` holding a shared flock; None when this system or
    file system has no flock."""
    try:
        import fcntl
    except ImportError:
        return None
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + timeout
    said = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        except OSError:
            os.close(fd)
            return None
        if time.monotonic() >= deadline:
            os.close(fd)
            raise refused()
        if not said:
            waiting()
            said = True
        time.sleep(POLL)


@contextmanager
def _exclusive(path: Path, timeout: float, waiting: Callable[[], None],
               refused: Callable[[], LockedError]) -> Iterator[None]:
    from filelock import FileLock, Timeout

    lock = FileLock(str(path), mode=0o600)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        waiting()
        try:
            lock.acquire(timeout=timeout)
        except Timeout as exc:
            raise refused() from exc
    _HELD[str(path)] = _HELD.get(str(path), 0) + 1
    try:
        yield
    finally:
        _HELD[str(path)] -= 1
        lock.release()
