"""Waits on other threads that Ctrl-C can end, whichever thread the signal reached.

The kernel hands a process's SIGINT to any of its threads that does not block it.
CPython runs the Python handler (the KeyboardInterrupt) in the main thread only, and
the main thread notices it when it next runs Python code: a main thread blocked in a
lock wait with no timeout (`ThreadPoolExecutor.map`'s results, `Event.wait()`,
`Thread.join()`) sleeps on until what it waits for ends. When the signal landed in
a mining thread waiting out an overload (a 529's `retry-after: 120`), Ctrl-C ended
learn two minutes later, or at the next call's end: tests/test_interrupt_points.py
lost it about once in ten runs on a loaded machine, and tests/test_waiting.py sends
it to that thread every time (`signal.pthread_kill`).

So the main thread waits in slices of SLICE_SECONDS, each a return to Python that
runs a pending handler. A slice costs a wake-up four times a second, only while
something is being waited for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, wait
from typing import Final, TypeVar

T = TypeVar("T")

SLICE_SECONDS: Final = 0.25


def results(futures: Sequence[Future[T]]) -> list[T]:
    """Each future's result in order, as `Executor.map` gives them, once all have ended
    (the first failure in order raised), waited for in slices."""
    pending = set(futures)
    while pending:
        _, pending = wait(pending, timeout=SLICE_SECONDS)
    return [f.result() for f in futures]


def wait_for(event: threading.Event, seconds: float) -> bool:
    """`event.wait(seconds)` in slices: whether it was set."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return event.is_set()
        if event.wait(min(left, SLICE_SECONDS)):
            return True


def join(thread: threading.Thread, seconds: float) -> None:
    """`thread.join(seconds)` in slices."""
    deadline = time.monotonic() + seconds
    while thread.is_alive():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        thread.join(min(left, SLICE_SECONDS))
