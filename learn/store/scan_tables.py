"""The scan: sessions read (sessions_scanned) and their verified candidates (candidates).

Candidates are kept below the threshold too, so a label stays stable from one
run to the next: the same words get the same name. Every method goes through
FeedbackStore's write path, so it joins the caller's open transaction() or
commits on its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from learn.store.connection import Connection, where
from learn.store.feedback import FeedbackStore
from learn.store.label_tables import text_hash
from learn.store.run_table import loads as _loads


@dataclass(frozen=True, slots=True)
class ScannedSession:
    session_id: str
    provider: str
    project: str | None
    path: str
    content_hash: str
    last_activity: str | None
    candidate_count: int
    scanned_at: str


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """One verified candidate to keep; `payload` holds the rest (command, rationale, ...)."""

    session_id: str
    kind: str
    text: str
    source: str = "miner"
    project: str | None = None
    occurred_at: str | None = None
    payload: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class StoredCandidate:
    id: int
    session_id: str
    kind: str
    source: str
    text: str
    text_hash: str
    project: str | None
    occurred_at: str | None
    payload: dict[str, Any] | None
    label: str | None
    label_run: int | None


class ScanTables:
    """sessions_scanned and candidates over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def record_session(self, s: ScannedSession) -> None:
        self.store.execute(
            "INSERT INTO sessions_scanned (session_id, provider, project, path, content_hash, "
            "last_activity, candidate_count, scanned_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
            "ON CONFLICT(session_id) DO UPDATE SET provider = excluded.provider, "
            "project = excluded.project, path = excluded.path, "
            "content_hash = excluded.content_hash, last_activity = excluded.last_activity, "
            "candidate_count = excluded.candidate_count, scanned_at = excluded.scanned_at",
            (s.session_id, s.provider, s.project, s.path, s.content_hash, s.last_activity,
             int(s.candidate_count), s.scanned_at),
        )

    def scanned_sessions(self) -> dict[str, ScannedSession]:
        return {
            r["session_id"]: ScannedSession(**r)
            for r in self.store.sql("SELECT * FROM sessions_scanned")
        }

    # -- candidates --------------------------------------------------------------

    def replace_session_candidates(self, session_id: str, rows: Sequence[CandidateRow]) -> int:
        """Make the session's stored candidates exactly `rows`; returns how many are new.

        Rows whose (kind, source, text) were already stored keep their id and label;
        rows no longer present are removed. One transaction.
        """
        for r in rows:
            if r.session_id != session_id:
                raise ValueError(f"candidate of session {r.session_id} passed for {session_id}")

        def run(conn: Connection) -> int:
            before = {
                (str(k), str(src), str(h))
                for k, src, h in conn.execute(
                    "SELECT kind, source, text_hash FROM candidates WHERE session_id = $1",
                    (session_id,),
                ).fetchall()
            }
            keep: set[tuple[str, str, str]] = set()
            params = []
            for r in rows:
                h = text_hash(r.text)
                keep.add((r.kind, r.source, h))
                params.append((session_id, r.kind, r.source, r.text, h, r.project, r.occurred_at,
                               None if r.payload is None else json.dumps(dict(r.payload),
                                                                         default=str)))
            if params:
                # One batch (pipelined on PostgreSQL), not a round trip per row.
                conn.executemany(
                    "INSERT INTO candidates (session_id, kind, source, text, text_hash, project, "
                    "occurred_at, payload_json) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
                    "ON CONFLICT(session_id, kind, source, text_hash) DO UPDATE SET "
                    "project = excluded.project, occurred_at = excluded.occurred_at, "
                    "payload_json = excluded.payload_json",
                    params,
                )
            for kind, source, h in before - keep:
                conn.execute(
                    "DELETE FROM candidates WHERE session_id = $1 AND kind = $2 AND source = $3 "
                    "AND text_hash = $4",
                    (session_id, kind, source, h),
                )
            return len(keep - before)

        return self.store._write(run)

    def candidates(
        self, *, session_ids: Iterable[str] | None = None, kind: str | None = None
    ) -> list[StoredCandidate]:
        ids = None if session_ids is None else list(session_ids)
        if ids == []:
            return []
        clause, params = where(None if ids is None else ("session_id IN ({})", ids),
                               None if kind is None else ("kind = {}", (kind,)))
        return [
            StoredCandidate(
                id=int(r["id"]), session_id=r["session_id"], kind=r["kind"], source=r["source"],
                text=r["text"], text_hash=r["text_hash"], project=r["project"],
                occurred_at=r["occurred_at"], payload=_loads(r["payload_json"]),
                label=r["label"], label_run=r["label_run"],
            )
            for r in self.store.sql(f"SELECT * FROM candidates {clause} ORDER BY id", params)
        ]

    def set_labels(self, labels: Mapping[int, str], *, run_id: int | None) -> int:
        """Assign labels to candidates by id; returns rows updated."""
        return self.store.executemany(
            "UPDATE candidates SET label = $1, label_run = $2 WHERE id = $3",
            [(label, run_id, int(cid)) for cid, label in labels.items()],
        )

    def known_labels_by_text(self, kind: str) -> dict[str, str]:
        """text_hash -> label for already-labelled candidates of `kind` (newest label wins),
        so the same words get the same name in every run."""
        rows = self.store.sql(
            "SELECT text_hash, label FROM candidates WHERE kind = $1 AND label IS NOT NULL "
            "ORDER BY COALESCE(label_run, 0), id",
            (kind,),
        )
        return {r["text_hash"]: r["label"] for r in rows}
