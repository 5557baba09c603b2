"""The store's schema: what an app may rename, and the numbered migrations that build it.

Migrations follow simonw/llm: each is a function, applied once, in order, and its
name recorded in `_migrations` in the same transaction as its DDL, so a crash
mid-migration leaves the previous version intact. A migration never drops data:
a table that must change shape is rebuilt by copy (create new, INSERT SELECT,
drop old, rename) inside that one transaction. Migrations are append-only;
editing an applied one does nothing on existing databases. The step names are
one list for every backend; each backend (SQLite, PostgreSQL) has its own DDL
for each step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from learn.store.db import SchemaMismatchError
from learn.store.sqlite_ddl import SQLITE_STEPS

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


# The numbered steps, shared by every backend: each backend has its DDL for each
# name (learn.store.sqlite_ddl, learn.store.pg_ddl), and a backend missing a step
# fails at import. Append only; a name says what the step does.
STEP_NAMES: tuple[str, ...] = (
    "0001_feedback",
    "0002_learn_tables",
    "0003_event_ingest_index",
    "0004_scope_examples_full_result",
    "0005_team_shared_candidates",
    "0006_team_show_name",
    "0007_session_index",
    "0008_name_cache",
    "0009_mine_batches",
    "0011_proposal_states",
    "0014_team_protection",
    "0015_label_source",
    "0016_session_index_derived",
)
SCHEMA_VERSION = len(STEP_NAMES)

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


@dataclass(frozen=True, slots=True)
class Dialect:
    """What the migration engine needs to know about one engine."""

    name: str
    migrations: tuple[tuple[str, Migration], ...]
    begin_write: Callable[[Any], None]  # open a transaction that excludes other migrators
    table_exists: Callable[[Any, str], bool]
    columns: Callable[[Any, str], set[str]]
    column_types: Mapping[str, str]  # StoreSchema column type -> this engine's


def _steps(ddl: Mapping[str, Migration]) -> tuple[tuple[str, Migration], ...]:
    return tuple((name, ddl[name]) for name in STEP_NAMES)


def _sqlite_begin(conn: Any) -> None:
    conn.execute("BEGIN IMMEDIATE")


def _sqlite_table_exists(conn: Any, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def _sqlite_columns(conn: Any, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({check_identifier(table)})")}


SQLITE = Dialect(
    name="sqlite",
    migrations=_steps(SQLITE_STEPS),
    begin_write=_sqlite_begin,
    table_exists=_sqlite_table_exists,
    columns=_sqlite_columns,
    column_types={"": "", "TEXT": "TEXT", "INTEGER": "INTEGER", "REAL": "REAL",
                  "BLOB": "BLOB", "ANY": "ANY"},
)
# The SQLite steps under their historical name (tests migrate step by step).
MIGRATIONS = SQLITE.migrations


def dialect_of(conn: Any) -> Dialect:
    """The dialect of an open connection: PgConnection says so, apsw is SQLite."""
    if getattr(conn, "dialect", None) == "postgresql":
        from learn.store.pg_ddl import POSTGRES

        return POSTGRES
    return SQLITE


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _table_exists(conn: Any, name: str) -> bool:
    return dialect_of(conn).table_exists(conn, name)


def _columns(conn: Any, table: str) -> set[str]:
    return dialect_of(conn).columns(conn, table)


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
    known = list(STEP_NAMES)
    unknown = sorted(set(applied) - set(known))
    if unknown:
        raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
    missing = [n for n in known if n not in applied]
    if missing:
        raise SchemaMismatchError(f"database needs migrations {missing}; open it writable once")
    absent = [c for c in schema.extra_column_names if c not in _columns(conn, "feedback_events")]
    if absent:
        raise SchemaMismatchError(f"feedback_events lacks event columns {absent}")


def _explain_denied(conn: Any, dialect: Dialect, targets: Any, exc: BaseException) -> None:
    """A team member may not change the schema (learn.store.pg_team): say who can."""
    if dialect.name != "postgresql":
        return
    from learn.store.postgres import is_permission_error

    if is_permission_error(exc):
        done = set(applied_migrations(conn))
        pending = [n for n, _ in targets if n not in done]
        raise SchemaMismatchError(
            f"the database needs migrations {pending}, which only its owner may apply: ask "
            "the team admin to run `learn team init` with this version of learn"
        ) from exc


def migrate(conn: Any, schema: StoreSchema, *, upto: int | None = None) -> list[str]:
    """Apply pending migrations (the first `upto` only, for tests); returns the names applied.

    Each migration commits on its own with its _migrations row, in a transaction
    that excludes other migrators (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory
    lock), so two processes opening a fresh database at once cannot both run it.
    """
    dialect = dialect_of(conn)
    applied_now: list[str] = []
    targets = dialect.migrations if upto is None else dialect.migrations[:upto]
    # Fast path without the write lock: an up-to-date database opens even while
    # another process is mid-transaction (WAL readers never wait for the writer).
    if _check_marker(conn, schema):
        applied = set(applied_migrations(conn))
        unknown = sorted(applied - set(STEP_NAMES))
        if unknown:
            raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
        have = _columns(conn, "feedback_events") if "0001_feedback" in applied else set()
        if all(n in applied for n, _ in targets) and (
            upto is not None or all(c in have for c in schema.extra_column_names)
        ):
            return applied_now
    dialect.begin_write(conn)
    try:
        conn.execute(_BOOKKEEPING)
        if not _check_marker(conn, schema):
            conn.execute(
                "INSERT INTO _learn_schema (id, identity, layout_json) VALUES (1, ?, ?)",
                (schema.identity, json.dumps(schema.layout())),
            )
        unknown = sorted(set(applied_migrations(conn)) - set(STEP_NAMES))
        if unknown:
            raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
        conn.execute("COMMIT")
    except BaseException as exc:
        conn.execute("ROLLBACK")
        _explain_denied(conn, dialect, targets, exc)
        raise
    for name, fn in targets:
        dialect.begin_write(conn)
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
        except BaseException as exc:
            conn.execute("ROLLBACK")
            _explain_denied(conn, dialect, targets, exc)
            raise
        applied_now.append(name)
    if upto is None and schema.extra_columns:
        dialect.begin_write(conn)
        try:
            have = _columns(conn, "feedback_events")
            for col, ctype in schema.extra_columns:
                if col not in have:
                    coltype = dialect.column_types[ctype]
                    conn.execute(f"ALTER TABLE feedback_events ADD COLUMN {col} {coltype}".rstrip())
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied_now
