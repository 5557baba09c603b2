"""Fold text for comparison: the one place that decides when two texts are "the same".

A quote, a replayed template, a cluster key and an eval's gold line are all
compared after the same folding: whitespace runs collapsed to one space (a
markdown body arrives re-wrapped, a model re-flows a quote), trimmed, and
case-folded. Five modules used to carry their own copy of this; a copy that
drifts (one strips, one does not) makes a quote verify in one place and fail
to merge in another.

`fold_typography` is the second, stricter-named fold beside it, for one job:
re-anchoring a model's quote on what the person typed. A model copies the
words and retypes the typography (curly quotes, an em dash for `--`, `…` for
`...`, markdown emphasis dropped, a capital first letter); measured on a model
that did this to about a quarter of its quotes (issue 11), exact matching cost
0.3 of end-to-end recall. It never adds, drops or changes a letter or word, so
a paraphrase still fails, and it maps every folded character back to the
original so what is kept is the person's own span.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


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


# Every quotation mark and apostrophe folds to one: a model that swaps
# ’ for ' (or " for ') has changed no word.
_QUOTES: Final = frozenset("'\"‘’‚‛“”„‟′″´«»‹›")
QUOTE_CHARS: Final = _QUOTES
# Hyphen, non-breaking hyphen, figure/en/em dash, horizontal bar, minus.
_DASHES: Final = frozenset("-‐‑‒–—―−")
# Markdown emphasis and inline-code marks, which models add and drop freely
# around words; `_` only at a word edge (see below).
_EMPHASIS: Final = frozenset("*~`")
ELLIPSIS: Final = "…"
QUOTE_MARK: Final = "'"
DASH: Final = "-"


@dataclass(frozen=True, slots=True)
class Folded:
    """Folded text and, per folded character, the original span it came from."""

    text: str
    starts: tuple[int, ...]  # original index where folded char i begins
    ends: tuple[int, ...]  # original index just past what folded char i covers

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original [start, end) covered by folded [start, end) (end > start)."""
        return self.starts[start], self.ends[end - 1]


def _is_word(ch: str) -> bool:
    return ch.isalnum()


def fold_typography(text: str) -> Folded:
    """Fold quotes, dashes, ellipses, emphasis marks, whitespace and case.

    - every quotation mark and apostrophe -> `'`
    - any run of dashes, with the spaces around it -> `-` ("a — b" == "a--b" == "a - b")
    - `...` -> `…`
    - `*`, `~`, backticks dropped; `_` dropped at a word edge (`_this_`, not `snake_case`)
    - whitespace runs -> one space, trimmed; letters casefolded
    """
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(ch: str, start: int, end: int) -> None:
        if ch == " ":
            # No leading space, no double space, no space after a dash.
            if not chars or chars[-1] in (" ", DASH):
                return
        elif ch == DASH:
            if chars and chars[-1] == DASH:
                ends[-1] = end  # a run of dashes is one dash
                return
            if chars and chars[-1] == " ":
                chars.pop(), starts.pop(), ends.pop()  # no space before a dash
        chars.append(ch)
        starts.append(start)
        ends.append(end)

    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "." and text.startswith("...", i):
            emit(ELLIPSIS, i, i + 3)
            i += 3
            continue
        if ch.isspace():
            emit(" ", i, i + 1)
        elif ch in _QUOTES:
            emit(QUOTE_MARK, i, i + 1)
        elif ch in _DASHES:
            emit(DASH, i, i + 1)
        elif ch in _EMPHASIS:
            pass
        elif ch == "_":
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < n else ""
            if _is_word(before) and _is_word(after):
                emit("_", i, i + 1)
        else:
            for low in ch.casefold():
                emit(low, i, i + 1)
        i += 1
    while chars and chars[-1] == " ":
        chars.pop(), starts.pop(), ends.pop()
    return Folded("".join(chars), tuple(starts), tuple(ends))
