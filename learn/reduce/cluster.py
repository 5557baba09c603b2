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
from typing import TYPE_CHECKING, Literal

from learn.reduce.contrast import NO_CONTRAST, SCRIPT_WEIGHT, Contrast, contrast_matrix

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
    from sklearn.cluster import AgglomerativeClustering

    dist = distance_matrix(vectors)
    if texts is not None:
        dist = dist + contrast_matrix(texts, DEFAULT_CONTRAST if contrast is None else contrast)

    model = AgglomerativeClustering(
        n_clusters=None,
        metric="precomputed",
        linkage=linkage,
        distance_threshold=threshold,
    )
    raw = [int(x) for x in model.fit_predict(dist)]
    renumber: dict[int, int] = {}
    return [renumber.setdefault(c, len(renumber)) for c in raw]


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
