"""FeedbackStore: the feedback ledger and its verdicts with vector evidence.

The connection, its transactions and the backend choice (SQLite file or
PostgreSQL URL) are StoreCore's (learn.store.core); this module is what the
ledger does with them, in SQL both engines run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from learn.isotime import now_iso
from learn.store import vectors
from learn.store.connection import Connection, placeholders
from learn.store.core import ReadOnlyStoreError, StoreCore
from learn.store.db import StoreError

# The ledger's row shapes (learn.store.feedback_rows), re-exported: the seed's names.
from learn.store.feedback_rows import EVENT_COLUMNS as EVENT_COLUMNS
from learn.store.feedback_rows import CandidateLike as CandidateLike
from learn.store.feedback_rows import Stats as Stats
from learn.store.feedback_rows import VerdictLike as VerdictLike
from learn.store.feedback_rows import candidate_row as candidate_row

if TYPE_CHECKING:
    from learn.embed.base import Embedder

Fidelity = Literal["full", "summary"]
__all__ = ["CandidateLike", "FeedbackStore", "Fidelity", "ReadOnlyStoreError", "Stats",
           "VerdictLike"]

EVIDENCE_PURPOSE = "evidence"
def _is_constraint_error(conn: Connection, exc: BaseException) -> bool:
    if conn.dialect == "postgresql":
        from learn.store.postgres import is_constraint_error

        return is_constraint_error(exc)
    import apsw

    return isinstance(exc, apsw.ConstraintError)


class FeedbackStore(StoreCore):
    """The feedback ledger and its verdicts over one StoreCore connection."""

    # -- files and candidates ------------------------------------------------------

    def record_file(self, path: str, mtime: float) -> None:
        """Upsert the recorded mtime for path (joins the owning thread's transaction)."""
        self._write(lambda conn: self._upsert_file(conn, path, mtime))

    @staticmethod
    def _upsert_file(conn: Connection, path: str, mtime: float) -> None:
        conn.execute(
            "INSERT INTO files (path, mtime) VALUES ($1, $2) "
            "ON CONFLICT(path) DO UPDATE SET mtime = excluded.mtime",
            (path, float(mtime)),
        )

    def record_file_scan(self, path: str, mtime: float, candidates: Sequence[CandidateLike]) -> int:
        """Insert the file's candidates (INSERT OR IGNORE on dedup_key) and its mtime, atomically.

        Returns the number of newly inserted events; re-scanning an unchanged file is a no-op.
        """

        def run(conn: Connection) -> int:
            new = self._insert(conn, candidates, None)
            self._upsert_file(conn, path, mtime)
            return len(new)

        return self._write(run)

    def insert_candidates(
        self,
        rows: Sequence[CandidateLike],
        extras: Sequence[Sequence[Any] | Mapping[str, Any]] | None = None,
    ) -> list[str]:
        """INSERT OR IGNORE candidate rows; returns the newly inserted dedup keys.

        extras, when given, holds one entry per row with the schema's event_columns
        values (a sequence in event_columns order, or a mapping by column name).
        """
        return self._write(lambda conn: self._insert(conn, rows, extras))

    def _insert(
        self,
        conn: Connection,
        rows: Sequence[CandidateLike],
        extras: Sequence[Sequence[Any] | Mapping[str, Any]] | None,
    ) -> list[str]:
        names = self.schema.extra_column_names
        if extras is not None and len(extras) != len(rows):
            raise ValueError(f"{len(extras)} extras for {len(rows)} rows")
        cols = (
            "dedup_key, source_kind, session_id, event_uuid, occurred_at, text, "
            "payload_json, context_json, cc_version, ingested_at"
        )
        cols += "".join(f", {n}" for n in names)
        marks = placeholders(10 + len(names))
        stmt = (
            f"INSERT INTO feedback_events ({cols}) VALUES ({marks}) "
            "ON CONFLICT(dedup_key) DO NOTHING RETURNING dedup_key"
        )
        now = now_iso()
        new: list[str] = []
        for i, c in enumerate(rows):
            extra: tuple[Any, ...] = ()
            if names:
                given = extras[i] if extras is not None else {}
                if isinstance(given, Mapping):
                    extra = tuple(given.get(n) for n in names)
                else:
                    extra = tuple(given)
                    if len(extra) != len(names):
                        raise ValueError(f"extras row {i} has {len(extra)} values for {names}")
            for (key,) in conn.execute(stmt, (*candidate_row(c), now, *extra)):
                new.append(str(key))
        return new

    # -- reads -------------------------------------------------------------------

    def _event_select(self) -> str:
        cols = [f"e.{c}" for c in (*EVENT_COLUMNS, *self.schema.extra_column_names)]
        return ", ".join(cols)

    def file_mtimes(self) -> dict[str, float]:
        return {r["path"]: float(r["mtime"]) for r in self.sql("SELECT path, mtime FROM files")}

    def dedup_keys(self) -> set[str]:
        return {r["dedup_key"] for r in self.sql("SELECT dedup_key FROM feedback_events")}

    def events(self, *, source_kind: str | None = None) -> list[dict[str, Any]]:
        """Every event, newest first (by occurred_at, then id)."""
        where = "" if source_kind is None else "WHERE e.source_kind = $1"
        params = () if source_kind is None else (source_kind,)
        return self.sql(
            f"SELECT {self._event_select()} FROM feedback_events e {where} "
            "ORDER BY e.occurred_at DESC, e.id DESC",
            params,
        )

    def recent(self, *, source_kind: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        where = "" if source_kind is None else "WHERE source_kind = $1"
        params: tuple[Any, ...] = () if source_kind is None else (source_kind,)
        return self.sql(
            f"SELECT source_kind, occurred_at, text FROM feedback_events {where} "
            f"ORDER BY occurred_at DESC, id DESC LIMIT ${len(params) + 1}",
            (*params, int(limit)),
        )

    def stats(self) -> Stats:
        by = {
            r["source_kind"]: int(r["n"])
            for r in self.sql(
                "SELECT source_kind, COUNT(*) AS n FROM feedback_events GROUP BY source_kind"
            )
        }
        files = int(self.sql("SELECT COUNT(*) AS n FROM files")[0]["n"])
        return Stats(total=sum(by.values()), files=files, by_source=by)

    # -- verdicts ----------------------------------------------------------------

    def record_verdict(
        self,
        key: str,
        verdict: VerdictLike,
        *,
        role: str,
        prompt_version: int,
        model: str,
        fidelity: Fidelity,
        vector: Any = None,
        space: str | None = None,
    ) -> bool:
        """Record one verdict keyed by (key, role, prompt_version); True when a row changed.

        model is provenance only: re-recording is a no-op, except a 'full' verdict
        replaces a 'summary' one (any model), carrying model, content and canonical_key
        across. When a row changed, the event's vector evidence is upserted in the same
        transaction (or cleared when the verdict names no canonical_key). The evidence
        vector is `vector` (in embedding space `space`) or the store's embedder applied
        to "<event text>\\n<summary>".
        """
        if fidelity not in ("full", "summary"):
            raise ValueError(f"fidelity must be 'full' or 'summary', not {fidelity!r}")
        s = self.schema
        vt, acc, summ = s.verdict_table, s.accepted_column, s.summary_column
        stmt = (
            f"INSERT INTO {vt} (dedup_key, role, prompt_version, model, category, {acc}, {summ}, "
            "confidence, rationale, canonical_key, fidelity, judged_at, scope) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
            "ON CONFLICT(dedup_key, role, prompt_version) DO UPDATE SET "
            f"model = excluded.model, category = excluded.category, {acc} = excluded.{acc}, "
            f"{summ} = excluded.{summ}, confidence = excluded.confidence, "
            "rationale = excluded.rationale, canonical_key = excluded.canonical_key, "
            "fidelity = excluded.fidelity, judged_at = excluded.judged_at, scope = excluded.scope "
            f"WHERE {vt}.fidelity = 'summary' AND excluded.fidelity = 'full'"
        )
        params = (
            key, role, int(prompt_version), model, verdict.category, int(bool(verdict.accepted)),
            verdict.summary, float(verdict.confidence), verdict.rationale or "",
            verdict.canonical_key, fidelity, now_iso(), getattr(verdict, "scope", None),
        )

        def run(conn: Connection) -> bool:
            row = conn.execute("SELECT text FROM feedback_events WHERE dedup_key = $1", (key,)).fetchone()
            if row is None:
                raise KeyError(f"no feedback event with dedup_key {key!r}")
            try:
                conn.execute(stmt, params)
            except Exception as exc:
                if not _is_constraint_error(conn, exc):
                    raise
                raise StoreError(f"verdict for {key!r} rejected: {exc}") from exc
            if conn.changes() == 0:
                return False
            self._update_evidence(conn, key, role, int(prompt_version), verdict,
                                  f"{row[0]}\n{verdict.summary}", vector, space)
            return True

        return self._write(run)

    def _evidence_embedder(self) -> Embedder:
        if self._embedder is None:
            from learn.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def _update_evidence(
        self, conn: Connection, key: str, role: str, prompt_version: int, verdict: VerdictLike,
        text: str, vector: Any, space: str | None,
    ) -> None:
        old = conn.execute(
            "SELECT id, space FROM verdict_evidence WHERE dedup_key = $1 AND role = $2 "
            "AND prompt_version = $3",
            (key, role, prompt_version),
        ).fetchone()
        if old is not None:
            found = vectors.find_table(conn, EVIDENCE_PURPOSE, str(old[1]))
            if found is not None:
                vectors.delete(conn, found[0], int(old[0]))
            conn.execute("DELETE FROM verdict_evidence WHERE id = $1", (int(old[0]),))
        if not verdict.canonical_key:
            return
        if vector is None:
            emb = self._evidence_embedder()
            vector, space, dim = emb.embed([text])[0], emb.name, emb.dim
        else:
            if space is None:
                raise ValueError("a vector passed to record_verdict needs its space name")
            dim = len(vector)
        table = vectors.ensure_table(conn, EVIDENCE_PURPOSE, space, dim)
        (eid,) = conn.execute(
            "INSERT INTO verdict_evidence (dedup_key, role, prompt_version, space, canonical_key, "
            "evidence_text) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            (key, role, prompt_version, space, verdict.canonical_key, text),
        ).fetchone()
        vectors.upsert(conn, table, int(eid), vector, dim)

    def similar_evidence(self, vector: Any, *, space: str, k: int = 5) -> list[dict[str, Any]]:
        """The k judged events whose evidence is nearest `vector` (cosine distance, nearest first)."""
        with self._use(write=False) as conn:
            found = vectors.find_table(conn, EVIDENCE_PURPOSE, space)
            if found is None:
                return []
            hits = vectors.knn(conn, found[0], vector, k, found[1])
            out: list[dict[str, Any]] = []
            for eid, dist in hits:
                row = conn.execute(
                    "SELECT dedup_key, role, prompt_version, canonical_key, evidence_text "
                    "FROM verdict_evidence WHERE id = $1",
                    (eid,),
                ).fetchone()
                if row is not None:
                    out.append({
                        "dedup_key": row[0], "role": row[1], "prompt_version": row[2],
                        "canonical_key": row[3], "evidence_text": row[4], "distance": dist,
                    })
            return out

    def _filter(self) -> str:
        return f" AND ({self.schema.event_filter})" if self.schema.event_filter else ""

    def unjudged(
        self,
        *,
        role: str,
        prompt_version: int,
        limit: int | None = None,
        refresh_summary: bool = False,
        probe_hydration: bool = True,
    ) -> list[dict[str, Any]]:
        """Events lacking a verdict for (role, prompt_version): truly unjudged first, then
        (with refresh_summary) summary-fidelity ones for a full re-judge, each by event id.

        Each row carries `refresh` (1 for a summary-fidelity re-judge). limit=0 is empty.
        probe_hydration is accepted for parity with the seed; the store has no transcript
        access, so a summary row is never dropped here: the caller re-renders its window
        and skips the ones that no longer resolve.
        """
        del probe_hydration
        if limit is not None and limit <= 0:
            return []
        vt = self.schema.verdict_table
        # An integer on both engines (a bare IS NOT NULL is a boolean on PostgreSQL).
        refresh = "CASE WHEN v.dedup_key IS NULL THEN 0 ELSE 1 END"
        stmt = (
            f"SELECT {self._event_select()}, {refresh} AS refresh "
            f"FROM feedback_events e LEFT JOIN {vt} v ON v.dedup_key = e.dedup_key "
            "AND v.role = $1 AND v.prompt_version = $2 "
            "WHERE (v.dedup_key IS NULL OR ($3 = 1 AND v.fidelity = 'summary'))"
            f"{self._filter()} ORDER BY {refresh}, e.id"
        )
        params: list[Any] = [role, int(prompt_version), int(refresh_summary)]
        if limit is not None:
            stmt += " LIMIT $4"
            params.append(int(limit))
        return self.sql(stmt, params)

    def judged(self, *, role: str, prompt_version: int) -> list[dict[str, Any]]:
        """Events joined with their (role, prompt_version) verdicts, oldest first; the
        physical accepted/summary columns come back as `accepted` and `summary`."""
        s = self.schema
        stmt = (
            f"SELECT {self._event_select()}, v.category, v.{s.accepted_column} AS accepted, "
            f"v.confidence, v.{s.summary_column} AS summary, v.rationale, v.model, "
            "v.canonical_key, v.fidelity, v.judged_at, v.scope "
            f"FROM feedback_events e JOIN {s.verdict_table} v ON v.dedup_key = e.dedup_key "
            f"WHERE v.role = $1 AND v.prompt_version = $2{self._filter()} ORDER BY e.id"
        )
        rows = self.sql(stmt, (role, int(prompt_version)))
        for r in rows:
            r["accepted"] = bool(r["accepted"])
        return rows
