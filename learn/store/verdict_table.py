"""Verdicts as the judge's memory: one by its key, one by the judge's canonical key,
one by the nearest evidence vector, and a proposal's verdict recorded as an event.

Rows come back as dicts with the physical accepted/summary columns named
`accepted` and `summary`, whatever the schema calls them; the reduce stage turns
them into its Verdict (learn.reduce.stored). A verdict keeps vector evidence only
when it names a canonical_key (FeedbackStore.record_verdict), so the nearest one
by distance is always such a verdict.
"""

from __future__ import annotations

from typing import Any

from learn.isotime import now_iso as _now
from learn.store import vectors
from learn.store.connection import Connection, placeholders
from learn.store.feedback import EVIDENCE_PURPOSE, FeedbackStore, VerdictLike
from learn.store.feedback_rows import PROPOSAL_SOURCE_KIND


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


class VerdictTable:
    """The verdict table and its evidence over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def _select(self) -> str:
        s = self.store.schema
        return (
            f"SELECT dedup_key, category, {s.accepted_column} AS accepted, "
            f"{s.summary_column} AS summary, confidence, rationale, canonical_key, model, scope "
            f"FROM {s.verdict_table}"
        )

    def get(self, dedup_key: str, role: str, prompt_version: int) -> dict[str, Any] | None:
        rows = self.store.sql(
            f"{self._select()} WHERE dedup_key = $1 AND role = $2 AND prompt_version = $3",
            (dedup_key, role, int(prompt_version)),
        )
        return rows[0] if rows else None

    def by_canonical_key(self, canonical_key: str, *, role: str, prompt_version: int,
                         prefix: str) -> dict[str, Any] | None:
        """The first verdict (by key) naming `canonical_key` whose key starts with prefix."""
        rows = self.store.sql(
            f"{self._select()} WHERE role = $1 AND prompt_version = $2 AND canonical_key = $3 "
            "AND substr(dedup_key, 1, $4) = $5 ORDER BY dedup_key LIMIT 1",
            (role, int(prompt_version), canonical_key, len(prefix), prefix),
        )
        return rows[0] if rows else None

    def nearest_key(self, vector: Any, *, space: str, role: str, prompt_version: int,
                    max_distance: float, prefix: str) -> str | None:
        """The key of the verdict whose evidence in `space` is nearest `vector`, within
        max_distance, for (role, prompt_version), whose key starts with prefix."""
        with self.store._use(write=False) as conn:
            found = vectors.find_table(conn, EVIDENCE_PURPOSE, space)
            if found is None:
                return None
            return _nearest_evidence_key(conn, found, vector, role, int(prompt_version),
                                         max_distance, prefix)

    def record_proposal(self, dedup_key: str, verdict: VerdictLike, *, role: str,
                        prompt_version: int, model: str, vector: Any, space: str) -> None:
        """A proposal's verdict: the proposal ("kind:label") becomes an event, once
        (verdicts are keyed on events), and its verdict is recorded at full fidelity."""
        with self.store.atomic():
            self.store.execute(
                "INSERT INTO feedback_events (dedup_key, source_kind, occurred_at, text, "
                "ingested_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT(dedup_key) DO NOTHING",
                (dedup_key, PROPOSAL_SOURCE_KIND, _now(), verdict.summary, _now()),
            )
            self.store.record_verdict(
                dedup_key, verdict, role=role, prompt_version=int(prompt_version),
                model=model, fidelity="full", vector=vector, space=space,
            )
