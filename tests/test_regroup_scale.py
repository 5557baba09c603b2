"""The rejoin of lone labels gives what it gave when it scanned every quote per label.

A scale audit measured the old `_rejoin` at 21.7 s of a first run at 4,070 candidates (4x
per doubling): each lone label scanned every quote for its call's labels and again for each
label's members. The labels' members are now kept as they change and the quotes indexed
by call, kind and pre-cluster; this holds it to the old result on random worlds."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from learn.reduce.cluster import DEFAULT_CONTRAST
from learn.reduce.fallback import Unique
from learn.reduce.regroup import REJOIN_MARGIN, _rejoin, _Space


def _rejoin_scanning(space: _Space, call_of: Mapping[int, int], rejoin: float) -> int:
    """The rejoin as it was (the reference)."""
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


def _world(rng: np.random.Generator) -> tuple[list[Unique], np.ndarray, dict[int, int]]:
    """Quotes in clumps (one wording each, close vectors), labelled by clump, some split
    off under a label of their own (what the namer's split does), in a few calls."""
    n = int(rng.integers(2, 40))
    clumps = int(rng.integers(1, 6))
    wordings = ["use bun not npm", "run ruff before commit", "no mocks in tests",
                "keep docs short", "small commits only"]
    centres = rng.normal(size=(clumps, 8))
    which = rng.integers(0, clumps, size=n)
    vectors = centres[which] + rng.normal(scale=float(rng.choice([0.01, 0.1, 0.3])), size=(n, 8))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    uniques = []
    call_of: dict[int, int] = {}
    for i in range(n):
        text = wordings[int(which[i])]
        u = Unique(str(rng.choice(["directive", "request"], p=[0.8, 0.2])), text, text, [i],
                   vector_row=i,
                   cluster=int(which[i]) if rng.random() < 0.85 else int(rng.integers(0, clumps)))
        u.label = f"lone-{i}" if rng.random() < 0.3 else f"clump-{int(which[i])}"
        u.from_model = True
        uniques.append(u)
        if rng.random() < 0.9:
            call_of[i] = int(rng.integers(0, 2))
    return uniques, vectors, call_of


def test_the_indexed_rejoin_relabels_as_the_scanning_one_did() -> None:
    rng = np.random.default_rng(11)
    rejoined = 0
    for _ in range(400):
        uniques, vectors, call_of = _world(rng)
        mine = [Unique(u.kind, u.norm, u.text, list(u.members), vector_row=u.vector_row,
                       cluster=u.cluster, label=u.label, from_model=True) for u in uniques]
        rejoin = float(rng.choice([0.3, 0.55, 0.9]))
        want = _rejoin_scanning(_Space(uniques, vectors, DEFAULT_CONTRAST), call_of, rejoin)
        got = _rejoin(_Space(mine, vectors, DEFAULT_CONTRAST), call_of, rejoin)
        assert (got, [u.label for u in mine]) == (want, [u.label for u in uniques])
        rejoined += got
    assert rejoined > 50  # the worlds do rejoin labels: the comparison is not of no-ops
