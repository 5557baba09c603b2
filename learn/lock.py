"""One run at a time.

Two runs racing would mine the same sessions twice (paying twice) and
interleave their writes to the store and to CLAUDE.md. A second run waits
briefly for the first to finish, then gives up with a message naming the lock,
instead of queueing forever behind a run that may be stuck on a slow model.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from learn.paths import data_dir, ensure_private_dir


class LockedError(Exception):
    pass


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
    try:
        yield path
    finally:
        lock.release()
