"""Fold text for comparison: the one place that decides when two texts are "the same".

A quote, a replayed template, a cluster key and an eval's gold line are all
compared after the same folding: whitespace runs collapsed to one space (a
markdown body arrives re-wrapped, a model re-flows a quote), trimmed, and
case-folded. Five modules used to carry their own copy of this; a copy that
drifts (one strips, one does not) makes a quote verify in one place and fail
to merge in another.
"""

from __future__ import annotations


def fold(text: str) -> str:
    """Collapse whitespace runs to one space, trim, casefold."""
    return " ".join(text.split()).casefold()


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold(text)` and, for each of its characters, the index in `text` it came from.

    Lets a match found in folded text be cut out of the original, so what is
    kept is the person's own spelling and line breaks, not the folded form.
    """
    out: list[str] = []
    offsets: list[int] = []
    pending_space = -1
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and pending_space < 0:
                pending_space = i
            continue
        if pending_space >= 0:
            out.append(" ")
            offsets.append(pending_space)
            pending_space = -1
        for folded in ch.casefold():
            out.append(folded)
            offsets.append(i)
    return "".join(out), offsets
