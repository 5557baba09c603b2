"""A process pool over files, results in input order: the cold scan's use of the machine's cores.

Processes, not threads: msgspec decodes holding the GIL, and a reader thread
made stream() slower on this box (parser.stream's docstring has the figures).
Workers are forked, so they start with learn already imported (a spawned worker
re-imports it: ~0.3 s each). What crosses back is pickled, so a worker should
return compact results (learn.transcripts.view.compact), not every event.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Final, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this many files one process does it: forking and pickling cost more
# than a handful of files takes to parse.
MIN_PARALLEL_FILES: Final = 8
ENV_WORKERS: Final = "LEARN_PARSE_WORKERS"


def cores() -> int:
    """The cores this process may run on (LEARN_PARSE_WORKERS overrides)."""
    override = os.environ.get(ENV_WORKERS, "").strip()
    if override.isdigit() and int(override) > 0:
        return int(override)
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def worker_count(items: int, workers: int | None = None) -> int:
    """How many processes for `items` files: 1 for a few files, else the cores (or `workers`)."""
    want = cores() if workers is None else max(1, workers)
    if items < MIN_PARALLEL_FILES:
        return 1
    return min(want, items)


def ordered_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None) -> Iterator[R]:
    """fn over items in a process pool (or in this process for a few), in input order.

    `fn` must be a module-level function (it is pickled by name).
    """
    n = worker_count(len(items), workers)
    if n <= 1:
        yield from map(fn, items)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # Small chunks keep the workers even when a few files are most of the bytes
    # (real disks: a handful of MB sessions among hundreds of small ones).
    chunksize = max(1, len(items) // (n * 16))
    with ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        yield from pool.map(fn, items, chunksize=chunksize)
