"""Python's cyclic garbage collector held off through work that builds no cycles.

Reading sessions allocates millions of short-lived objects (wire records, events,
turns, index rows) and reference counting frees every one of them: none is in a
cycle. The cyclic collector still ran every few hundred allocations, walking what
the process held (the imported modules, the rows gathered so far): a first
`learn sessions --all-projects` of 1,000 sessions took 0.96x the CPU without it in
one process (median of 5 runs alternating with the code before, spread home) and
0.91-0.98x with its workers (benchmarks/listing_against.py, each shape). Its cost
is the walk's memory traffic more than its instructions: callgrind counts 0.99x.
What it would have freed by the end of a listing was the same 507 objects in all
three homes, and the peak memory the same within 1 MB (tests/test_collector.py
holds listings to no garbage that grows with the sessions they read).

Forked pool workers (learn.transcripts.pool) inherit the pause.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The cyclic collector off inside, back as it was after (nested pauses keep it off)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
