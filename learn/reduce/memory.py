"""In-memory implementations of the reduce protocols (tests, and runs without a store)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from learn.records.proposal import Proposal, Verdict
from learn.reduce.protocols import ShownRecord

if TYPE_CHECKING:
    from learn.reduce.protocols import Vector


def _distance(a: Vector, b: Vector) -> float:
    import numpy as np

    return float(1.0 - np.dot(a, b))


@dataclass
class InMemoryLabelIndex:
    entries: list[tuple[str, str, Vector]] = field(default_factory=list)
    # Per kind: each example's label id, the labels by id, the examples stacked (made
    # again after an add). A naming run asks this index once per item, and a loop over
    # every example so far, one dot product each, was the run's largest cost at scale
    # (2.4 M distances, 10.8 s of a profiled first run at 4,070 candidates: scale
    # audit, 2026-12). One product per ask; the sums are BLAS's, so a distance can
    # differ from a dot product's in its last bit.
    _kinds: dict[str, tuple[list[int], list[str], dict[str, int], list[Vector]]] = field(
        default_factory=dict, repr=False)
    _stacked: dict[str, Any] = field(default_factory=dict, repr=False)

    def add(self, label: str, kind: str, vector: Vector) -> None:
        self.entries.append((label, kind, vector))
        ids, names, number, vectors = self._kinds.setdefault(kind, ([], [], {}, []))
        if label not in number:
            number[label] = len(names)
            names.append(label)
        ids.append(number[label])
        vectors.append(vector)
        self._stacked.pop(kind, None)

    def nearest(self, vector: Vector, kind: str, k: int) -> list[tuple[str, float]]:
        import numpy as np

        got = self._kinds.get(kind)
        if got is None:
            return []
        ids, names, _, vectors = got
        stacked = self._stacked.get(kind)
        if stacked is None:
            stacked = self._stacked[kind] = (np.asarray(ids), np.stack(vectors))
        label_of, matrix = stacked
        dist = 1.0 - matrix @ vector
        best = np.full(len(names), np.inf, dtype=np.float64)
        np.minimum.at(best, label_of, dist)
        ranked = sorted(zip(best.tolist(), names, strict=True))[:k]
        return [(label, d) for d, label in ranked]

    def nearest_many(self, vectors: Vector, kind: str, k: int) -> list[list[tuple[str, float]]]:
        """`nearest` of each row of `vectors`, from one product for them all.

        Naming asks for every item of a batch against the same index: one matrix-vector
        product per item read every example again (48 s of a first run at 16,000 quotes,
        quadratic: this round's benchmarks/naming_scale.py). The sums are BLAS's: a
        distance can differ from `nearest`'s in its last bit."""
        import numpy as np

        got = self._kinds.get(kind)
        if got is None or not len(vectors):
            return [[] for _ in range(len(vectors))]
        ids, names, _, examples = got
        label_of = np.asarray(ids)
        order = np.argsort(label_of, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(label_of[order]) != 0])
        dist = 1.0 - np.stack(examples)[order] @ np.asarray(vectors).T
        best = np.minimum.reduceat(dist, starts, axis=0).astype(np.float64)  # label id x item
        rank = np.empty(len(names), dtype=np.int64)
        rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
        out = []
        for column in best.T:
            top = np.lexsort((rank, column))[:k]
            out.append([(names[int(i)], float(column[i])) for i in top])
        return out

    def labels(self, kind: str) -> set[str]:
        return {label for label, entry_kind, _ in self.entries if entry_kind == kind}


@dataclass
class InMemoryVerdictMemory:
    rows: dict[tuple[str, str, int], tuple[Verdict, Vector]] = field(default_factory=dict)

    def get(self, dedup_key: str, role: str, prompt_version: int) -> Verdict | None:
        row = self.rows.get((dedup_key, role, prompt_version))
        return None if row is None else row[0]

    def nearest_verdict(
        self,
        vector: Vector,
        canonical_key: str | None,
        *,
        role: str,
        prompt_version: int,
        max_distance: float,
        kind: str | None = None,
    ) -> Verdict | None:
        candidates = [
            (key, verdict, vec)
            for (key, r, v), (verdict, vec) in self.rows.items()
            if r == role and v == prompt_version and (kind is None or key.startswith(f"{kind}:"))
        ]
        if canonical_key is not None:
            for _key, verdict, _ in sorted(candidates, key=lambda c: c[0]):
                if verdict.canonical_key == canonical_key:
                    return verdict
        best: tuple[float, str, Verdict] | None = None
        for key, verdict, vec in candidates:
            d = _distance(vector, vec)
            if d <= max_distance and (best is None or (d, key) < (best[0], best[1])):
                best = (d, key, verdict)
        return None if best is None else best[2]

    def record(
        self, dedup_key: str, role: str, prompt_version: int, verdict: Verdict, vector: Vector
    ) -> None:
        self.rows.setdefault((dedup_key, role, prompt_version), (verdict, vector))


@dataclass
class InMemoryAnswerMemory:
    rows: dict[str, list[Any]] = field(default_factory=dict)

    def get(self, key: str) -> list[Any] | None:
        return self.rows.get(key)

    def put(self, key: str, step: str, rows: Sequence[Any]) -> None:
        self.rows[key] = list(rows)


@dataclass
class InMemoryShownState:
    records: dict[str, ShownRecord] = field(default_factory=dict)

    def get(self, key: str, projects: Sequence[str] = (), *,
            point: Proposal | None = None) -> ShownRecord | None:
        return self.records.get(key)

    def put(self, key: str, record: ShownRecord) -> None:
        self.records[key] = record
