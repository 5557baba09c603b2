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


def best_of_interleaved(
    fns: dict[str, Callable[[], T]], repeat: int
) -> dict[str, tuple[float, T]]:
    """`best_of` for several functions, run in rounds (each once per round).

    A ratio between two rows is only meaningful if both saw the same machine:
    timed one after the other, a neighbour's burst lands on one row only (a
    baseline measured 0.17 s in one run and 0.31 s in the next on this shared
    box); interleaved, every row gets a chance at a quiet moment.
    """
    best: dict[str, tuple[float, T]] = {}
    for _ in range(max(1, repeat)):
        for name, fn in fns.items():
            gc.collect()
            start = time.perf_counter()
            out = fn()
            secs = time.perf_counter() - start
            if name not in best or secs < best[name][0]:
                best[name] = (secs, out)
    return best
