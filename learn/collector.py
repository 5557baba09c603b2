"""Python's cyclic garbage collector held off through work that builds no cycles.

Reading sessions allocates millions of short-lived objects (wire records, events,
turns, index rows) and reference counting frees every one of them: none is in a
cycle. The cyclic collector still ran every few hundred allocations, walking
what the process held (the imported modules, the rows gathered so far), and was
a tenth to a fifth of the CPU of a first `learn sessions --all-projects`: one
process over 1,000 sessions, 2.93 s with it and 2.27 s without (spread), 2.68 s
and 2.05 s (one big tree), 2.62 s and 2.42 s (a 6 MB session). What it would
have freed by the end was the same 507 objects in all three homes, and the peak
memory the same within 1 MB (tests/test_collector.py holds the listing to making
no garbage that grows with the sessions it reads).

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
