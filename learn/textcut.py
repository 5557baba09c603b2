"""Cutting oversized text in the middle, with a marker that says how much and why.

The one cut for text nobody can read whole (a 50 MB pasted log): the miner
(learn.render.chunk.fit_chunk), `learn plan` (which prices what the miner
sends), the session index (learn.transcripts.view.bounded) and `learn show` (what a
person can read) all use it, so what they say about a huge paste agrees.
"""

from __future__ import annotations


def cut_middle(text: str, limit: int, why: str) -> str:
    """`text` cut to about `limit` chars when longer: two thirds head, one third tail
    (a paste usually ends with what the person wants done about it), and between
    them a marker saying how many chars were cut and why."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    note = f"\n[… {cut:,} chars cut here: {why} …]\n"
    room = max(0, limit - len(note))
    head = room * 2 // 3
    tail = room - head
    return text[:head] + note + (text[-tail:] if tail else "")
