"""The store's schema: what an app may rename, and the numbered migrations that build it.

Migrations follow simonw/llm: each is a function, applied once, in order, and its
name recorded in `_migrations` in the same transaction as its DDL, so a crash
mid-migration leaves the previous version intact. A migration never drops data:
a table that must change shape is rebuilt by copy (create new, INSERT SELECT,
drop old, rename) inside that one transaction. Migrations are append-only;
editing an applied one does nothing on existing databases.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from learn.store.db import SchemaMismatchError

DEFAULT_IDENTITY = "learn-feedback"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_COLTYPE = re.compile(r"^(TEXT|INTEGER|REAL|BLOB|ANY)?$", re.IGNORECASE)


def check_identifier(name: str) -> str:
    # Table and column names are interpolated into SQL; only plain identifiers get in.
    if not _IDENT.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class StoreSchema:
    """How an app composes the feedback store.

    event_columns are extra columns on feedback_events, written from the `extras`
    of insert_candidates; each entry is "name" or "name TYPE" (TEXT, INTEGER, REAL,
    BLOB). New event columns are added to an existing database; renames are not.
    event_filter is a SQL predicate over alias `e`, ANDed into unjudged() and judged(),
    e.g. "e.quarantined_reason IS NULL".
    """

    identity: str = DEFAULT_IDENTITY
    event_columns: tuple[str, ...] = ()
    verdict_table: str = "verdicts"
    accepted_column: str = "accepted"
    summary_column: str = "summary"
    event_filter: str | None = None
    _columns: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        for name in (self.verdict_table, self.accepted_column, self.summary_column):
            check_identifier(name)
        if self.accepted_column == self.summary_column:
            raise ValueError("accepted_column and summary_column must differ")
        cols: list[tuple[str, str]] = []
        for spec in self.event_columns:
            name, _, ctype = spec.strip().partition(" ")
            check_identifier(name)
            ctype = ctype.strip()
            if not _COLTYPE.match(ctype):
                raise ValueError(f"unsupported column type in {spec!r}")
            cols.append((name, ctype.upper()))
        object.__setattr__(self, "_columns", tuple(cols))

    @property
    def extra_columns(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of each app event column."""
        return self._columns

    @property
    def extra_column_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._columns)

    def layout(self) -> dict[str, Any]:
        """What must match between the code and an existing database (event columns may grow)."""
        return {
            "verdict_table": self.verdict_table,
            "accepted_column": self.accepted_column,
            "summary_column": self.summary_column,
        }


Migration = Callable[[Any, StoreSchema], None]


def _m001_feedback(conn: Any, s: StoreSchema) -> None:
    # The ledger of mined feedback. dedup_key is content-derived (session, kind,
    # text), so re-scanning a file inserts nothing new.
    conn.execute(
        f"""
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            mtime REAL NOT NULL
        );
        CREATE TABLE feedback_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            dedup_key TEXT NOT NULL UNIQUE,
            source_kind TEXT NOT NULL,
            session_id TEXT,
            event_uuid TEXT,
            occurred_at TEXT NOT NULL,
            text TEXT NOT NULL,
            payload_json TEXT,
            context_json TEXT,
            cc_version TEXT,
            ingested_at TEXT NOT NULL
        );
        CREATE INDEX feedback_events_by_kind ON feedback_events(source_kind, occurred_at);
        CREATE INDEX feedback_events_by_session ON feedback_events(session_id);
        CREATE TABLE {s.verdict_table} (
            dedup_key TEXT NOT NULL REFERENCES feedback_events(dedup_key) ON DELETE CASCADE,
            role TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            model TEXT NOT NULL,
            category TEXT NOT NULL,
            {s.accepted_column} INTEGER NOT NULL CHECK ({s.accepted_column} IN (0, 1)),
            {s.summary_column} TEXT NOT NULL,
            confidence REAL NOT NULL,
            rationale TEXT NOT NULL DEFAULT '',
            canonical_key TEXT,
            fidelity TEXT NOT NULL CHECK (fidelity IN ('full', 'summary')),
            judged_at TEXT NOT NULL,
            PRIMARY KEY (dedup_key, role, prompt_version)
        );
        -- One row per judged event that carries vector evidence; its id is the rowid
        -- of the vector in the vec0 table of its embedding space.
        CREATE TABLE verdict_evidence (
            id INTEGER PRIMARY KEY,
            dedup_key TEXT NOT NULL REFERENCES feedback_events(dedup_key) ON DELETE CASCADE,
            role TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            space TEXT NOT NULL,
            canonical_key TEXT NOT NULL,
            evidence_text TEXT NOT NULL,
            UNIQUE (dedup_key, role, prompt_version)
        );
        CREATE INDEX verdict_evidence_by_canonical ON verdict_evidence(canonical_key);
        -- vec0 tables have a fixed dimension, and embedders differ (384 vs 1024), so
        -- there is one vec0 table per (purpose, embedding space), created on first use.
        CREATE TABLE vector_tables (
            purpose TEXT NOT NULL,
            space TEXT NOT NULL,
            dim INTEGER NOT NULL CHECK (dim > 0),
            table_name TEXT NOT NULL UNIQUE,
            PRIMARY KEY (purpose, space)
        );
        """
    )


def _m002_learn_tables(conn: Any, s: StoreSchema) -> None:
    conn.execute(
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            args_json TEXT NOT NULL DEFAULT '{}',
            usage_json TEXT,
            result_json TEXT
        );
        CREATE TABLE sessions_scanned (
            session_id TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            project TEXT,
            path TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            last_activity TEXT,
            candidate_count INTEGER NOT NULL DEFAULT 0,
            scanned_at TEXT NOT NULL
        );
        -- Every verified candidate, below the threshold too: a label given once stays
        -- with the same text (session, kind, source, text_hash), so names are stable
        -- across runs even while a group is still too small to show.
        CREATE TABLE candidates (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            project TEXT,
            occurred_at TEXT,
            payload_json TEXT,
            label TEXT,
            label_run INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            UNIQUE (session_id, kind, source, text_hash)
        );
        CREATE INDEX candidates_by_label ON candidates(kind, label);
        CREATE INDEX candidates_by_hash ON candidates(kind, text_hash);
        CREATE TABLE labels (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            label TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (label, kind)
        );
        CREATE TABLE proposals (
            key TEXT PRIMARY KEY,
            first_shown_at TEXT NOT NULL,
            last_shown_at TEXT NOT NULL,
            last_occurrence TEXT,
            covered_when_shown INTEGER NOT NULL DEFAULT 0,
            shown_count INTEGER NOT NULL DEFAULT 1,
            text TEXT NOT NULL DEFAULT '',
            verdict_json TEXT
        );
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('accepted', 'edited', 'dismissed')),
            text TEXT NOT NULL DEFAULT '',
            target_file TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX decisions_by_key ON decisions(key, at);
        CREATE TABLE embedding_cache (
            space TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (space, text_hash)
        ) WITHOUT ROWID;
        """
    )


def _m003_event_ingest_index(conn: Any, s: StoreSchema) -> None:
    # recent() and the digest window read newest-first by ingestion; without this
    # they sort the whole ledger.
    conn.execute("CREATE INDEX feedback_events_by_ingested ON feedback_events(ingested_at)")


def _m004_scope_examples_full_result(conn: Any, s: StoreSchema) -> None:
    # learn's Verdict carries a scope (user | project) the seed's verdict row lacks;
    # a run keeps its full RunResult (quotes' projects, rationales) next to the
    # surface JSON so `learn digest` rebuilds it exactly; and a label is found by
    # any of the examples it was given, not one vector per label.
    conn.execute(
        f"""
        ALTER TABLE {s.verdict_table} ADD COLUMN scope TEXT;
        ALTER TABLE runs ADD COLUMN result_full_json TEXT;
        CREATE TABLE label_examples (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
            space TEXT NOT NULL,
            vector_hash TEXT NOT NULL,
            UNIQUE (label_id, space, vector_hash)
        );
        """
    )


def _m006_session_index(conn: Any, s: StoreSchema) -> None:
    # Per transcript file, what reading it gave (learn.store.session_index), so a
    # warm run opens no unchanged file. Numbered 0006 to leave 0005 to pgstore's
    # team_shared_candidates; migrations apply by name, so either merge order works.
    from learn.store.session_index import create_table

    create_table(conn)


MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("0001_feedback", _m001_feedback),
    ("0002_learn_tables", _m002_learn_tables),
    ("0003_event_ingest_index", _m003_event_ingest_index),
    ("0004_scope_examples_full_result", _m004_scope_examples_full_result),
    ("0006_session_index", _m006_session_index),
)
SCHEMA_VERSION = len(MIGRATIONS)

_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS _migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS _learn_schema (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    identity TEXT NOT NULL,
    layout_json TEXT NOT NULL
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _table_exists(conn: Any, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def _columns(conn: Any, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({check_identifier(table)})")}


def applied_migrations(conn: Any) -> list[str]:
    if not _table_exists(conn, "_migrations"):
        return []
    return [str(r[0]) for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]


def _check_marker(conn: Any, schema: StoreSchema) -> bool:
    """True when a marker exists and matches; raises when it exists and does not."""
    if not _table_exists(conn, "_learn_schema"):
        return False
    row = conn.execute("SELECT identity, layout_json FROM _learn_schema WHERE id = 1").fetchone()
    if row is None:
        return False
    identity, layout_json = str(row[0]), str(row[1])
    if identity != schema.identity:
        raise SchemaMismatchError(
            f"database belongs to {identity!r}, not {schema.identity!r}; refusing to touch it"
        )
    if json.loads(layout_json) != schema.layout():
        raise SchemaMismatchError(
            f"database layout {layout_json} differs from {json.dumps(schema.layout())}"
        )
    return True


def verify(conn: Any, schema: StoreSchema) -> None:
    """Read-only attestation: identity, layout, every migration applied, no unknown ones."""
    if not _check_marker(conn, schema):
        raise SchemaMismatchError("not a learn store (no schema marker); open it writable once")
    applied = applied_migrations(conn)
    known = [name for name, _ in MIGRATIONS]
    unknown = sorted(set(applied) - set(known))
    if unknown:
        raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
    missing = [n for n in known if n not in applied]
    if missing:
        raise SchemaMismatchError(f"database needs migrations {missing}; open it writable once")
    absent = [c for c in schema.extra_column_names if c not in _columns(conn, "feedback_events")]
    if absent:
        raise SchemaMismatchError(f"feedback_events lacks event columns {absent}")


def migrate(conn: Any, schema: StoreSchema, *, upto: int | None = None) -> list[str]:
    """Apply pending migrations (the first `upto` only, for tests); returns the names applied.

    Each migration commits on its own with its _migrations row, under BEGIN IMMEDIATE
    so two processes opening a fresh database at once cannot both run it.
    """
    applied_now: list[str] = []
    targets = MIGRATIONS if upto is None else MIGRATIONS[:upto]
    # Fast path without the write lock: an up-to-date database opens even while
    # another process is mid-transaction (WAL readers never wait for the writer).
    if _check_marker(conn, schema):
        applied = set(applied_migrations(conn))
        unknown = sorted(applied - {n for n, _ in MIGRATIONS})
        if unknown:
            raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
        have = _columns(conn, "feedback_events") if "0001_feedback" in applied else set()
        if all(n in applied for n, _ in targets) and (
            upto is not None or all(c in have for c in schema.extra_column_names)
        ):
            return applied_now
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_BOOKKEEPING)
        if not _check_marker(conn, schema):
            conn.execute(
                "INSERT INTO _learn_schema (id, identity, layout_json) VALUES (1, ?, ?)",
                (schema.identity, json.dumps(schema.layout())),
            )
        unknown = sorted(set(applied_migrations(conn)) - {n for n, _ in MIGRATIONS})
        if unknown:
            raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    for name, fn in targets:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the write lock: another process may have just applied it.
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            fn(conn, schema)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, _now())
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied_now.append(name)
    if upto is None and schema.extra_columns:
        conn.execute("BEGIN IMMEDIATE")
        try:
            have = _columns(conn, "feedback_events")
            for col, ctype in schema.extra_columns:
                if col not in have:
                    conn.execute(f"ALTER TABLE feedback_events ADD COLUMN {col} {ctype}".rstrip())
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied_now
