"""Pre-clustering on vectors: put similar occurrences in front of the model together.

Average-linkage agglomerative clustering on cosine distance. On a 60-sentence
paraphrase set (12 groups × 5) MiniLM scored ARI 0.88 at t≈0.65–0.77 with a
wide good band (0.58–0.77); char TF-IDF peaked at t≈0.91 with a narrow band
(0.87–0.94). Complete linkage was worse for every embedder. These clusters
only decide which items share a naming call (and the fallback label when the
model fails); the model, not the threshold, decides what is the same point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import Vector

DEFAULT_THRESHOLD = 0.65
# Measured best bands (feasibility probes §3); keyed by embedder-name prefix.
_THRESHOLDS: tuple[tuple[str, float], ...] = (("minilm", 0.65), ("tfidf", 0.88))


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


def distance_matrix(vectors: Vector) -> Vector:
    import numpy as np

    sims = vectors @ vectors.T
    dist: Vector = np.clip(1.0 - sims, 0.0, 2.0).astype(np.float32)
    np.fill_diagonal(dist, 0.0)
    return dist


def cluster_ids(vectors: Vector, threshold: float) -> list[int]:
    """A cluster id per row; ids numbered by first appearance so the result
    depends only on the row order, which callers make canonical."""
    n = int(vectors.shape[0])
    if n == 0:
        return []
    if n == 1:
        return [0]
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None,
        metric="precomputed",
        linkage="average",
        distance_threshold=threshold,
    )
    raw = [int(x) for x in model.fit_predict(distance_matrix(vectors))]
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
