"""learn's own tables, next to the feedback ledger in the same database and connection.

runs (with the RunResult JSON, so `learn digest` re-renders without a model call),
sessions_scanned, candidates (below the threshold too, so names stay stable),
labels with vectors for nearest-label retrieval, proposals as shown (for
suppression: was it shown, when, and what was its last occurrence then),
decisions on proposals, and the embeddings cache.

Every method goes through FeedbackStore's write path, so it joins the caller's
open transaction() or commits on its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from learn.store.connection import Connection, placeholders
from learn.store.feedback import FeedbackStore

# Labels, the name cache and the embeddings cache (learn.store.label_tables).
from learn.store.label_tables import LABEL_PURPOSE as LABEL_PURPOSE
from learn.store.label_tables import LabelTables
from learn.store.label_tables import text_hash as text_hash

if TYPE_CHECKING:
    pass

Decision = Literal["accepted", "edited", "dismissed"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: int
    started_at: str
    finished_at: str | None
    args: dict[str, Any]
    usage: dict[str, Any] | None
    result: dict[str, Any] | None  # RunResult.to_json()
    result_full: dict[str, Any] | None = None  # every field (learn.store.runs rebuilds from it)


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


@dataclass(frozen=True, slots=True)
class ShownProposal:
    key: str
    first_shown_at: str
    last_shown_at: str
    last_occurrence: str | None  # the newest occurrence when it was last shown
    covered_when_shown: bool
    shown_count: int
    text: str
    verdict: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    id: int
    key: str
    decision: Decision
    text: str
    target_file: str | None
    at: str


def _loads(value: Any) -> Any:
    return None if value is None else json.loads(value)


class LearnTables(LabelTables):
    """Typed access to learn's tables over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    # -- runs --------------------------------------------------------------------

    def start_run(self, args: Mapping[str, Any], *, started_at: str | None = None) -> int:
        def run(conn: Connection) -> int:
            (rid,) = conn.execute(
                "INSERT INTO runs (started_at, args_json) VALUES ($1, $2) RETURNING id",
                (started_at or _now(), json.dumps(dict(args), default=str)),
            ).fetchone()
            return int(rid)

        return self.store._write(run)

    def finish_run(
        self,
        run_id: int,
        *,
        usage: Mapping[str, Any] | None,
        result: Mapping[str, Any] | None,
        result_full: Mapping[str, Any] | None = None,
        finished_at: str | None = None,
    ) -> None:
        """Close a run with its usage and RunResult JSON (`result` is RunResult.to_json();
        `result_full` every field, for an exact rebuild: see learn.store.runs)."""
        n = self.store.execute(
            "UPDATE runs SET finished_at = $1, usage_json = $2, result_json = $3, "
            "result_full_json = $4 WHERE id = $5",
            (
                finished_at or _now(),
                None if usage is None else json.dumps(dict(usage)),
                None if result is None else json.dumps(dict(result)),
                None if result_full is None else json.dumps(dict(result_full), default=str),
                int(run_id),
            ),
        )
        if n == 0:
            raise KeyError(f"no run {run_id}")

    def _run(self, row: Mapping[str, Any]) -> RunRecord:
        return RunRecord(
            id=int(row["id"]),
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            args=json.loads(row["args_json"]),
            usage=_loads(row["usage_json"]),
            result=_loads(row["result_json"]),
            result_full=_loads(row.get("result_full_json")),
        )

    def get_run(self, run_id: int) -> RunRecord | None:
        rows = self.store.sql("SELECT * FROM runs WHERE id = $1", (int(run_id),))
        return self._run(rows[0]) if rows else None

    def last_run(self, *, finished: bool = True) -> RunRecord | None:
        """The newest run (only those with a result when `finished`)."""
        where = "WHERE result_json IS NOT NULL" if finished else ""
        rows = self.store.sql(f"SELECT * FROM runs {where} ORDER BY id DESC LIMIT 1")
        return self._run(rows[0]) if rows else None

    # -- sessions ----------------------------------------------------------------

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
        where: list[str] = []
        params: list[Any] = []
        if session_ids is not None:
            ids = list(session_ids)
            if not ids:
                return []
            where.append(f"session_id IN ({placeholders(len(ids))})")
            params.extend(ids)
        if kind is not None:
            where.append(f"kind = ${len(params) + 1}")
            params.append(kind)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
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

    # -- proposals and decisions -----------------------------------------------------

    def mark_shown(
        self,
        key: str,
        *,
        last_occurrence: str | None,
        covered: bool = False,
        text: str = "",
        verdict: Mapping[str, Any] | None = None,
        at: str | None = None,
    ) -> None:
        """Record that proposal `key` ("kind:label") was shown, with its newest occurrence then."""
        when = at or _now()
        self.store.execute(
            "INSERT INTO proposals (key, first_shown_at, last_shown_at, last_occurrence, "
            "covered_when_shown, shown_count, text, verdict_json) VALUES ($1, $2, $3, $4, $5, 1, $6, $7) "
            "ON CONFLICT(key) DO UPDATE SET last_shown_at = excluded.last_shown_at, "
            "last_occurrence = excluded.last_occurrence, "
            "covered_when_shown = excluded.covered_when_shown, "
            "shown_count = proposals.shown_count + 1, text = excluded.text, "
            "verdict_json = excluded.verdict_json",
            (key, when, when, last_occurrence, int(covered), text,
             None if verdict is None else json.dumps(dict(verdict), default=str)),
        )

    def shown(self, key: str) -> ShownProposal | None:
        rows = self.store.sql("SELECT * FROM proposals WHERE key = $1", (key,))
        if not rows:
            return None
        r = rows[0]
        return ShownProposal(
            key=r["key"], first_shown_at=r["first_shown_at"], last_shown_at=r["last_shown_at"],
            last_occurrence=r["last_occurrence"], covered_when_shown=bool(r["covered_when_shown"]),
            shown_count=int(r["shown_count"]), text=r["text"], verdict=_loads(r["verdict_json"]),
        )

    def shown_all(self) -> dict[str, ShownProposal]:
        out: dict[str, ShownProposal] = {}
        for r in self.store.sql("SELECT key FROM proposals"):
            sp = self.shown(r["key"])
            if sp is not None:
                out[sp.key] = sp
        return out

    def record_decision(
        self, key: str, decision: Decision, *, text: str = "", target_file: str | None = None,
        at: str | None = None,
    ) -> int:
        if decision not in ("accepted", "edited", "dismissed"):
            raise ValueError(f"decision must be accepted, edited or dismissed, not {decision!r}")

        def run(conn: Connection) -> int:
            (did,) = conn.execute(
                "INSERT INTO decisions (key, decision, text, target_file, at) "
                "VALUES ($1, $2, $3, $4, $5) RETURNING id",
                (key, decision, text, target_file, at or _now()),
            ).fetchone()
            return int(did)

        return self.store._write(run)

    def decisions(self, key: str | None = None) -> list[DecisionRecord]:
        where, params = ("WHERE key = $1", (key,)) if key is not None else ("", ())
        return [
            DecisionRecord(id=int(r["id"]), key=r["key"], decision=r["decision"], text=r["text"],
                           target_file=r["target_file"], at=r["at"])
            for r in self.store.sql(f"SELECT * FROM decisions {where} ORDER BY at, id", params)
        ]
