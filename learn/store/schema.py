"""The migration engine: apply the numbered steps (learn.store.migrations) once, in order.

Migrations follow simonw/llm: each is a function, applied once, in order, and its
name recorded in `_migrations` in the same transaction as its DDL, so a crash
mid-migration leaves the previous version intact. A migration never drops data:
a table that must change shape is rebuilt by copy (create new, INSERT SELECT,
drop old, rename) inside that one transaction. Migrations are append-only;
editing an applied one does nothing on existing databases. The step names are
one list for every backend; each step is written once, with the dialect's
differences named by learn.store.dialects.

The layers of learn.store: see its package docstring.
"""

from __future__ import annotations

import json
from typing import Any

from learn.isotime import now_iso as _now
from learn.store.connection import Connection, rollback
from learn.store.db import MigrationsPendingError, SchemaMismatchError
from learn.store.dialects import SQLITE as SQLITE
from learn.store.dialects import Dialect as Dialect
from learn.store.dialects import dialect_of as dialect_of
from learn.store.layout import DEFAULT_IDENTITY as DEFAULT_IDENTITY
from learn.store.layout import StoreSchema as StoreSchema
from learn.store.layout import check_identifier as check_identifier
from learn.store.migrations import MIGRATIONS as MIGRATIONS
from learn.store.migrations import SCHEMA_VERSION as SCHEMA_VERSION
from learn.store.migrations import STEP_NAMES as STEP_NAMES
from learn.store.migrations import Migration as Migration

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



def _table_exists(conn: Connection, name: str) -> bool:
    return dialect_of(conn).table_exists(conn, name)


def _columns(conn: Connection, table: str) -> set[str]:
    return dialect_of(conn).columns(conn, table)


def applied_migrations(conn: Connection) -> list[str]:
    if not _table_exists(conn, "_migrations"):
        return []
    return [str(r[0]) for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]


def _check_marker(conn: Connection, schema: StoreSchema) -> bool:
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


def verify(conn: Connection, schema: StoreSchema) -> None:
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
        raise MigrationsPendingError(f"database needs migrations {missing}; open it writable once")
    absent = [c for c in schema.extra_column_names if c not in _columns(conn, "feedback_events")]
    if absent:
        raise SchemaMismatchError(f"feedback_events lacks event columns {absent}")


def _explain_denied(conn: Connection, dialect: Dialect, targets: Any, exc: BaseException) -> None:
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


def migrate(conn: Connection, schema: StoreSchema, *, upto: int | None = None) -> list[str]:
    """Apply pending migrations (the first `upto` only, for tests); returns the names applied.

    Each migration commits on its own with its _migrations row, in a transaction
    that excludes other migrators (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory
    lock), so two processes opening a fresh database at once cannot both run it.
    """
    dialect = dialect_of(conn)
    applied_now: list[str] = []
    targets = MIGRATIONS if upto is None else MIGRATIONS[:upto]
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
                "INSERT INTO _learn_schema (id, identity, layout_json) VALUES (1, $1, $2)",
                (schema.identity, json.dumps(schema.layout())),
            )
        unknown = sorted(set(applied_migrations(conn)) - set(STEP_NAMES))
        if unknown:
            raise SchemaMismatchError(f"database is newer than this learn (migrations {unknown})")
        conn.execute("COMMIT")
    except BaseException as exc:
        rollback(conn)
        _explain_denied(conn, dialect, targets, exc)
        raise
    for name, fn in targets:
        dialect.begin_write(conn)
        try:
            # Re-read inside the write lock: another process may have just applied it.
            if conn.execute("SELECT 1 FROM _migrations WHERE name = $1", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            fn(conn, schema, dialect)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES ($1, $2)", (name, _now())
            )
            conn.execute("COMMIT")
        except BaseException as exc:
            rollback(conn)
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
            rollback(conn)
            raise
    return applied_now
