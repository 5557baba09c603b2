"""Best-of-N wall-clock timing shared by the benchmark scripts."""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
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
    fns: dict[str, Callable[[], T]], repeat: int, clock: Callable[[], float] = time.process_time
) -> dict[str, tuple[float, T]]:
    """`best_of` for several functions, run in rounds (each once per round).

    A ratio between two rows is only meaningful if both saw the same machine:
    timed one after the other, a neighbour's burst lands on one row only (a
    baseline measured 0.17 s in one run and 0.31 s in the next on this shared
    box); interleaved, every row gets a chance at a quiet moment. The default
    clock is this process's CPU time (user + system, so page-cache reads
    count): at a load average of 8 on 2 cores, wall-clock ratios of the same
    code swung from 0.7x to 1.6x between runs, while the work done does not
    change with the neighbours. Only for single-threaded code.
    """
    best: dict[str, tuple[float, T]] = {}
    for _ in range(max(1, repeat)):
        for name, fn in fns.items():
            gc.collect()
            start = clock()
            out = fn()
            secs = clock() - start
            if name not in best or secs < best[name][0]:
                best[name] = (secs, out)
    return best


def orjson_lines(paths: Sequence[Path]) -> int:
    """The baseline every parse figure is a ratio to: `orjson.loads` of every
    non-blank line of `paths`, results discarded; returns the lines decoded."""
    import orjson

    n = 0
    for p in paths:
        for line in p.read_bytes().split(b"\n"):
            if line.strip():
                orjson.loads(line)
                n += 1
    return n


def cpu_with_children() -> float:
    """This process's CPU and its reaped children's (user + system)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def orjson_lines_at_once(paths: Sequence[Path], processes: int) -> int:
    """`orjson_lines` over `processes` forked processes running at once, the files dealt
    out by size (largest first, each to the least loaded); returns the lines decoded.

    Time it with `cpu_with_children`. A first listing parses over the machine's cores,
    and on the 2-core development VM two processes running at once can each take more
    CPU for the same work than one alone (a pure-Python loop, two copies at once: 1.31x
    the CPU of the two one after the other, median of eight alternations; orjson itself
    0.96-1.31x in two runs of speed.py): a ratio of the listing's CPU to `orjson_lines`
    in one process counts that as learn's work. Against this baseline both sides pay it."""
    shares: list[list[Path]] = [[] for _ in range(max(1, processes))]
    loads = [0] * len(shares)
    for size, p in sorted(((q.stat().st_size, q) for q in paths), reverse=True):
        k = loads.index(min(loads))
        shares[k].append(p)
        loads[k] += size
    pids: list[tuple[int, int]] = []
    for share in shares:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                os.close(r)
                os.write(w, str(orjson_lines(share)).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        pids.append((pid, r))
    n = 0
    for pid, r in pids:
        with os.fdopen(r, "rb") as fh:
            got = fh.read()
        _, status = os.waitpid(pid, 0)
        if status != 0 or not got:
            raise RuntimeError("an orjson baseline process failed")
        n += int(got)
    return n
