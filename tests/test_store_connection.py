"""The connection layer (learn.store.connection): one SQL text, `$1, $2, ...`, run as
written by SQLite (apsw) and PostgreSQL (psycopg), on real databases of both engines.

SQLite reads `$1` as a parameter named "1" and numbers parameters by first
appearance; these tests pin that `$n` is still the n-th value in any order, and
that the SQLite connection refuses a `?` or `:name` statement outright: that
refusal is what keeps SQL written for one engine only out of the store (every
store test runs on SQLite, including the SQLite-only tables and SQL built at
run time, which a text scan of the source could not follow through f-strings).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from learn.store.connection import Connection, placeholders
from learn.store.core import open_connection
from learn.store.dialects import dialect_of

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def conn(store_target: Path | str) -> Iterator[Connection]:
    c, _, _ = open_connection(store_target)
    c.execute(f"CREATE TABLE notes (id {dialect_of(c).rowid}, body TEXT, n INTEGER)")
    try:
        yield c
    finally:
        c.close()


def test_dollar_n_is_the_nth_value_whatever_the_order(conn: Connection) -> None:
    # $2 before $1 and $1 twice: a positional binding on SQLite would give (5, 'x', None).
    assert tuple(conn.execute("SELECT $2, $1, $1", (5, "x")).fetchone()) == ("x", 5, 5)
    rows = conn.query_dicts("SELECT $2 AS b, $1 AS a", ("one", "two"))
    assert rows == [{"b": "two", "a": "one"}]


def test_sql_text_reaches_the_engine_unchanged(conn: Connection) -> None:
    # A literal % needs no doubling, and a `$1` or `?` inside a quoted literal is text.
    row = conn.execute("SELECT '100%' || $1, '$1', 'why?'", ("!",)).fetchone()
    assert tuple(row) == ("100%!", "$1", "why?")
    conn.execute("INSERT INTO notes (body, n) VALUES ('50% off', $1)", (7,))
    assert conn.query_dicts("SELECT body FROM notes WHERE body LIKE '%\\%%' ESCAPE '\\'") == [
        {"body": "50% off"}]


def test_writes_report_their_changes(conn: Connection) -> None:
    assert conn.executemany("INSERT INTO notes (body, n) VALUES ($2, $1)",
                            [(1, "a"), (2, "b"), (3, "c")]) == 3
    assert conn.query_dicts("SELECT body, n FROM notes ORDER BY id") == [
        {"body": "a", "n": 1}, {"body": "b", "n": 2}, {"body": "c", "n": 3}]
    conn.execute("UPDATE notes SET n = n + $1 WHERE n >= $2", (10, 2))
    assert conn.changes() == 2
    conn.execute("INSERT INTO notes (body, n) VALUES ($1, $2)", ("d", 4))
    assert conn.last_insert_rowid() == 4
    assert conn.executemany("DELETE FROM notes WHERE n = $1", []) == 0


def test_a_numbered_in_list_follows_fixed_parameters(conn: Connection) -> None:
    conn.executemany("INSERT INTO notes (body, n) VALUES ($1, $2)",
                     [("a", 1), ("b", 2), ("a", 3), ("a", 4)])
    wanted = [1, 3, 9]
    assert placeholders(3, 2) == "$2, $3, $4"
    rows = conn.query_dicts(
        f"SELECT n FROM notes WHERE body = $1 AND n IN ({placeholders(len(wanted), 2)}) "
        "ORDER BY n", ("a", *wanted))
    assert [r["n"] for r in rows] == [1, 3]


@pytest.mark.parametrize("statement", ["SELECT ?", "SELECT :name"])
def test_other_placeholder_styles_are_refused(conn: Connection, statement: str) -> None:
    if conn.dialect == "sqlite":
        import apsw

        refused: type[Exception] = apsw.BindingsError
    else:
        import psycopg

        refused = psycopg.errors.SyntaxError
    with pytest.raises(refused):
        conn.execute(statement, (1,))
    # The connection is still usable afterwards (autocommit: nothing left half-open).
    assert tuple(conn.execute("SELECT $1", (2,)).fetchone()) == (2,)


def test_sqlite_refuses_a_question_mark_statement_and_a_count_mismatch(tmp_path: Path) -> None:
    import apsw

    c, _, _ = open_connection(tmp_path / "s.db")
    try:
        c.execute("CREATE TABLE t (a, b)")
        with pytest.raises(apsw.BindingsError, match="no name"):
            c.execute("INSERT INTO t VALUES (?, ?)", (1, 2))
        with pytest.raises(apsw.BindingsError, match="no value for parameter \\$2"):
            c.execute("INSERT INTO t VALUES ($1, $2)", (1,))
        with pytest.raises(apsw.BindingsError, match="3 values given for 2 parameters"):
            c.execute("INSERT INTO t VALUES ($1, $2)", (1, 2, 3))
        with pytest.raises(apsw.BindingsError):
            c.executemany("INSERT INTO t VALUES ($1, $2)", [(1, 2), (3,)])
        assert c.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 1  # the first row only
    finally:
        c.close()


def test_postgres_casts_pass_through(pg_url: str) -> None:
    c, _, _ = open_connection(pg_url)
    try:
        row = c.execute("SELECT $1::integer + 1, $2::text[], '[1,2]'::text", (41, ["a"])).fetchone()
        assert tuple(row) == (42, ["a"], "[1,2]")
    finally:
        c.close()


def test_help_imports_no_database_driver() -> None:
    code = ("import sys\nfrom learn.cli import main\nsys.argv = ['learn', '--help']\n"
            "try:\n    main()\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('apsw', 'psycopg', 'sqlite_vec', 'numpy') if m in sys.modules),"
            " file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env, timeout=60)
    assert "usage" in done.stdout.lower()
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_where_numbers_each_condition_after_the_ones_before() -> None:
    from learn.store.connection import where

    clause, values = where(("state IN ({})", ("a", "b")), None, ("key = {}", ("k",)))
    assert clause == "WHERE state IN ($1, $2) AND key = $3"
    assert values == ["a", "b", "k"]
    assert where(None, None) == ("", [])
