"""Opening the database: apsw (so extensions load everywhere), sqlite-vec, pragmas, modes.

The stdlib sqlite3 of many Python builds cannot load extensions (every pyenv
build 3.6-3.13 on the dev box lacks enable_load_extension), so learn talks to
SQLite through apsw, which ships its own current SQLite and loads sqlite-vec
with pip alone. apsw is autocommit and not DB-API: transactions are explicit
BEGIN IMMEDIATE / COMMIT here. SqliteConnection is the apsw connection behind the
store's Connection surface (learn.store.connection): it binds `$1, $2, ...` by
name, so the SQL written for PostgreSQL runs here unchanged.

Everything in the database is an excerpt of what the user typed, so the file is
created 0600 before SQLite touches it (SQLite gives -wal and -shm the mode of the
main file) and its directory 0700.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learn import osflags
from learn.paths import data_dir, ensure_private_dir
from learn.store.connection import Params, Rows

if TYPE_CHECKING:
    import apsw

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


class MigrationsPendingError(SchemaMismatchError):
    """A learn store an older learn wrote, opened read-only: opening it writable migrates it."""


class StoreBusyError(StoreError):
    """Another process held the database lock for longer than the busy timeout."""


class StoreFullError(StoreError):
    """The disk holding the database is full: a write, or the WAL index it needs, failed.

    SQLite says SQLITE_FULL for a page it cannot write, but an -shm it cannot grow
    is SQLITE_IOERR_SHMSIZE, "disk I/O error", which the store's checks took for a
    damaged file and answered "move learn.db aside" (measured on a 360 KB tmpfs).
    Nothing is lost: the transaction that failed is rolled back, the ones before stay.
    """


class StoreClosedError(sqlite3.ProgrammingError):
    """The store was closed; like using a closed sqlite3.Connection."""


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _precreate_private(path: Path) -> None:
    # A missing directory is created 0700, and learn's own data dir is tightened;
    # an existing directory the user pointed us at (say ~ for --store ~/learn.db)
    # is theirs, and chmod-ing it would be a surprise.
    if not path.parent.exists() or path.parent.resolve() == data_dir().resolve():
        ensure_private_dir(path.parent)
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | osflags.BINARY, 0o600)
        os.close(fd)
    # Tighten a file someone else created (0644 under a default umask); we own it.
    # Only a regular file, and through a link only a database (or nothing yet): a
    # directory named learn.db was made 0600, its contents unreachable, and a link to
    # ~/notes.txt took the notes' mode, before SQLite refused either.
    _refuse_unless_file(path)
    if not path.is_symlink() or _holds_a_database(path):
        _private(path)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            _refuse_unless_file(side)
            _private(side)


def _private(path: Path) -> None:
    """Group and others lose every bit; the owner's stay as they are. A chmod to 0600 made
    a store its owner had set read-only (0444) writable, and the run wrote it."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)


def _refuse_unless_file(path: Path) -> None:
    """SQLite's "cannot open" when `path` (its links followed) is a directory, a FIFO, a
    device: SQLite would try some of them, and nothing of learn's is kept in one."""
    if not stat.S_ISREG(path.stat().st_mode):
        import apsw

        raise apsw.CantOpenError(f"{path} is not a file")


def _holds_a_database(path: Path) -> bool:
    """Empty (just created) or a SQLite database by its header, as a store linked from
    another disk is."""
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError:
        return False
    return head in (b"", _SQLITE_MAGIC)


def load_vec(conn: apsw.Connection) -> None:
    conn.enable_load_extension(True)
    try:
        conn.load_extension(_vec_extension())
    finally:
        conn.enable_load_extension(False)


def _vec_extension() -> str:
    """The sqlite-vec loadable extension (`sqlite_vec.loadable_path()`), found without
    importing the package: its __init__ imports numpy for a helper learn never calls,
    ~0.4 s of every command that opens the store (issue 32)."""
    import importlib.util

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("sqlite_vec is not installed")
    return os.path.join(os.path.dirname(spec.origin), "vec0")


# "1", "2", ...: the names SQLite gives `$1`, `$2`; precomputed: a dict of 11
# values built by zip() over them took 0.67 us here, with str(i) per value 1.0 us.
_NAMES = tuple(str(i) for i in range(1, 1001))


def _by_name(params: Params) -> dict[str, Any]:
    """{"1": params[0], "2": params[1], ...}: `$n` is the n-th value in any order."""
    if len(params) <= len(_NAMES):
        return dict(zip(_NAMES, params, strict=False))
    return {str(i): v for i, v in enumerate(params, 1)}


def _raise_if_full(raw: apsw.Connection, exc: BaseException) -> None:
    """StoreFullError (from `exc`) when `exc` says the disk is full: SQLITE_FULL, or an
    I/O error whose errno is ENOSPC (an -shm that could not grow)."""
    import apsw

    if isinstance(exc, apsw.FullError):
        raise StoreFullError(f"{raw.filename}: the disk is full") from exc
    if isinstance(exc, apsw.IOError) and raw.system_errno == errno.ENOSPC:
        raise StoreFullError(f"{raw.filename}: the disk is full ({exc})") from exc


def _check_count(cursor: apsw.Cursor, statement: str, bindings: object) -> bool:
    """apsw exec tracer: a statement given more values than it has `$n` fails, as a
    `?` statement did (named binding alone would ignore the extra ones)."""
    del statement
    if isinstance(bindings, dict) and len(bindings) != cursor.bindings_count:
        import apsw

        raise apsw.BindingsError(
            f"{len(bindings)} values given for {cursor.bindings_count} parameters"
        )
    return True


class SqliteConnection:
    """An apsw connection behind the store's Connection surface (learn.store.connection).

    Binds by name: SQLite numbers `$n` parameters by first appearance, so a
    sequence bound by position would put values in the wrong place as soon as
    `$2` appears before `$1`. A `?` statement is refused ("has no name"), so SQL
    written for one engine only cannot slip in.
    """

    dialect = "sqlite"

    def __init__(self, raw: apsw.Connection) -> None:
        self.raw = raw
        raw.exec_trace = _check_count

    def execute(self, statement: str, params: Params = ()) -> Rows:
        try:
            if not params:
                return self.raw.execute(statement)
            return self.raw.execute(statement, _by_name(params))
        except KeyError as exc:
            raise _missing(exc, len(params)) from None
        except Exception as exc:
            _raise_if_full(self.raw, exc)
            raise

    def executemany(self, statement: str, seq: Iterable[Params]) -> int:
        # apsw's own executemany: 2.0 us a row for an 11-column insert against 2.5
        # for a loop of execute(). The change count comes from total_changes, which
        # equals the sum of changes() as the store has no triggers.
        before = self.raw.total_changes()
        try:
            self.raw.executemany(statement, (_by_name(p) for p in seq))
        except KeyError as exc:
            raise _missing(exc, None) from None
        except Exception as exc:
            _raise_if_full(self.raw, exc)
            raise
        return self.raw.total_changes() - before

    def query_dicts(self, statement: str, params: Params = ()) -> list[dict[str, Any]]:
        cur = self.raw.cursor()
        cur.row_trace = rows_as_dicts
        try:
            if not params:
                return list(cur.execute(statement))
            return list(cur.execute(statement, _by_name(params)))
        except KeyError as exc:
            raise _missing(exc, len(params)) from None
        except Exception as exc:
            _raise_if_full(self.raw, exc)
            raise

    def changes(self) -> int:
        return self.raw.changes()

    def last_insert_rowid(self) -> int:
        return self.raw.last_insert_rowid()

    def close(self) -> None:
        self.raw.close()

    # SQLite only (a local table's short transaction): apsw's savepoint block.
    def __enter__(self) -> SqliteConnection:
        self.raw.__enter__()
        return self

    def __exit__(self, *exc: Any) -> bool | None:
        return self.raw.__exit__(*exc)


def _missing(exc: KeyError, given: int | None) -> Exception:
    """apsw's KeyError for a `$n` with no value (or a `:name`), as a binding error."""
    import apsw

    name = str(exc.args[0])
    count = "" if given is None else f" ({given} given)"
    shown = f"${name}" if name.isdigit() else repr(name)  # `:name` is not a store placeholder
    return apsw.BindingsError(f"no value for parameter {shown}{count}")


def connect(
    path: Path,
    *,
    readonly: bool = False,
    busy_timeout_ms: int | None = None,
    extensions: Sequence[str] = (),
    vectors: bool = True,
) -> SqliteConnection:
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
            _set_wal(conn, timeout)
            conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException as exc:
        try:
            _raise_if_full(conn, exc)
        finally:
            conn.close()
        raise
    return SqliteConnection(conn)


def _set_wal(conn: apsw.Connection, timeout_ms: int) -> None:
    """PRAGMA journal_mode = WAL, waiting out another process's lock for the busy timeout.

    Switching a new file to WAL needs its exclusive lock, and SQLite answers BUSY
    at once rather than call the busy handler when waiting could deadlock: two
    processes opening a fresh store together (a hook worker and `learn run`) made
    one of them fail with "database is locked" (tests/test_store_process.py, once
    in a full suite). The other one finishes its switch in milliseconds.
    """
    import apsw

    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except apsw.BusyError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def rows_as_dicts(cursor: apsw.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    """apsw row tracer: rows come back as {column: value}."""
    return {d[0]: v for d, v in zip(cursor.get_description(), row, strict=True)}
