"""Best-of-N wall-clock timing shared by the benchmark scripts."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """(fastest seconds over `repeat` runs, at least one; what the last run returned).

    The best run, not the mean: on a shared box the slow runs measure the
    neighbours, not the code.
    """
    seconds: list[float] = []
    for _ in range(max(1, repeat)):
        gc.collect()
        start = time.perf_counter()
        out = fn()
        seconds.append(time.perf_counter() - start)
    return min(seconds), out
