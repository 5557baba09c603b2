"""Pre-clustering on vectors: put similar occurrences in front of the model together.

Average-linkage agglomerative clustering on cosine distance. On a 60-sentence
paraphrase set (12 groups × 5) MiniLM scored ARI 0.88 at t≈0.65–0.77 with a
wide good band (0.58–0.77); char TF-IDF peaked at t≈0.91 with a narrow band
(0.87–0.94). Complete linkage was worse for every embedder. These clusters
only decide which items share a naming call (and the fallback label when the
model fails); the model, not the threshold, decides what is the same point.

Given the quotes' texts, the distance also carries a wording penalty
(learn/reduce/contrast.py): a negation on one side only, a swapped key noun or
a different version number keeps look-alikes apart. On benchmarks/paraphrase.py
(14 groups x 5 + 8 decoys) that took MiniLM from ARI 0.69 with 7 of 11 decoy
pairs merged to 0.79 with 1 at the same threshold (0.72 -> 0.81 held out);
hashed n-grams got worse (0.58 -> 0.50: their groups are held together by the
very words the penalty weighs), so the TF-IDF space keeps the plain distance.
Complete linkage with the penalty did no better held out (0.76 vs 0.77 in the
exploration), so average linkage stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from learn.reduce.contrast import NO_CONTRAST, SCRIPT_WEIGHT, Contrast

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import Vector

DEFAULT_THRESHOLD = 0.65
# Measured best bands (feasibility probes §3); keyed by embedder-name prefix.
_THRESHOLDS: tuple[tuple[str, float], ...] = (("minilm", 0.64), ("tfidf", 0.88))
# Weights measured flat between 0.2 and 0.4 each at t=0.62-0.65 (ARI 0.75-0.82), so
# round values in the middle of that plateau, not the sweep's best point.
DEFAULT_CONTRAST = Contrast(negation=0.3, topic=0.3, number=0.3, script=SCRIPT_WEIGHT)
_CONTRASTS: tuple[tuple[str, Contrast], ...] = (("minilm", DEFAULT_CONTRAST), ("tfidf", NO_CONTRAST))
# Rows of the quote-by-quote distances made at once. Each block is a product of its rows
# with every column, which OpenBLAS sums as it sums the whole square (the same bits, checked
# in tests/test_naming_scale.py); a set of quotes up to this size is one block, the square.
NEIGHBOUR_BLOCK = 1024


def threshold_for(embedder: Embedder) -> float:
    """The cosine-distance threshold recommended for `embedder`'s vector space."""
    own = getattr(embedder, "cluster_threshold", None)
    if isinstance(own, int | float):
        return float(own)
    from learn.embed import CLUSTER_THRESHOLD

    if embedder.name in CLUSTER_THRESHOLD:
        return CLUSTER_THRESHOLD[embedder.name]
    name = embedder.name.lower()
    for prefix, value in _THRESHOLDS:
        if name.startswith(prefix):
            return value
    return DEFAULT_THRESHOLD


def contrast_for(embedder: Embedder) -> Contrast:
    """The wording penalty to add in `embedder`'s vector space (none for lexical spaces)."""
    from learn.embed import CLUSTER_CONTRAST

    if embedder.name in CLUSTER_CONTRAST:
        negation, topic, number = CLUSTER_CONTRAST[embedder.name]
        # A lexical space reads every script; a sentence embedding gets the
        # lexical term for text it cannot read (learn/reduce/contrast.py).
        script = SCRIPT_WEIGHT if (negation or topic or number) else 0.0
        return Contrast(negation=negation, topic=topic, number=number, script=script)
    name = embedder.name.lower()
    for prefix, value in _CONTRASTS:
        if name.startswith(prefix):
            return value
    return DEFAULT_CONTRAST


def distance_matrix(vectors: Vector) -> Vector:
    import numpy as np

    sims = vectors @ vectors.T
    dist: Vector = np.clip(1.0 - sims, 0.0, 2.0).astype(np.float32)
    np.fill_diagonal(dist, 0.0)
    return dist


def cluster_ids_complete(
    vectors: Vector,
    threshold: float,
    *,
    texts: Sequence[str] | None = None,
    contrast: Contrast | None = None,
) -> list[int]:
    """Like `cluster_ids`, with complete linkage: every pair in a cluster is
    within `threshold`. Used where a cluster becomes a label without a model
    (the naming fallback), so a chain of near pairs cannot join two directives
    that merely share a topic word."""
    return cluster_ids(vectors, threshold, texts=texts, contrast=contrast, linkage="complete")


def cluster_ids(
    vectors: Vector,
    threshold: float,
    *,
    texts: Sequence[str] | None = None,
    contrast: Contrast | None = None,
    linkage: Literal["average", "complete"] = "average",
) -> list[int]:
    """A cluster id per row; ids numbered by first appearance so the result
    depends only on the row order, which callers make canonical.

    With `texts` (one per row) the wording penalty `contrast` (default
    DEFAULT_CONTRAST) is added to the cosine distance; without, plain cosine.
    """
    n = int(vectors.shape[0])
    if texts is not None and len(texts) != n:
        raise ValueError(f"cluster_ids: {len(texts)} texts for {n} vectors")
    if n == 0:
        return []
    if n == 1:
        return [0]
    import numpy as np
    from scipy.cluster.hierarchy import linkage as tree

    # The scikit-learn estimator this replaced made the whole square (float32), a square of
    # the penalty, their sum, two index arrays of the upper triangle and its float64 copy:
    # ~30 bytes per pair, 1.1 GiB at 16,000 quotes (this round's
    # benchmarks/naming_scale.py). The same tree from the upper triangle alone, made a block
    # of rows at a time (8 bytes per pair), cut where scikit-learn cut it.
    merges = tree(_upper_triangle(vectors, texts, DEFAULT_CONTRAST if contrast is None else contrast),
                  method=linkage)
    # scikit-learn's cut: the merges at or above the threshold are undone (the tree's rows
    # are in order of height), the rest join their two sides.
    kept = n - 1 - int(np.count_nonzero(merges[:, 2] >= threshold))
    parent = list(range(2 * n - 1))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for row in range(kept):
        a, b = int(merges[row, 0]), int(merges[row, 1])
        parent[find(a)] = n + row
        parent[find(b)] = n + row
    renumber: dict[int, int] = {}
    return [renumber.setdefault(find(i), len(renumber)) for i in range(n)]


def _upper_triangle(vectors: Vector, texts: Sequence[str] | None, contrast: Contrast) -> Any:
    """The condensed distance matrix (float64) of the rows: the values `distance_matrix`
    plus `contrast_matrix` gave, in scipy's order (row by row, above the diagonal)."""
    import numpy as np

    from learn.reduce.contrast import Wording

    n = int(vectors.shape[0])
    out = np.empty(n * (n - 1) // 2, dtype=np.float64)
    wording = Wording(texts, contrast) if texts is not None and contrast.active else None
    step = max(1, NEIGHBOUR_BLOCK)
    start = at = 0
    while start < n:
        first = min(start, max(0, n - step))  # a full block: see Neighbours
        rows = np.arange(first, min(first + step, n))
        dist: Vector = np.clip(1.0 - vectors[rows] @ vectors.T, 0.0, 2.0).astype(np.float32)
        if wording is not None:
            dist = dist + wording.between(rows, np.arange(n))
        for local in range(start - first, len(rows)):
            r = int(rows[local])
            out[at : at + n - r - 1] = dist[local, r + 1 :]
            at += n - r - 1
        start = first + len(rows)
    return out


def medoid(members: Sequence[int], vectors: Vector) -> int:
    """The member most similar to the rest (ties: the first in `members`)."""
    if len(members) == 1:
        return members[0]
    sub = vectors[list(members)]
    scores = (sub @ sub.T).sum(axis=1)
    best = 0
    for i in range(1, len(members)):
        if scores[i] > scores[best] + 1e-6:
            best = i
    return members[best]


class Neighbours:
    """The quote-by-quote distances (cosine plus the wording penalty) the label checks
    read, without the square: the pairs within `radius`, each quote's distances to the
    quotes of its own group (`groups`, one id per row), and the pairs that are the same
    words with the negation flipped.

    The drift merge and the regroup held the whole U x U matrix twice (459 MiB at 4,070
    candidates, 4x per doubling: scale audit, 2026-12) and then scanned it label by label.
    Here the matrix is made `NEIGHBOUR_BLOCK` rows at a time, each entry the same value
    the square held, and only what a check can use is kept: a check compares a distance
    with a cut at most `radius`, or reads distances inside one group. A row's neighbours
    (`near_cols`, sorted, and `near_vals`) include the row itself.
    """

    def __init__(self, vectors: Vector, texts: Sequence[str], contrast: Contrast, radius: float,
                 groups: Sequence[object] | None = None, *, flips: bool = True,
                 block: int | None = None) -> None:
        import numpy as np

        from learn.reduce.contrast import SAME_WORDS_APART, Wording

        n = int(vectors.shape[0])
        step = max(1, block or NEIGHBOUR_BLOCK)
        wording = Wording(texts, contrast) if contrast.active else None
        ids: dict[object, int] = {}
        of = np.array([ids.setdefault(g, len(ids)) for g in (groups if groups is not None else [0] * n)],
                      dtype=np.int64)
        self.group_of = of
        self.group_ids = ids
        order = np.argsort(of, kind="stable")
        self.group_rows: list[Any] = np.split(order, np.cumsum(np.bincount(of, minlength=len(ids)))[:-1])
        self.mates: list[Any] = [None] * n  # row -> float32 distances to its group's rows
        near_cols: list[Any] = [np.zeros(0, dtype=np.int64)] * n
        near_vals: list[Any] = [np.zeros(0, dtype=np.float32)] * n
        start = 0
        while start < n:
            # The last block is moved back to full size: a product of one or two rows is
            # summed another way (gemv), and its last bits differ from the square's.
            first = min(start, max(0, n - step))
            rows = np.arange(first, min(first + step, n))
            dist: Vector = 1.0 - vectors[rows] @ vectors.T
            if wording is not None:
                dist = dist + wording.between(rows, np.arange(n))
            fresh = dist[start - first :]
            hit = fresh <= radius
            at, col = np.nonzero(hit)
            cuts = np.cumsum(hit.sum(axis=1))[:-1]
            near_cols[start : first + len(rows)] = np.split(col, cuts)
            near_vals[start : first + len(rows)] = np.split(fresh[at, col], cuts)
            if groups is not None:
                for local in range(len(fresh)):
                    r = start + local
                    self.mates[r] = fresh[local, self.group_rows[of[r]]]
            start = first + len(rows)
        self.near_cols, self.near_vals = near_cols, near_vals
        # Flipped pairs: only a negated quote and one not negated can be.
        self.flipped: list[set[int]] = [set() for _ in range(n)]
        if n and flips:
            flip = Wording(texts, Contrast(negation=1e-6))
            negated = flip.negated()
            yes, no = np.flatnonzero(negated), np.flatnonzero(~negated)
            for lo in range(0, len(yes), step):
                part = yes[lo : lo + step]
                if not len(part) or not len(no):
                    break
                p, q = np.nonzero(flip.between(part, no) >= SAME_WORDS_APART)
                for a, b in zip(part[p].tolist(), no[q].tolist(), strict=True):
                    self.flipped[a].add(b)
                    self.flipped[b].add(a)

    def pairs(self, within: float) -> tuple[Any, Any]:
        """(rows, cols) of every ordered pair of distinct rows within `within` (compared as
        float32, as `dist <= within` on the square compared)."""
        import numpy as np

        keep = [(v <= within) & (c != r) for r, (c, v) in enumerate(zip(self.near_cols, self.near_vals,
                                                                           strict=True))]
        rows = [np.full(int(k.sum()), r, dtype=np.int64) for r, k in enumerate(keep)]
        cols = [c[k] for c, k in zip(self.near_cols, keep, strict=True)]
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(rows), np.concatenate(cols)

    def flipped_pairs(self) -> tuple[Any, Any]:
        import numpy as np

        p = [a for a, bs in enumerate(self.flipped) for _ in bs]
        q = [b for bs in self.flipped for b in bs]
        return np.asarray(p, dtype=np.int64), np.asarray(q, dtype=np.int64)

    def block(self, group: int) -> Vector:
        """The square's block of one group: rows and columns its rows, in row order."""
        import numpy as np

        rows = self.group_rows[group]
        if not len(rows):
            return np.zeros((0, 0), dtype=np.float32)
        out: Vector = np.stack([self.mates[int(r)] for r in rows])
        return out
