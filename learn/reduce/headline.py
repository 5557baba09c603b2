"""An offline proposal's words: the sentence its quotes share, not its longest quote.

With no model to word a rule, a proposal opened with its longest quote, and that
quote became the rule `learn apply` writes. A correction typed on its own in two
sessions and at the end of a longer message in two more was proposed as "I looked
at the new stock reservation test and it never touches a transaction; … the bug
was last week. tests must hit the real postgres, no mocks for the db layer." (an
audit of `learn run --offline` on the sessions of
tests/fixtures/fidelity/cases/62-correction-in-four-sessions), and the demo's
offline label `dont-mock-database-tests-got` was cut from "… we got burned last
quarter".

What was repeated is what the quotes have in common: each quote is cut into
sentences, and the sentence nearest (in the local embedder's space) to the other
quotes is the point; a sentence typed in every quote scores 1. Ties go to the
shorter sentence, then the alphabetically first: two quotes tie by construction
(their nearest pair scores alike from either side), and of the two the shorter
has less around the point. Deterministic for one embedder; no model is asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from learn.textfold import fold
from learn.textunits import is_unspaced, word_count

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]

# The longest directives people repeat by hand on the issue-10 corpus were under
# 200 characters (learn.transcripts.templates.repeated): a headline past that is a
# paragraph, not a point.
MAX_HEAD_CHARS: Final = 200
# A piece under verification's three-word minimum ("no.", "thanks!", "ok so") is
# not a point of its own: it stays with its neighbour ("no. use bun here"), where
# learn.reduce.wording drops what only addresses the agent. Alone, "no." said in
# two quotes was their most similar pair.
MIN_SENTENCE_WORDS: Final = 3

# A sentence ends at a line break, at . ! ? after a word and before a space ("-e . was"
# and "..." do not end one), and at a CJK full stop.
_SENTENCE_END: Final = re.compile(r"\s*\n\s*|(?<=[^\s.][.!?])\s+|(?<=[。！？])\s*")
# Where a sentence too long to be a headline is cut into clauses.
_CLAUSE_END: Final = re.compile(r"(?<=[;:,])\s+|\s+[–—-]\s+|(?<=[；：，、])\s*")
_FULL_WIDTH: Final = "。！？；：，、"
_ABBREVIATION: Final = re.compile(r"(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx)\.$", re.IGNORECASE)


def shared_sentence(texts: Sequence[str], embed: Embed) -> str:
    """The sentence of `texts` that holds the point they share, at most
    MAX_HEAD_CHARS long. One distinct text is all shared: it is kept whole when it
    fits, else its first sentence."""
    distinct = _distinct(texts)
    if not distinct:
        return ""
    if len(distinct) == 1:
        only = distinct[0]
        return only if len(only) <= MAX_HEAD_CHARS else sentences(only)[0]
    units = [(i, s) for i, text in enumerate(distinct) for s in sentences(text)]
    import numpy as np

    vectors = np.asarray(embed([s for _, s in units]), dtype=np.float32)
    vectors = vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)
    sims = vectors @ vectors.T
    owner = np.asarray([i for i, _ in units])
    best: tuple[float, int, str, str] | None = None
    for row, (i, sentence) in enumerate(units):
        nearest = [float(sims[row, owner == j].max()) for j in range(len(distinct)) if j != i]
        # Rounded: the pair's similarity read from either side may differ in the last bits.
        score = round(sum(nearest) / len(nearest), 4)
        key = (-score, len(sentence), fold(sentence), sentence)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[3]


def sentences(text: str) -> list[str]:
    """`text` cut into sentences of at least MIN_SENTENCE_WORDS words, each at most
    MAX_HEAD_CHARS long (a longer one is cut into clauses, a longer clause at a word
    with "…"). Each is the person's words as typed, stripped."""
    out: list[str] = []
    for sentence in _pieces(text, _SENTENCE_END, abbreviations=True):
        if len(sentence) <= MAX_HEAD_CHARS:
            out.append(sentence)
        else:
            out.extend(_bounded(c) for c in _pieces(sentence, _CLAUSE_END))
    return out or [_bounded(" ".join(text.split()))]


def _pieces(text: str, ends: re.Pattern[str], *, abbreviations: bool = False) -> list[str]:
    raw: list[str] = []
    start = 0
    for match in ends.finditer(text):
        piece = text[start:match.start()]
        if abbreviations and _ABBREVIATION.search(piece):
            continue  # "e.g. bun": the sentence goes on
        raw.append(piece)
        start = match.end()
    raw.append(text[start:])
    out: list[str] = []
    short = ""  # a piece too short to stand alone, joined to the next one
    for piece in (p.strip() for p in raw):
        if not piece:
            continue
        piece = _joined(short, piece) if short else piece
        short = ""
        if word_count(piece) < MIN_SENTENCE_WORDS:
            short = piece
        else:
            out.append(piece)
    if short:
        if out:
            out[-1] = _joined(out[-1], short)
        else:
            out.append(short)
    return out


def _joined(left: str, right: str) -> str:
    """Two pieces of one text joined again: with a space, but not after unspaced
    script or its full-width punctuation."""
    last = left[-1]
    return left + right if is_unspaced(last) or last in _FULL_WIDTH else f"{left} {right}"


def _bounded(text: str) -> str:
    if len(text) <= MAX_HEAD_CHARS:
        return text
    cut = text[:MAX_HEAD_CHARS - 1]
    space = cut.rfind(" ")
    if space > MAX_HEAD_CHARS // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _distinct(texts: Sequence[str]) -> list[str]:
    """One raw wording per folded text (the alphabetically first), in a fixed order:
    the same quote said in four sessions is one text, whatever order they came in."""
    firsts: dict[str, str] = {}
    for text in sorted(t.strip() for t in texts):
        if text:
            firsts.setdefault(fold(text), text)
    return [firsts[k] for k in sorted(firsts)]
