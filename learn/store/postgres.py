"""The PostgreSQL connection: psycopg 3 behind the store's Connection surface.

The store's SQL is written once, in the dialect both engines share (INSERT ...
ON CONFLICT ... RETURNING, COALESCE, CASE), with PostgreSQL's own numbered
placeholders `$1, $2, ...` (learn.store.connection), and sent as written: the
connection's cursors are psycopg RawCursors, which pass the query to the server
untouched (no `%s`, so a literal `%` needs no doubling). Transactions stay
explicit BEGIN / COMMIT / ROLLBACK statements, as on SQLite: the psycopg
connection is in autocommit mode so it never opens one of its own.

psycopg is imported when a connection is opened, never at import time, so
`learn --help` does not pay for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from learn.store.connection import Connection, Params, Rows

if TYPE_CHECKING:
    import psycopg

URL_SCHEMES = ("postgresql://", "postgres://")
# The one advisory lock learn takes: migrations and vector-table creation are
# serialised under it, so two machines opening a fresh database at once cannot
# both create the same table. (hashtext('learn.store') would do; a constant is
# simpler to find in pg_locks.)
ADVISORY_LOCK_KEY = 0x6C6561726E  # "learn"


def lock_writes(conn: Connection) -> None:
    """Inside an open transaction: wait for learn's advisory lock (released at COMMIT)."""
    conn.execute("SELECT pg_advisory_xact_lock($1)", (ADVISORY_LOCK_KEY,))


def is_database_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def redact_url(url: str) -> str:
    """The URL without its password (for messages and `self.path`): the one after the
    user name, and a `password=` parameter, which libpq reads from the query as well
    (`postgresql://ana@db/learn?password=…` printed it whole)."""
    url = re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url, flags=re.IGNORECASE)


class PgConnection:
    """A psycopg connection (RawCursor, autocommit) behind the store's Connection surface."""

    dialect = "postgresql"

    def __init__(self, raw: psycopg.Connection[Any], url: str) -> None:
        self.raw = raw
        self.url = url
        self._changes = 0

    def execute(self, statement: str, params: Params = ()) -> Rows:
        cur = self.raw.cursor()
        if not params:
            # No parameters: the simple protocol, which also runs multi-statement DDL.
            cur.execute(statement, prepare=False)
        else:
            cur.execute(statement, params)
        self._changes = max(cur.rowcount, 0)
        return cur

    def executemany(self, statement: str, seq: Iterable[Params]) -> int:
        """One statement over many parameter sets; psycopg pipelines them, so a batch
        costs about one round trip instead of one per row. Returns rows changed."""
        rows = list(seq)
        if not rows:
            self._changes = 0
            return 0
        cur = self.raw.cursor()
        cur.executemany(statement, rows)
        self._changes = max(cur.rowcount, 0)
        return self._changes

    def query_dicts(self, statement: str, params: Params = ()) -> list[dict[str, Any]]:
        from psycopg.rows import dict_row

        cur = self.raw.cursor(row_factory=dict_row)
        if not params:
            cur.execute(statement)
        else:
            cur.execute(statement, params)
        self._changes = max(cur.rowcount, 0)
        if cur.description is None:
            return []
        return list(cur.fetchall())

    def changes(self) -> int:
        return self._changes

    def last_insert_rowid(self) -> int:
        row = self.raw.execute("SELECT lastval()").fetchone()
        assert row is not None  # lastval() answers a row or raises
        return int(row[0])

    def close(self) -> None:
        self.raw.close()


# A database that accepts the connection and never answers (a half-dead proxy, a
# stalled failover) held `learn run --team` with nothing printed for as long as it
# lasted, and the run lock with it (team audit F5). So: give up connecting after
# CONNECT_TIMEOUT_S, notice a peer gone silent mid-run with TCP keepalives (idle 30 s,
# then 3 probes 10 s apart: about a minute), and let no one statement run longer than
# STATEMENT_TIMEOUT_MS. A parameter the URL sets itself (or PGCONNECT_TIMEOUT) wins.
CONNECT_TIMEOUT_S = 10
KEEPALIVES = {"keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10",
              "keepalives_count": "3"}
# Five minutes: the longest statement a team run sends takes well under a second at
# 50 people x 30,000 shared rows (benchmarks/team_run.py); a wait for a row or advisory
# lock is bounded sooner, by lock_timeout.
STATEMENT_TIMEOUT_MS = 300_000


def connect_params(url: str, *, connect_timeout_s: int | None = None) -> dict[str, str]:
    """The connection parameters learn adds to `url`: those it does not set itself.
    `connect_timeout_s` is a limit the caller insists on (`learn doctor`'s): it wins over
    the URL's and PGCONNECT_TIMEOUT, but only where it is shorter."""
    import os

    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(url)
    wanted = dict(KEEPALIVES)
    if not os.environ.get("PGCONNECT_TIMEOUT"):
        wanted["connect_timeout"] = str(CONNECT_TIMEOUT_S)
    out = {k: v for k, v in wanted.items() if k not in given}
    if connect_timeout_s is not None:
        theirs = given.get("connect_timeout") or os.environ.get("PGCONNECT_TIMEOUT")
        try:
            # libpq reads 0 (or a negative number) as "wait forever".
            shorter = theirs is None or not 0 < int(theirs) <= connect_timeout_s
        except ValueError:
            shorter = True
        if shorter:
            out["connect_timeout"] = str(int(connect_timeout_s))
    return out


def connect(url: str, *, readonly: bool = False, busy_timeout_ms: int | None = None,
            connect_timeout_s: int | None = None) -> PgConnection:
    """A psycopg connection in autocommit mode (the store issues BEGIN itself).

    busy_timeout_ms becomes lock_timeout: a writer waiting on another's row lock
    gives up after it, like SQLite's busy timeout. readonly sets the session
    read-only, so any write fails inside PostgreSQL itself. Connecting gives up after
    CONNECT_TIMEOUT_S (or the shorter `connect_timeout_s`), keepalives notice a silent
    peer, and a statement runs at most STATEMENT_TIMEOUT_MS unless the URL, the role or
    the database set a limit of their own (connect_params).
    """
    import psycopg
    from psycopg.conninfo import make_conninfo

    from learn.store.db import DEFAULT_BUSY_TIMEOUT_MS

    timeout = DEFAULT_BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
    from learn.store.db import StoreError

    try:
        # RawCursor: `$n` placeholders go to the server as written (psycopg >= 3.2).
        conninfo = make_conninfo(url, **connect_params(url, connect_timeout_s=connect_timeout_s))
        raw = psycopg.connect(conninfo, autocommit=True, cursor_factory=psycopg.RawCursor)
    except psycopg.OperationalError as exc:
        raise StoreError(f"cannot connect to {redact_url(url)}: {exc}") from exc
    try:
        raw.execute(f"SET lock_timeout = {int(timeout)}")
        # Only where no limit is set yet (0): `options=-c statement_timeout=…` in the
        # URL, or ALTER ROLE/DATABASE … SET, is the operator's choice.
        raw.execute("SELECT set_config('statement_timeout', "
                    f"'{int(STATEMENT_TIMEOUT_MS)}', false) "
                    "WHERE current_setting('statement_timeout') IN ('0', '0ms')")
        if readonly:
            raw.execute("SET default_transaction_read_only = on")
    except BaseException:
        raw.close()
        raise
    return PgConnection(raw, url)


def is_busy_error(exc: BaseException) -> bool:
    import psycopg

    return isinstance(exc, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled)


def is_constraint_error(exc: BaseException) -> bool:
    import psycopg

    return isinstance(exc, psycopg.errors.IntegrityError)


def is_permission_error(exc: BaseException) -> bool:
    import psycopg

    return isinstance(exc, psycopg.errors.InsufficientPrivilege)
