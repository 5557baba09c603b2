"""StoreCore: one connection to the store's database, its transactions and generic SQL.

The backend is chosen here, in one place (open_connection): a `postgresql://` URL
opens PostgreSQL + pgvector (learn.store.postgres), anything else is a SQLite file
(apsw + sqlite-vec, the embedded default). Everything above this module (the
ledger, verdicts, learn's tables) runs the same SQL on both.

Synchronous. One connection. A transaction() is exclusive to the thread that
opened it: a write from another thread (standalone or a second transaction)
raises TransactionConflictError instead of joining it, because on a shared
connection a rollback would take the bystander's write with it. Writes by the
owning thread join. Reads from another thread wait until the transaction ends
(they would otherwise see uncommitted rows). Between processes, SQLite serialises
writers with BEGIN IMMEDIATE and the busy timeout; PostgreSQL with row locks and
lock_timeout.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

from learn.store.connection import Connection, Params, rollback
from learn.store.db import (
    StoreBusyError,
    StoreClosedError,
    StoreError,
    TransactionConflictError,
    connect,
)
from learn.store.postgres import is_database_url, redact_url
from learn.store.schema import StoreSchema, migrate, verify

if TYPE_CHECKING:
    from learn.embed.base import Embedder

T = TypeVar("T")
Target = Path | str
_READ_VERBS = ("select", "values", "explain", "show")
_WRITE_WORDS = ("insert", "update", "delete", "replace", "create", "drop", "alter")


class ReadOnlyStoreError(StoreError):
    """A write on a store opened with readonly=True."""


def _is_read(statement: str) -> bool:
    words = statement.lstrip().lower().split(None, 1)
    if not words:
        return True
    first = words[0]
    if first in _READ_VERBS:
        return True
    if first == "pragma":
        return "=" not in statement
    if first == "with":
        body = statement.lower()
        return not any(f" {w} " in f" {body} " for w in _WRITE_WORDS)
    return False


def _is_pg(conn: Connection) -> bool:
    return conn.dialect == "postgresql"


def _is_busy(conn: Connection, exc: BaseException) -> bool:
    if _is_pg(conn):
        from learn.store.postgres import is_busy_error

        return is_busy_error(exc)
    import apsw

    return isinstance(exc, apsw.BusyError)


def open_connection(
    target: Target, *, readonly: bool = False, busy_timeout_ms: int | None = None,
    extensions: Sequence[str] = (),
) -> tuple[Connection, Path | None, str]:
    """(connection, file path or None, printable location) for a file path or a database URL."""
    if is_database_url(target):
        from learn.store import postgres

        url = str(target)
        if extensions:
            raise ValueError("SQLite extensions cannot be loaded into PostgreSQL")
        return postgres.connect(url, readonly=readonly, busy_timeout_ms=busy_timeout_ms), None, \
            redact_url(url)
    p = Path(target).expanduser()
    conn = connect(p, readonly=readonly, busy_timeout_ms=busy_timeout_ms, extensions=extensions)
    return conn, p, str(p)


class StoreCore:
    def __init__(self, conn: Connection, schema: StoreSchema, *, readonly: bool,
                 path: Path | None, location: str | None = None,
                 embedder: Embedder | None = None) -> None:
        self._conn: Connection | None = conn
        self.schema = schema
        self.readonly = readonly
        self.path = path  # None on PostgreSQL
        self.location = location or str(path)
        self.backend = "postgresql" if _is_pg(conn) else "sqlite"
        self._embedder = embedder
        self._lock = threading.RLock()
        self._tx_owner: int | None = None
        self._implicit_owner: int | None = None

    # -- lifecycle ---------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Target,
        schema: StoreSchema | None = None,
        *,
        readonly: bool = False,
        busy_timeout_ms: int | None = None,
        extensions: Sequence[str] = (),
        embedder: Embedder | None = None,
    ) -> Self:
        """Open (creating and migrating if needed) the store at `path`: a SQLite file,
        or a `postgresql://` URL.

        readonly: attest the schema (identity, layout, every migration applied) and
        write nothing; any write raises ReadOnlyStoreError. `embedder` makes the
        verdict evidence vectors; when omitted, learn.embed.get_embedder() is loaded
        on the first verdict that needs one.
        """
        schema = schema or StoreSchema()
        conn, p, location = open_connection(
            path, readonly=readonly, busy_timeout_ms=busy_timeout_ms, extensions=extensions
        )
        try:
            if readonly:
                verify(conn, schema)
            else:
                migrate(conn, schema)
        except Exception as exc:
            conn.close()
            if _is_busy(conn, exc):
                raise StoreBusyError(f"{location} is locked by another process: {exc}") from exc
            raise
        except BaseException:
            conn.close()
            raise
        return cls(conn, schema, readonly=readonly, path=p, location=location, embedder=embedder)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connection discipline ---------------------------------------------------

    @contextlib.contextmanager
    def _use(self, *, write: bool) -> Iterator[Connection]:
        me = threading.get_ident()
        if write and self.readonly:
            raise ReadOnlyStoreError(f"{self.location} was opened read-only")
        while not self._lock.acquire(timeout=0.02):
            owner = self._tx_owner
            if write and owner is not None and owner != me:
                raise TransactionConflictError(
                    "another thread's transaction is open on this store; serialise writes"
                )
        try:
            if self._conn is None:
                raise StoreClosedError("the store is closed")
            yield self._conn
        finally:
            self._lock.release()

    def _begin(self, conn: Connection) -> None:
        # SQLite: take the write lock now (IMMEDIATE), so a busy database fails here
        # and not halfway. PostgreSQL locks rows as they are written.
        try:
            conn.execute("BEGIN" if _is_pg(conn) else "BEGIN IMMEDIATE")
        except Exception as exc:
            if _is_busy(conn, exc):
                raise StoreBusyError(f"{self.location} is locked by another writer: {exc}") from exc
            raise

    def _write(self, fn: Callable[[Connection], T]) -> T:
        """Run fn in the caller's open transaction, or in its own transaction."""
        me = threading.get_ident()
        with self._use(write=True) as conn:
            if me in (self._tx_owner, self._implicit_owner):
                return fn(conn)  # joins the open transaction
            self._begin(conn)
            # Marked so a nested write (a helper calling another helper) joins instead of
            # issuing a second BEGIN; other threads still wait on the lock, not raise.
            self._implicit_owner = me
            try:
                result = fn(conn)
                conn.execute("COMMIT")
            except BaseException as exc:
                rollback(conn)
                if isinstance(exc, Exception) and _is_busy(conn, exc):
                    raise StoreBusyError(f"{self.location} is locked: {exc}") from exc
                raise
            finally:
                self._implicit_owner = None
            return result

    @contextlib.contextmanager
    def atomic(self) -> Iterator[Self]:
        """transaction(), or the caller's own open transaction joined (for helpers
        that must be atomic whether or not their caller already opened one)."""
        if self._tx_owner == threading.get_ident():
            yield self
            return
        with self.transaction():
            yield self

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Self]:
        """One committed transaction; rolled back if the block raises.

        Exclusive: a second transaction() (any thread) or a write from another thread
        while this one is open raises TransactionConflictError.
        """
        if self.readonly:
            raise ReadOnlyStoreError(f"{self.location} was opened read-only")
        me = threading.get_ident()
        while not self._lock.acquire(timeout=0.02):
            if self._tx_owner not in (None, me):
                raise TransactionConflictError("another thread's transaction is open")
        try:
            if self._tx_owner is not None:
                raise TransactionConflictError("a transaction is already open on this store")
            if self._conn is None:
                raise StoreClosedError("the store is closed")
            conn = self._conn
            self._begin(conn)
            self._tx_owner = me
            try:
                yield self
                conn.execute("COMMIT")
            except BaseException:
                rollback(conn)
                raise
            finally:
                self._tx_owner = None
        finally:
            self._lock.release()

    @property
    def in_transaction(self) -> bool:
        return self._tx_owner is not None

    # -- generic SQL ---------------------------------------------------------------

    def sql(self, statement: str, params: Params = ()) -> list[dict[str, Any]]:
        """Run one parameterised statement (`$1, $2, ...` placeholders: `$n` is
        params[n - 1]), rows as dicts (writes go through the write path)."""

        def run(conn: Connection) -> list[dict[str, Any]]:
            return conn.query_dicts(statement, params)

        if _is_read(statement):
            with self._use(write=False) as conn:
                return run(conn)
        return self._write(run)

    def execute(self, statement: str, params: Params = ()) -> int:
        """Run one parameterised write, returning the modified-row count."""

        def run(conn: Connection) -> int:
            conn.execute(statement, params)
            return conn.changes()

        return self._write(run)

    def executemany(self, statement: str, seq: Iterable[Params]) -> int:
        """Run statement once per parameter set in one transaction; total modified rows."""

        def run(conn: Connection) -> int:
            return conn.executemany(statement, seq)

        return self._write(run)

    def executescript(self, script: str) -> None:
        """Run a multi-statement script; refused while a transaction is open (its own
        BEGIN/COMMIT would end the caller's transaction halfway)."""
        if self._tx_owner is not None:
            raise TransactionConflictError("executescript is refused while a transaction is open")
        with self._use(write=True) as conn:
            if self._tx_owner is not None:
                raise TransactionConflictError("executescript is refused while a transaction is open")
            conn.execute(script)

    def last_insert_rowid(self) -> int:
        with self._use(write=False) as conn:
            return conn.last_insert_rowid()
