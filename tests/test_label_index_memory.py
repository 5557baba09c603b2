"""This run's offered labels (InMemoryLabelIndex): each label at its nearest example, nearest
first, ties by name, per kind, and what was added after an ask counts at the next ask.
The ranking is the one a loop of one dot product per example gave, on random indexes."""

from __future__ import annotations

import numpy as np

from learn.reduce.memory import InMemoryLabelIndex


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_each_label_at_its_nearest_example_nearest_first_per_kind() -> None:
    index = InMemoryLabelIndex()
    index.add("use-bun", "directive", _unit(1, 0, 0))
    index.add("use-bun", "directive", _unit(0, 1, 0))
    index.add("run-ruff", "directive", _unit(1, 1, 0))
    index.add("open-pr", "request", _unit(1, 0, 0))
    got = index.nearest(_unit(1, 0, 0), "directive", 5)
    assert [label for label, _ in got] == ["use-bun", "run-ruff"]
    assert got[0][1] == 0.0 or abs(got[0][1]) < 1e-6
    assert index.nearest(_unit(1, 0, 0), "request", 5)[0][0] == "open-pr"
    assert index.nearest(_unit(1, 0, 0), "fix", 5) == []
    # Added after an ask: the next ask sees it; ties go by name; k caps.
    index.add("a-tie", "directive", _unit(1, 1, 0))
    ranked = [label for label, _ in index.nearest(_unit(1, 1, 0), "directive", 2)]
    assert ranked == ["a-tie", "run-ruff"]


def test_the_ranking_is_the_one_a_dot_product_per_example_gave() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        index = InMemoryLabelIndex()
        n = int(rng.integers(1, 300))
        vectors = rng.normal(size=(n, 32)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        for i in range(n):
            index.add(f"label-{int(rng.integers(0, max(1, n // 3)))}", "directive", vectors[i])
        query = vectors[int(rng.integers(0, n))] + rng.normal(scale=0.2, size=32).astype(np.float32)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        best: dict[str, float] = {}
        for label, _, vec in index.entries:
            d = float(1.0 - np.dot(query, vec))
            best[label] = min(d, best.get(label, d))
        want = [label for label, _ in sorted(best.items(), key=lambda it: (it[1], it[0]))[:12]]
        assert [label for label, _ in index.nearest(query, "directive", 12)] == want
