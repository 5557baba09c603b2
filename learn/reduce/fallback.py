"""Naming fallbacks: a label for every item the model did not name.

A failed or partial naming answer falls back per item, never to one slug per
item (that measured 0.98 labels per candidate: nothing could ever repeat), and
never by merging distinct points that merely share a topic word: with every
naming call failing, "never force push, make a new commit instead" was merged
into "keep the commits small" (issue 11). So a label is borrowed only when the
item is near every member carrying it (complete linkage), and a pre-cluster
with no model label is split into complete-linkage sub-clusters before each is
named after its medoid. On the held-out paraphrase set with near-topic decoys
(benchmarks/paraphrase.py, every naming call failing) that took MiniLM from
ARI 0.475 with 8 of 10 decoy pairs merged to 0.699 with 3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from learn.reduce.cluster import medoid
from learn.reduce.contrast import NO_CONTRAST, Contrast, contrast_between
from learn.reduce.slug import fallback_slug, is_label

if TYPE_CHECKING:
    from learn.reduce.protocols import LabelIndex, Vector


@dataclass
class Unique:
    kind: str
    norm: str
    text: str  # the lexicographically smallest raw wording: order-independent
    members: list[int]  # positions in the input
    vector_row: int = -1
    cluster: int = -1
    label: str | None = None
    from_model: bool = False
    # A whole answer declined to name it (now or in an earlier run): not asked again.
    declined: bool = False
    # Its naming call failed: the fallback groups it only with what it is sure of.
    call_failed: bool = False


_FAMILY: dict[str, tuple[str, ...]] = {"directive": ("directive", "request"),
                                       "request": ("directive", "request")}


def _guarded_label(dists: Vector, labels: Sequence[str], near: float) -> str | None:
    """The label whose every member is within `near` (complete linkage), the
    nearest on average among those; None when no label's group takes the item.

    Borrowing the single nearest member's label merged "only git add the files
    you changed" into never-force-push through one member sharing "git"
    (noisy eval, hard corpus, partial answers: a count error and recall 0.875).
    """
    by_label: dict[str, list[float]] = {}
    for d, label in zip(dists.tolist(), labels, strict=True):
        by_label.setdefault(label, []).append(float(d))
    ok = [(sum(ds) / len(ds), label) for label, ds in by_label.items() if max(ds) <= near]
    return min(ok)[1] if ok else None


def pool_declined(clusters_of: dict[tuple[str, int], list[Unique]]) -> None:
    """Move every declined text out of its pre-cluster into one pool per kind.

    A warm run does not cluster (nothing to ask), so a declined text's fallback
    label must not depend on its pre-cluster; but alone, each declined text got
    a slug of its own, and a point whose quotes one answer left out together was
    split into groups below the threshold ("Öffentliche Funktionen bekommen
    immer einen Docstring" / "Schreib Docstrings für alle öffentlichen
    Funktionen", 0.32 apart: multilingual eval, all faults, German recall 0.67).
    Pooled, they are split by complete linkage like any unnamed members, the
    same way in a cold and a warm run (the same declined texts either way)."""
    pooled: dict[str, list[Unique]] = {}
    for ckey, group_members in sorted(clusters_of.items()):
        if any(m.declined for m in group_members):
            clusters_of[ckey] = [m for m in group_members if not m.declined]
            pooled.setdefault(ckey[0], []).extend(m for m in group_members if m.declined)
    for kind, members in pooled.items():
        # Pre-cluster ids are >= 0: the pool's key cannot meet one.
        clusters_of[(kind, -1)] = sorted(members, key=lambda m: m.vector_row)


def fall_back(
    uniques: Sequence[Unique],
    vectors: Vector,
    index: LabelIndex | None,
    near: float,
    clusters_of: dict[tuple[str, int], list[Unique]],
    contrast: Contrast = NO_CONTRAST,
    *,
    sure: float | None = None,
    point_of: Callable[[Sequence[str]], str] | None = None,
) -> set[tuple[str, str]]:
    """Label every item the model did not: the labelled group of this run it is
    near in every member, else the nearest known label, else the label its
    cluster shares when it is near every member carrying it, else a slug of its
    own sub-cluster (complete linkage inside the cluster, so members that
    disagree are split, not pooled under one wrong name).
    Distances are measured like the clusters were (cosine plus the wording
    penalty), so "add comments" cannot borrow "don't add comments"'s label.
    An item whose naming call failed (`call_failed`) is held to `sure` instead of
    `near` at every step: nothing asked the model about it, so only near-identical
    wording may share its group. A sub-cluster's slug is made from `point_of` its
    texts when given (offline: the sentence they share), else from its medoid.
    Returns the (kind, label) pairs taken from the index."""
    import numpy as np

    def reach(u: Unique) -> float:
        return sure if sure is not None and u.call_failed else near

    from_index: set[tuple[str, str]] = set()
    for kind in sorted({u.kind for u in uniques}):
        # Directives and requests are one neighbourhood here: a miner reports a
        # directive as a request now and then, and counting folds a label named
        # under both kinds into one (counting._reconcile_kinds). Kept per kind,
        # an unlabelled "network tools stay disabled by default" borrowed the
        # look-alike "doc tools" label because its true sibling was a request.
        family = _FAMILY.get(kind, (kind,))
        labelled = [u for u in uniques if u.kind in family and u.from_model]
        rows = np.asarray([u.vector_row for u in labelled], dtype=np.int64)
        todo = [u for u in uniques if u.kind == kind and u.label is None]
        penalty = contrast_between([u.text for u in todo], [u.text for u in labelled], contrast)
        names = [u.label or "" for u in labelled]
        for pos, u in enumerate(todo):
            vec = vectors[u.vector_row]
            if labelled:
                dists = 1.0 - vectors[rows] @ vec + penalty[pos]
                found = _guarded_label(dists, names, reach(u))
                if found is not None:
                    u.label = found
                    continue
            if index is not None:
                hits = index.nearest(vec, kind, 1)
                if hits and hits[0][1] <= reach(u) and is_label(hits[0][0]):
                    u.label = hits[0][0]
                    from_index.add((kind, u.label))
    # Second pass, so an item that found a group is never overwritten by its
    # cluster's label and the cluster label does not depend on visit order.
    for (kind, _cid), members in sorted(clusters_of.items()):
        todo = [m for m in members if m.label is None]
        if not todo:
            continue
        named = [m for m in members if m.from_model and m.label]
        if named:
            dist = _pair_distances(todo, named, vectors, contrast)
            for pos, m in enumerate(todo):
                m.label = _guarded_label(dist[pos], [n.label or "" for n in named], reach(m))
        rest = [m for m in todo if m.label is None]
        for strict in (False, True):
            part = [m for m in rest if (reach(m) != near) == strict]
            if part:
                _split_and_slug(part, kind, vectors, reach(part[0]), contrast, point_of)
    return from_index


def _pair_distances(left: Sequence[Unique], right: Sequence[Unique], vectors: Vector,
                    contrast: Contrast) -> Vector:
    import numpy as np

    a = vectors[[u.vector_row for u in left]]
    b = vectors[[u.vector_row for u in right]]
    out: Vector = (1.0 - a @ b.T + contrast_between([u.text for u in left], [u.text for u in right],
                                                     contrast)).astype(np.float32)
    return out


def _split_and_slug(members: Sequence[Unique], kind: str, vectors: Vector, near: float,
                    contrast: Contrast,
                    point_of: Callable[[Sequence[str]], str] | None = None) -> None:
    """Name unlabelled members by sub-clusters in which every pair is within
    `near` (complete linkage), each after `point_of` its texts, else its medoid."""
    from learn.reduce.cluster import cluster_ids_complete

    rows = [m.vector_row for m in members]
    ids = cluster_ids_complete(vectors[rows], near, texts=[m.text for m in members], contrast=contrast)
    for cid in sorted(set(ids)):
        group = [m for m, c in zip(members, ids, strict=True) if c == cid]
        if point_of is not None:
            named_after = point_of([m.text for m in group])
        else:
            centre = medoid([m.vector_row for m in group], vectors)
            named_after = next(m.text for m in group if m.vector_row == centre)
        shared = fallback_slug(named_after, kind)
        for m in group:
            m.label = shared
