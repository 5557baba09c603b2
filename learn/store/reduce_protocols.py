"""learn.reduce's protocols over the store: the embedder cache, the label index, what
was shown, and verdict memory (learn.reduce.protocols).

They behave like the in-memory ones in learn.reduce.memory, with one documented
difference: a verdict keeps vector evidence only when it names a canonical_key
(the store's rule), so nearest_verdict finds by distance only such verdicts.
LearnStore (learn.store.adapters) hands them to the pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from learn.reduce.protocols import ShownRecord
from learn.reduce.types import Verdict
from learn.store import vectors
from learn.store.connection import Connection, placeholders
from learn.store.feedback import EVIDENCE_PURPOSE, FeedbackStore
from learn.store.feedback_rows import PROPOSAL_SOURCE_KIND
from learn.store.learn_tables import LearnTables
from learn.store.proposals import ProposalBook

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from learn.embed.base import Embedder

def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class CachedEmbedder:
    """An embedder whose vectors are cached in the store per (name, sha256(text))."""

    def __init__(self, inner: Embedder, tables: LearnTables) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._tables = tables

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._tables.embed_cached(self.inner, texts)


class StoreLabelIndex:
    """learn.reduce.protocols.LabelIndex over the labels table, in one embedding space."""

    def __init__(self, tables: LearnTables, space: str) -> None:
        self._tables = tables
        self.space = space

    def nearest(self, vector: Any, kind: str, k: int) -> list[tuple[str, float]]:
        return self._tables.nearest_labels(vector, kind, k, space=self.space)

    def add(self, label: str, kind: str, vector: Any) -> None:
        self._tables.put_label(label, kind, vector, space=self.space)

    def labels(self, kind: str) -> set[str]:
        return {label for label, _ in self._tables.labels(kind)}


class StoreShownState:
    """learn.reduce.protocols.ShownState over the proposals table.

    shown_at is the newest occurrence the user had seen (a session activity time,
    never the wall clock: suppression compares it with later activity), falling
    back to when it was shown if no occurrence time was known.
    """

    def __init__(self, tables: LearnTables, book: ProposalBook | None = None,
                 project: str | None = None) -> None:
        self._tables = tables
        self._book = book
        self._project = project  # the run's project (None: every project)

    def get(self, key: str) -> ShownRecord | None:
        sp = self._tables.shown(key)
        reoffer = (self._book.reoffer_threshold(key, self._project)
                   if self._book is not None else None)
        if reoffer is not None:
            return ShownRecord(shown_at=(sp.last_shown_at if sp is not None else ""),
                               reoffer_at_sessions=reoffer)
        decisions = self._tables.decisions(key)
        dismissed_at = next(
            (d.at for d in reversed(decisions) if d.decision == "dismissed"), None
        )
        if sp is None and dismissed_at is None:
            return None
        shown_at = (sp.last_occurrence or sp.last_shown_at) if sp is not None else ""
        if dismissed_at is not None:
            # A dismissal holds the item back until it is said again after the
            # dismissal itself, not merely after the occurrence it was shown with.
            shown_at = max(shown_at, dismissed_at)
        return ShownRecord(
            shown_at=shown_at,
            last_seen=sp.last_occurrence if sp is not None else None,
            covered=sp.covered_when_shown if sp is not None else False,
        )


def _nearest_evidence_key(
    conn: Connection, found: tuple[str, int], vector: Any, role: str, prompt_version: int,
    max_distance: float, prefix: str,
) -> str | None:
    """The dedup_key of the nearest evidence within max_distance for (role, prompt_version)
    whose key starts with prefix. Asks the index for a few neighbours and widens only
    while every neighbour so far is within reach but none fits (not the whole table:
    at a team's size that is a full scan per query)."""
    table, dim = found
    (total,) = conn.execute("SELECT COUNT(*) FROM verdict_evidence").fetchone()
    want = 16
    while True:
        hits = vectors.knn(conn, table, vector, min(want, vectors.MAX_K), dim)
        near = [(eid, dist) for eid, dist in hits if dist <= max_distance]
        if near:
            ids = [int(eid) for eid, _ in near]
            rows = conn.execute(
                "SELECT id, dedup_key FROM verdict_evidence WHERE role = $1 AND prompt_version = $2 "
                f"AND id IN ({placeholders(len(ids), 3)})",
                (role, prompt_version, *ids),
            ).fetchall()
            keys = {int(r[0]): str(r[1]) for r in rows}
            for eid, _ in near:  # nearest first
                k = keys.get(int(eid))
                if k is not None and k.startswith(prefix):
                    return k
        if len(near) < len(hits) or want >= min(int(total), vectors.MAX_K):
            return None
        want *= 4


class StoreVerdictMemory:
    """learn.reduce.protocols.VerdictMemory over the verdict table and its evidence."""

    def __init__(self, store: FeedbackStore, space: str) -> None:
        self._store = store
        self.space = space

    def _verdict(self, row: dict[str, Any]) -> Verdict:
        scope = row.get("scope")
        return Verdict(
            accepted=bool(row["accepted"]),
            summary=row["summary"],
            category=row["category"],
            scope="project" if scope == "project" else "user",
            confidence=float(row["confidence"]),
            rationale=row["rationale"] or "",
            canonical_key=row["canonical_key"],
            model=row["model"],
        )

    def _select(self) -> str:
        s = self._store.schema
        return (
            f"SELECT dedup_key, category, {s.accepted_column} AS accepted, "
            f"{s.summary_column} AS summary, confidence, rationale, canonical_key, model, scope "
            f"FROM {s.verdict_table}"
        )

    def get(self, dedup_key: str, role: str, prompt_version: int) -> Verdict | None:
        rows = self._store.sql(
            f"{self._select()} WHERE dedup_key = $1 AND role = $2 AND prompt_version = $3",
            (dedup_key, role, int(prompt_version)),
        )
        return self._verdict(rows[0]) if rows else None

    def nearest_verdict(
        self,
        vector: Any,
        canonical_key: str | None,
        *,
        role: str,
        prompt_version: int,
        max_distance: float,
        kind: str | None = None,
    ) -> Verdict | None:
        prefix = "" if kind is None else f"{kind}:"
        if canonical_key is not None:
            rows = self._store.sql(
                f"{self._select()} WHERE role = $1 AND prompt_version = $2 AND canonical_key = $3 "
                "AND substr(dedup_key, 1, $4) = $5 ORDER BY dedup_key LIMIT 1",
                (role, int(prompt_version), canonical_key, len(prefix), prefix),
            )
            if rows:
                return self._verdict(rows[0])
        with self._store._use(write=False) as conn:
            found = vectors.find_table(conn, EVIDENCE_PURPOSE, self.space)
            if found is None:
                return None
            key = _nearest_evidence_key(conn, found, vector, role, int(prompt_version),
                                        max_distance, prefix)
        if key is None:
            return None
        return self.get(key, role, prompt_version)

    def record(
        self, dedup_key: str, role: str, prompt_version: int, verdict: Verdict, vector: Any
    ) -> None:
        # Verdicts are keyed on events; a proposal ("kind:label") becomes one, once.
        with self._store.atomic():
            self._store.execute(
                "INSERT INTO feedback_events (dedup_key, source_kind, occurred_at, text, "
                "ingested_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT(dedup_key) DO NOTHING",
                (dedup_key, PROPOSAL_SOURCE_KIND, _now(), verdict.summary, _now()),
            )
            self._store.record_verdict(
                dedup_key, verdict, role=role, prompt_version=int(prompt_version),
                model=verdict.model or "", fidelity="full", vector=vector, space=self.space,
            )
