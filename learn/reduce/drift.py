"""Label drift: one point worded two ways by the namer, merged back into one label.

A real model words one idea differently in two naming calls ("use-bun-not-npm"
in one batch, "bun-not-npm-always" in the next) even when the earlier label is
offered back, and each half then falls below the session threshold. After
naming, two labels of one kind are merged when

- their wording is the same point: the same content words once filler,
  ordering and decoration are set aside, and the same polarity; or
- some member of one is a near-duplicate of a member of the other (cosine
  distance plus the wording penalty naming clusters with, under `near`);

never when a member pair is the same words with the negation flipped ("add
comments" / "don't add comments"): the guard naming and clustering use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from learn.reduce.cluster import Neighbours
from learn.reduce.contrast import Contrast, content_stems, is_negated

_FAMILY: dict[str, tuple[str, ...]] = {"directive": ("directive", "request"),
                                       "request": ("directive", "request")}

if TYPE_CHECKING:
    from learn.reduce.fallback import Unique
    from learn.reduce.protocols import Vector

NEAR_DUPLICATE = 0.15  # cosine + penalty: a reworded quote, not a paraphrase
# Words a namer adds to a label without changing the point it names.
# Stemmed the way content_stems stems ("always" -> "alway").
_DECORATION = content_stems("always rule prefer please use should must")


def label_words(label: str) -> tuple[frozenset[str], bool]:
    """(content stems without decoration, negated?) of a kebab-case label."""
    text = label.replace("-", " ")
    stems = frozenset(s for s in content_stems(text) if s not in _DECORATION)
    return stems, is_negated(text)


def _label_pairs(of: Any, hit: tuple[Any, Any], n: int) -> Any:
    """The pairs of labels some member pair (`hit`: member rows, member columns) joins
    (`of`: each member's label), as codes i * n + j with i < j, sorted and unique."""
    import numpy as np

    p, q = hit
    a, b = of[p], of[q]
    keep = a != b
    lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    return np.unique(lo.astype(np.int64) * n + hi)


def _same_words(labels: Sequence[str]) -> Any:
    """The pairs of labels that word the same point (the same content words, `label_words`,
    some, and the same polarity), found by grouping each label's words once; codes as
    `_label_pairs` gives them."""
    import numpy as np

    groups: dict[tuple[frozenset[str], bool], list[int]] = {}
    for i, label in enumerate(labels):
        words, negated = label_words(label)
        if words:
            groups.setdefault((words, negated), []).append(i)
    n = len(labels)
    codes = [np.zeros(0, dtype=np.int64)]
    for same in groups.values():
        if len(same) > 1:
            at = np.asarray(same, dtype=np.int64)
            first, second = np.triu_indices(len(same), 1)
            codes.append(at[first] * n + at[second])
    return np.unique(np.concatenate(codes))


def merge_drifted_labels(uniques: Sequence[Unique], vectors: Vector, contrast: Contrast,
                         near: float = NEAR_DUPLICATE) -> int:
    """Relabel in place; returns how many labels were folded into another."""
    import numpy as np

    merged = 0
    # Directives and requests drift as one family: a directive the miner reported
    # as a request kept its first label while its siblings' drifted, and counting
    # folds one label across the two kinds only when the words are equal (noisy
    # eval, multilingual, seed 5: an es count error).
    families = sorted({_FAMILY.get(u.kind, (u.kind,)) for u in uniques})
    for family in families:
        members = [u for u in uniques if u.kind in family and u.label]
        by_label: dict[str, list[int]] = {}
        for pos, u in enumerate(members):
            by_label.setdefault(u.label or "", []).append(pos)
        labels = sorted(by_label)
        if len(labels) < 2:
            continue
        rows = [u.vector_row for u in members]
        # The member pairs within `near` and the flipped ones, kept sparse: the square of
        # every member pair was 459 MiB at 4,070 candidates (learn.reduce.cluster.Neighbours).
        pairs = Neighbours(vectors[rows], [u.text for u in members], contrast, near)
        # The labels to merge, found from the member pairs and the labels' words at once:
        # a loop over every pair of labels read a block of both matrices and the two
        # labels' words per pair (90 s of a first run at 4,070 candidates, 4x per
        # doubling: scale audit, 2026-12). Merged as connected groups: the label with
        # the most members of its own names a group (ties: the smaller), which is the
        # root any order of pairwise merges keeping the better of two roots ends with.
        n = len(labels)
        index = {label: i for i, label in enumerate(labels)}
        of = np.array([index[u.label or ""] for u in members], dtype=np.int64)
        joined = np.setdiff1d(np.union1d(_label_pairs(of, pairs.pairs(near), n), _same_words(labels)),
                              _label_pairs(of, pairs.flipped_pairs(), n))
        root = _roots(labels, by_label, joined)
        for u in members:
            u.label = root[u.label or ""]
        merged += sum(1 for label in labels if root[label] != label)
    return merged


def _roots(labels: Sequence[str], by_label: dict[str, list[int]], pairs: Any) -> dict[str, str]:
    """Each label's group's name: the groups `pairs` (codes i * n + j) join, each named by
    its label with the most members (ties: the smaller)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(labels)
    graph = coo_matrix((np.ones(len(pairs), dtype=np.int8), (pairs // n, pairs % n)), shape=(n, n))
    _, group = connected_components(graph, directed=False)
    best: dict[int, str] = {}
    for i, label in enumerate(labels):
        g = int(group[i])
        if g not in best or (-len(by_label[label]), label) < (-len(by_label[best[g]]), best[g]):
            best[g] = label
    return {label: best[int(group[i])] for i, label in enumerate(labels)}
