"""A run's spend on disk as its calls return: a run killed mid-way still counts what it paid.

`learn stats` adds up `runs.usage_json`, which a run wrote only at its end: a
`learn run` killed with SIGKILL (an OOM killer, a closed laptop, a CI timeout)
while mining left no row at all, and every call it had been answered, and billed
for, was missing from the totals (tests/test_run_usage_killed.py). So the run's
row is started with its first paid call, and after every call its usage so far
is written as one committed statement: the total, never an increment, so a crash
between two writes leaves the last total whole. The row stays unfinished
(`finished_at` NULL: "unfinished" in `learn stats`) until the run's end writes
its final books over it (learn.reduce.stored.record_run).

One small UPDATE per call, against calls of seconds each. The writes go through
a connection of their own, opened with the first one: mining calls return on
worker threads while the judge stage holds the run's main connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from learn.records.proposal import RunUsage

if TYPE_CHECKING:
    from learn.store.api import Store


class RunningUsage:
    """The row of one run in `runs` at `target`, kept up to date with `usage()` (thread-safe)."""

    def __init__(self, target: Path | str | None, usage: Callable[[], RunUsage]) -> None:
        self.target = target
        self.usage = usage
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._run_id: int | None = None
        self._due = False  # a call's usage not yet written
        self.failed_writes = 0

    @property
    def run_id(self) -> int | None:
        with self._lock:
            return self._run_id

    def start(self) -> int:
        """The run's id: its row, started now if no call has paid yet (errors raise)."""
        with self._lock:
            return self._write()

    def record(self) -> None:
        """Write the usage so far (the meter's `on_usage`). Never raises: a write that
        fails (a full disk, a lock held past the busy timeout) must not fail the call
        that was paid for; the next call writes the total again, and so does the end."""
        # Calls return on many threads at once, and a write can wait on the store's busy
        # timeout (another process writing): a call whose write finds one in flight does
        # not queue behind it (four threads waited 5, 10, 15 and 20 s behind a held
        # store); the writer in flight writes again, and its total holds this call's.
        self._due = True
        while self._lock.acquire(blocking=False):
            try:
                while self._due:
                    self._due = False
                    try:
                        self._write()
                    except Exception:
                        self.failed_writes += 1
                        break
            finally:
                self._lock.release()
            # A call that came between the last write and the release found the lock
            # taken and left its total to this writer: go round again for it.
            if not self._due:
                return

    def finish(self) -> None:
        """Close the row with the usage and no result, when the run ends without the
        judge stage (`learn batches --collect`): a cost with nothing to show."""
        with self._lock:
            if self._run_id is None:
                return
            self._open().runs.finish_run(self._run_id, usage=self.usage().to_json(), result=None)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def _open(self) -> Store:
        if self._store is None:
            from learn.store.api import open_store

            self._store = open_store(self.target)
        return self._store

    def _write(self) -> int:
        store = self._open()
        with store.atomic():  # the row and its first usage together
            run_id = store.runs.start_run({}) if self._run_id is None else self._run_id
            store.runs.record_usage(run_id, self.usage().to_json())
        self._run_id = run_id
        return run_id
