"""Opening the database: apsw (so extensions load everywhere), sqlite-vec, pragmas, modes.

The stdlib sqlite3 of many Python builds cannot load extensions (every pyenv
build 3.6-3.13 on the dev box lacks enable_load_extension), so learn talks to
SQLite through apsw, which ships its own current SQLite and loads sqlite-vec
with pip alone. apsw is autocommit and not DB-API: transactions are explicit
BEGIN IMMEDIATE / COMMIT here.

Everything in the database is an excerpt of what the user typed, so the file is
created 0600 before SQLite touches it (SQLite gives -wal and -shm the mode of the
main file) and its directory 0700.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from learn.paths import data_dir, ensure_private_dir

DEFAULT_BUSY_TIMEOUT_MS = 5000


class StoreError(Exception):
    """Base class of the store's own errors."""


class TransactionConflictError(StoreError):
    """A write attempted while another thread's transaction holds the connection.

    The store shares one SQLite connection, so a transaction is exclusive: a write
    from a different thread must not silently join it (a rollback would take the
    bystander's committed-looking write with it). Serialise writes or retry after
    the open transaction finishes.
    """


class SchemaMismatchError(StoreError):
    """The database on disk is not the schema this code expects (identity, layout or version)."""


class StoreBusyError(StoreError):
    """Another process held the database lock for longer than the busy timeout."""


class StoreClosedError(sqlite3.ProgrammingError):
    """The store was closed; like using a closed sqlite3.Connection."""


def _precreate_private(path: Path) -> None:
    # A missing directory is created 0700, and learn's own data dir is tightened;
    # an existing directory the user pointed us at (say ~ for --store ~/learn.db)
    # is theirs, and chmod-ing it would be a surprise.
    if not path.parent.exists() or path.parent.resolve() == data_dir().resolve():
        ensure_private_dir(path.parent)
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    # Tighten a file someone else created (0644 under a default umask); we own it.
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            with contextlib.suppress(OSError):
                os.chmod(side, 0o600)


def load_vec(conn: Any) -> None:
    import sqlite_vec

    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)


def connect(
    path: Path,
    *,
    readonly: bool = False,
    busy_timeout_ms: int | None = None,
    extensions: Sequence[str] = (),
    vectors: bool = True,
) -> Any:
    """An apsw connection with sqlite-vec loaded, WAL, foreign keys and the busy timeout set.

    `vectors=False` leaves sqlite-vec out, for a connection that never touches a
    vector table (the session index): importing it brings numpy, ~0.13 s of a
    warm `learn sessions` whose target is 0.3 s (issue 21).

    Read-only opens never create anything: the file must exist, and query_only
    makes any write fail inside SQLite itself.
    """
    import apsw

    timeout = DEFAULT_BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
    if readonly:
        if not path.is_file():
            raise SchemaMismatchError(f"no database at {path} (read-only open creates nothing)")
        flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
        conn = apsw.Connection(path.resolve().as_uri() + "?mode=ro", flags=flags)
    else:
        _precreate_private(path)
        flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
        conn = apsw.Connection(str(path), flags=flags)
    try:
        conn.set_busy_timeout(timeout)
        if vectors:
            load_vec(conn)
        for ext in extensions:
            conn.enable_load_extension(True)
            try:
                conn.load_extension(ext)
            finally:
                conn.enable_load_extension(False)
        conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            conn.execute("PRAGMA query_only = ON")
        else:
            # WAL: readers (learn report while learn run writes) never block the writer.
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def rows_as_dicts(cursor: Any, row: tuple[Any, ...]) -> dict[str, Any]:
    """apsw row tracer: rows come back as {column: value}."""
    return {d[0]: v for d, v in zip(cursor.get_description(), row, strict=True)}
