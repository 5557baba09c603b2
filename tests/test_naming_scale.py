"""The label checks without the square give what they gave with it.

The drift merge and the regroup held every quote-by-quote distance (459 MiB at 4,070
candidates, 4x per doubling) and the move check looped over every label for every quote;
they now read `learn.reduce.cluster.Neighbours` (pairs within a radius, each label's own
block, made a block of rows at a time) and naming ranks a batch's run labels with one
product. Each is held here to the code it replaced, kept below as the reference, on
random worlds, with blocks of a few rows so that the blocked path is the one taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest

import learn.reduce.cluster as cluster
from learn.reduce.cluster import DEFAULT_CONTRAST, Neighbours
from learn.reduce.contrast import NO_CONTRAST, SAME_WORDS_APART, Contrast, contrast_between
from learn.reduce.drift import _roots, _same_words, merge_drifted_labels
from learn.reduce.fallback import Unique
from learn.reduce.memory import InMemoryLabelIndex
from learn.reduce.regroup import (
    MOVE_MARGIN,
    REJOIN_MARGIN,
    STRAY_GAP,
    Evidence,
    _components,
    check_grouping,
    lumped,
)

_FAMILY = {"directive": ("directive", "request"), "request": ("directive", "request")}
_WORDINGS = ["use bun not npm", "run ruff before commit", "no mocks in tests", "keep docs short",
             "add comments to the code", "don't add comments to the code", "small commits only",
             "never use bun not npm", "测试用 vitest，不要用 jest", "pin python 3.11 in ci"]


# -- the references: the dense code as it was ---------------------------------------------

class _DenseSpace:
    def __init__(self, members: Sequence[Unique], vectors: np.ndarray, contrast: Contrast) -> None:
        self.members = members
        rows = [u.vector_row for u in members]
        texts = [u.text for u in members]
        self.dist = 1.0 - vectors[rows] @ vectors[rows].T + contrast_between(texts, texts, contrast)
        self.flipped = contrast_between(texts, texts, Contrast(negation=1e-6)) >= SAME_WORDS_APART

    def by_label(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for pos, u in enumerate(self.members):
            out.setdefault(u.label or "", []).append(pos)
        return out

    def fits(self, pos: int, group: Sequence[int], within: float) -> float | None:
        others = [g for g in group if g != pos]
        if not others or bool(self.flipped[pos, others].any()):
            return None
        far = float(self.dist[pos, others].max())
        return far if far <= within else None


def _dense_move(space: _DenseSpace, rejoin: float) -> int:
    by_label = space.by_label()
    moves: list[tuple[int, str]] = []
    for label, group in sorted(by_label.items()):
        if len(group) < 2:
            continue
        for pos in group:
            kind = space.members[pos].kind
            mates = [g for g in group if g != pos]
            nearest_mate = float(space.dist[pos, mates].min())
            best: tuple[float, str] | None = None
            for other, og in by_label.items():
                if other == label or len(og) < 2 or any(space.members[g].kind != kind for g in og):
                    continue
                far = space.fits(pos, og, rejoin)
                if far is not None and far + MOVE_MARGIN < nearest_mate and (best is None or (far, other) < best):
                    best = (far, other)
            if best is not None:
                moves.append((pos, best[1]))
    for pos, label in moves:
        space.members[pos].label = label
    return len(moves)


def _dense_rejoin(space: _DenseSpace, call_of: Mapping[int, int], rejoin: float) -> int:
    n = 0
    members = space.members
    for label, group in sorted(space.by_label().items()):
        if len(group) != 1:
            continue
        pos = group[0]
        lone = members[pos]
        call = call_of.get(lone.vector_row)
        if call is None or lone.label != label:
            continue
        beside = {m.label or "" for q, m in enumerate(members)
                  if q != pos and call_of.get(m.vector_row) == call
                  and m.kind == lone.kind and m.cluster == lone.cluster}
        best: tuple[float, str, list[int]] | None = None
        for other in sorted(beside - {label}):
            og = [q for q, m in enumerate(members) if m.label == other]
            far = space.fits(pos, og, rejoin)
            if far is not None and (best is None or (far, other) < best[:2]):
                best = (far, other, og)
        if best is None:
            continue
        far, other, og = best
        rest = [q for q in range(len(members)) if q != pos and q not in og]
        if rest and float(space.dist[pos, rest].min()) < far + REJOIN_MARGIN:
            continue
        name = min(label, other) if len(og) == 1 else other
        for q in [pos, *og]:
            members[q].label = name
        n += 1
    return n


def _dense_check_grouping(uniques: Sequence[Unique], vectors: np.ndarray, contrast: Contrast,
                          call_of: Mapping[int, int], evidence: Evidence) -> tuple[int, int]:
    moved = rejoined = 0
    for family in sorted({_FAMILY.get(u.kind, (u.kind,)) for u in uniques}):
        members = [u for u in uniques if u.kind in family and u.from_model and u.label]
        if len(members) < 2:
            continue
        space = _DenseSpace(members, vectors, contrast)
        moved += _dense_move(space, evidence.rejoin)
        rejoined += _dense_rejoin(space, call_of, evidence.rejoin)
    return moved, rejoined


def _dense_lumped(group: Sequence[Unique], vectors: np.ndarray, contrast: Contrast,
                  call_of: Mapping[int, int], evidence: Evidence) -> list[list[Unique]]:
    members = [u for u in group if u.from_model and u.label]
    if len(members) < 2 or (evidence.apart is None and evidence.stray is None):
        return []
    space = _DenseSpace(members, vectors, contrast)
    leaving: list[list[int]] = []
    for _label, positions in sorted(space.by_label().items()):
        if len(positions) < 2:
            continue
        parts = [positions]
        if evidence.apart is not None:
            ids = _components(space.dist[[[a] for a in positions], positions], evidence.apart)
            parts = [[g for g, c in zip(positions, ids, strict=True) if c == cid] for cid in sorted(set(ids))]
            parts.sort(key=lambda p: (-len(p), p[0]))
            if len(parts) > 1 and len(parts[0]) == len(parts[1]):
                parts = [positions]
            leaving += parts[1:]
        kept = parts[0]
        if evidence.stray is not None and len(kept) >= 3:
            for pos in kept:
                mates = [g for g in kept if g != pos]
                nearest = float(space.dist[pos, mates].min())
                spread = float(space.dist[[[m] for m in mates], mates].max())
                if nearest > max(evidence.stray, spread + STRAY_GAP):
                    leaving.append([pos])
    return [[members[p] for p in part] for part in leaving
            if all(members[p].vector_row in call_of for p in part)]


def _label_pairs_dense(of: np.ndarray, hit: np.ndarray, n: int) -> np.ndarray:
    p, q = np.nonzero(hit)
    a, b = of[p], of[q]
    keep = a != b
    lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    return np.unique(lo.astype(np.int64) * n + hi)


def _dense_drift(uniques: Sequence[Unique], vectors: np.ndarray, contrast: Contrast,
                 near: float = 0.15) -> int:
    merged = 0
    for family in sorted({_FAMILY.get(u.kind, (u.kind,)) for u in uniques}):
        members = [u for u in uniques if u.kind in family and u.label]
        by_label: dict[str, list[int]] = {}
        for pos, u in enumerate(members):
            by_label.setdefault(u.label or "", []).append(pos)
        labels = sorted(by_label)
        if len(labels) < 2:
            continue
        rows = [u.vector_row for u in members]
        texts = [u.text for u in members]
        dist = 1.0 - vectors[rows] @ vectors[rows].T + contrast_between(texts, texts, contrast)
        flipped = contrast_between(texts, texts, Contrast(negation=1e-6)) >= SAME_WORDS_APART
        n = len(labels)
        index = {label: i for i, label in enumerate(labels)}
        of = np.array([index[u.label or ""] for u in members], dtype=np.int64)
        pairs = np.setdiff1d(np.union1d(_label_pairs_dense(of, dist <= near, n), _same_words(labels)),
                             _label_pairs_dense(of, flipped, n))
        root = _roots(labels, by_label, pairs)
        for u in members:
            u.label = root[u.label or ""]
        merged += sum(1 for label in labels if root[label] != label)
    return merged


# -- random worlds -------------------------------------------------------------------------

def _world(rng: np.random.Generator, spread: float | None = None,
           ) -> tuple[list[Unique], np.ndarray, dict[int, int]]:
    """Quotes in clumps (near vectors), worded from a small list with negated look-alikes
    and non-Latin text, labelled by clump with some split off alone and some lumped, in a
    few calls; a few share a vector exactly."""
    n = int(rng.integers(2, 60))
    clumps = int(rng.integers(1, 7))
    centres = rng.normal(size=(clumps, 12))
    which = rng.integers(0, clumps, size=n)
    scale = spread if spread is not None else float(rng.choice([0.01, 0.05, 0.1, 0.3]))
    vectors = centres[which] + rng.normal(scale=scale, size=(n, 12))
    for i in range(1, n):
        if rng.random() < 0.05:
            vectors[i] = vectors[i - 1]
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    uniques: list[Unique] = []
    call_of: dict[int, int] = {}
    for i in range(n):
        text = _WORDINGS[int(which[i]) % len(_WORDINGS)] if rng.random() < 0.7 else str(rng.choice(_WORDINGS))
        text = f"{text} {i}" if rng.random() < 0.5 else text
        kind = str(rng.choice(["directive", "request", "fix"], p=[0.7, 0.25, 0.05]))
        u = Unique(kind, text, text, [i], vector_row=i,
                   cluster=int(which[i]) if rng.random() < 0.85 else int(rng.integers(0, clumps)))
        roll = rng.random()
        u.label = (f"lone-{i}" if roll < 0.25 else f"clump-{int(rng.integers(0, clumps))}" if roll < 0.35
                   else f"clump-{int(which[i])}")
        u.from_model = rng.random() < 0.95
        uniques.append(u)
        if rng.random() < 0.9:
            call_of[i] = int(rng.integers(0, 3))
    return uniques, vectors, call_of


def _copy(uniques: Sequence[Unique]) -> list[Unique]:
    return [Unique(u.kind, u.norm, u.text, list(u.members), vector_row=u.vector_row, cluster=u.cluster,
                   label=u.label, from_model=u.from_model) for u in uniques]


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few rows, so the worlds below take the blocked path."""
    monkeypatch.setattr(cluster, "NEIGHBOUR_BLOCK", 5)


_CONTRASTS = (DEFAULT_CONTRAST, NO_CONTRAST)
_EVIDENCE = (Evidence(rejoin=0.55, apart=0.9, stray=0.64), Evidence(rejoin=0.3),
             Evidence(rejoin=0.9, apart=0.5, stray=0.3))


def test_check_grouping_moves_and_rejoins_as_the_square_did(small_blocks: None) -> None:
    rng = np.random.default_rng(3)
    moved = rejoined = 0
    for _ in range(300):
        uniques, vectors, call_of = _world(rng)
        mine = _copy(uniques)
        contrast = _CONTRASTS[int(rng.integers(len(_CONTRASTS)))]
        evidence = _EVIDENCE[int(rng.integers(len(_EVIDENCE)))]
        want = _dense_check_grouping(uniques, vectors, contrast, call_of, evidence)
        got = check_grouping(mine, vectors, contrast, call_of, evidence)
        assert ((got.moved, got.rejoined), [u.label for u in mine]) == (want, [u.label for u in uniques])
        moved += got.moved
        rejoined += got.rejoined
    assert moved > 20 and rejoined > 20  # the worlds move and rejoin: not a comparison of no-ops


def test_lumped_parts_are_the_ones_the_square_found(small_blocks: None) -> None:
    rng = np.random.default_rng(4)
    left = 0
    for _ in range(300):
        uniques, vectors, call_of = _world(rng)
        contrast = _CONTRASTS[int(rng.integers(len(_CONTRASTS)))]
        evidence = _EVIDENCE[int(rng.integers(len(_EVIDENCE)))]
        for kind in ("directive", "request"):
            group = [u for u in uniques if u.kind == kind]
            want = _dense_lumped(group, vectors, contrast, call_of, evidence)
            got = lumped(group, vectors, contrast, call_of, evidence)
            assert [[u.vector_row for u in part] for part in got] == \
                [[u.vector_row for u in part] for part in want]
            left += len(got)
    assert left > 20


def test_the_drift_merge_joins_the_labels_the_square_joined(small_blocks: None) -> None:
    rng = np.random.default_rng(5)
    merged = 0
    for _ in range(300):
        uniques, vectors, _ = _world(rng, spread=float(rng.choice([0.005, 0.02, 0.06])))
        mine = _copy(uniques)
        contrast = _CONTRASTS[int(rng.integers(len(_CONTRASTS)))]
        want = _dense_drift(uniques, vectors, contrast)
        got = merge_drifted_labels(mine, vectors, contrast)
        assert (got, [u.label for u in mine]) == (want, [u.label for u in uniques])
        merged += got
    assert merged > 50


def test_blocks_of_rows_hold_the_squares_values() -> None:
    # The blocked product sums each entry as the whole square did (OpenBLAS: a block of
    # three rows or more against every column); the flipped pairs are the square's.
    rng = np.random.default_rng(6)
    n = 700
    vectors = rng.normal(size=(n, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [str(rng.choice(_WORDINGS)) + (f" {i % 7}" if i % 3 else "") for i in range(n)]
    square = 1.0 - vectors @ vectors.T + contrast_between(texts, texts, DEFAULT_CONTRAST)
    flipped = contrast_between(texts, texts, Contrast(negation=1e-6)) >= SAME_WORDS_APART
    groups = [int(g) for g in rng.integers(0, 40, size=n)]
    near = Neighbours(vectors, texts, DEFAULT_CONTRAST, 0.9, groups, block=128)
    for r in range(n):
        cols = np.flatnonzero(square[r] <= 0.9)
        assert np.array_equal(near.near_cols[r], cols)
        assert np.array_equal(near.near_vals[r], square[r, cols])
        assert sorted(near.flipped[r]) == np.flatnonzero(flipped[r]).tolist()
    for gid, rows in enumerate(near.group_rows):
        assert np.array_equal(near.block(gid), square[np.ix_(rows, rows)])


def test_a_batch_ranks_the_run_labels_as_one_ask_per_item_did() -> None:
    rng = np.random.default_rng(8)
    for _ in range(100):
        index = InMemoryLabelIndex()
        dim = 16
        centres = rng.normal(size=(5, dim))
        for _ in range(int(rng.integers(1, 80))):
            v = centres[int(rng.integers(5))] + rng.normal(scale=0.2, size=dim)
            label = f"label-{int(rng.integers(0, 25))}"
            index.add(label, str(rng.choice(["directive", "request"])),
                      (v / np.linalg.norm(v)).astype(np.float32))
        if rng.random() < 0.3:  # an exact tie between two labels: broken by name
            v = index.entries[0][2]
            index.add("a-tied-label", index.entries[0][1], v)
        batch = rng.normal(size=(int(rng.integers(1, 12)), dim))
        batch = (batch / np.linalg.norm(batch, axis=1, keepdims=True)).astype(np.float32)
        batch[0] = index.entries[0][2]
        k = int(rng.integers(1, 41))
        for kind in ("directive", "request"):
            many = index.nearest_many(batch, kind, k)
            for vec, got in zip(batch, many, strict=True):
                want = index.nearest(vec, kind, k)
                # The same ranking, but for labels tied to the last bit, which the two
                # products may sum apart (a matrix-vector product sums identical rows of
                # a matrix apart too: the order it gave such a tie was never by name).
                assert np.allclose([d for _, d in got], [d for _, d in want], rtol=0, atol=1e-6)
                sure = {label for label, d in want if d < want[-1][1] - 1e-6}
                assert sure <= {label for label, _ in got}
                for (a, da), (b, db) in zip(got, want, strict=True):
                    assert a == b or abs(da - db) < 1e-6


def _sklearn_ids(vectors: np.ndarray, threshold: float, texts: Sequence[str] | None,
                 contrast: Contrast, linkage: str) -> list[int]:
    """cluster_ids as it was: scikit-learn's estimator over the whole square."""
    from sklearn.cluster import AgglomerativeClustering

    from learn.reduce.cluster import distance_matrix
    from learn.reduce.contrast import contrast_matrix

    dist = distance_matrix(vectors)
    if texts is not None:
        dist = dist + contrast_matrix(texts, contrast)
    model = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage=linkage,
                                    distance_threshold=threshold)
    renumber: dict[int, int] = {}
    return [renumber.setdefault(int(c), len(renumber)) for c in model.fit_predict(dist)]


@pytest.mark.parametrize("linkage", ["average", "complete"])
def test_pre_clusters_are_the_ones_scikit_learn_cut(small_blocks: None, linkage: str) -> None:
    from learn.reduce.cluster import cluster_ids

    rng = np.random.default_rng(9)
    groups = 0
    for _ in range(150):
        uniques, vectors, _ = _world(rng)
        if len(uniques) < 2:
            continue
        texts = [u.text for u in uniques] if rng.random() < 0.7 else None
        contrast = _CONTRASTS[int(rng.integers(len(_CONTRASTS)))]
        threshold = float(rng.choice([0.3, 0.64, 0.88, 1.2]))
        want = _sklearn_ids(vectors, threshold, texts, contrast, linkage)
        got = cluster_ids(vectors, threshold, texts=texts, contrast=contrast,
                          linkage=linkage)  # type: ignore[arg-type]
        assert got == want
        groups += len(set(got))
    assert groups > 300
