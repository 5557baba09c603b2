"""The connection layer's one surface: what the store calls on a database connection.

Two classes implement it: learn.store.db.SqliteConnection (apsw + sqlite-vec) and
learn.store.postgres.PgConnection (psycopg 3). The store is typed against
Connection, never against either driver.

SQL is written once, with numbered placeholders `$1, $2, ...`, and sent to both
engines as written: nothing rewrites SQL text. PostgreSQL reads `$n` natively
(psycopg's RawCursor passes the query through untouched, so a literal `%` and a
`::` cast need nothing). SQLite reads `$1` as a parameter NAMED "1" and numbers
named parameters by first appearance, so `SELECT $2, $1` given (5, 'x') as a
sequence would answer (5, 'x'); SqliteConnection therefore binds by name,
{"1": 5, "2": "x"}, and `$n` is the n-th value on both engines whatever the
order, and a reused `$1` is one value.

Params are a sequence: `$n` is params[n - 1]. A `?` or `:name` placeholder is
refused by both engines (SQLite: binding by name leaves a `?` nothing to bind).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

Params = Sequence[Any]


class Rows(Protocol):
    """What execute() returns: apsw's and psycopg's cursors both are this."""

    def fetchone(self) -> Any:
        """The next row (a tuple), or None. Any, so a caller unpacks a row it knows exists."""
        ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """One open connection to the store's database, on either engine.

    Transactions are explicit statements (BEGIN [IMMEDIATE] / COMMIT / ROLLBACK)
    on both: each connection is in autocommit mode and never opens one itself.
    """

    @property
    def dialect(self) -> str:
        """'sqlite' or 'postgresql'."""
        ...

    def execute(self, statement: str, params: Params = ()) -> Rows:
        """Run one statement (several when there are no params: a DDL script)."""
        ...

    def executemany(self, statement: str, seq: Iterable[Params]) -> int:
        """One statement over many parameter sets; the number of rows changed."""
        ...

    def query_dicts(self, statement: str, params: Params = ()) -> list[dict[str, Any]]:
        """The rows of one statement as {column: value}."""
        ...

    def changes(self) -> int:
        """Rows changed by the last execute()."""
        ...

    def last_insert_rowid(self) -> int: ...

    def close(self) -> None: ...


def rollback(conn: Connection) -> None:
    """ROLLBACK after a failed transaction, never raising over the error that failed it.

    SQLite ends a transaction itself on some errors (SQLITE_FULL at COMMIT, an I/O
    error), and the ROLLBACK that followed failed "cannot rollback - no transaction
    is active": that was what a full disk said (measured on a 400 KB tmpfs). On
    PostgreSQL a ROLLBACK fails only when the connection is gone, which the error
    in flight says better.
    """
    with contextlib.suppress(Exception):
        conn.execute("ROLLBACK")


def placeholders(n: int, start: int = 1) -> str:
    """`$start, $start+1, ...` for n values: the marks of a VALUES row or an IN list
    built at run time (start is the number of the first, after any fixed ones)."""
    return ", ".join(f"${i}" for i in range(start, start + n))


def where(*conditions: tuple[str, Sequence[Any]] | None) -> tuple[str, list[Any]]:
    """`WHERE a AND b ...` and its values, numbered from $1, from (condition, values)
    pairs whose condition holds `{}` where its values' marks go (`"kind = {}"`,
    `"state IN ({})"`); a None condition is left out, and no condition gives ""."""
    parts: list[str] = []
    values: list[Any] = []
    for cond in conditions:
        if cond is None:
            continue
        sql, vals = cond
        parts.append(sql.format(placeholders(len(vals), len(values) + 1)))
        values.extend(vals)
    return (f"WHERE {' AND '.join(parts)}" if parts else ""), values
