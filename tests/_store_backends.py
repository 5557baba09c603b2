"""The store's two backends for tests: a SQLite file, or a fresh PostgreSQL database.

PostgreSQL is real: LEARN_TEST_DATABASE_URL when given (a server where the user
may CREATE DATABASE), else a server started once per test session by `pgserver`
(PostgreSQL 16 + pgvector from PyPI) in a temp directory. As root, pgserver runs
postgres as a `pgserver` system user it creates (postgres refuses to run as root).
Each test gets its own database, copied from a template that already has the
vector extension (a copy is ~0.1 s; an initdb is ~8 s). If no server can be
started, PostgreSQL tests skip and say why.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

TEMPLATE = "learn_test_template"
_state: dict[str, Any] = {}
_counter = itertools.count(1)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def _start() -> str:
    given = os.environ.get("LEARN_TEST_DATABASE_URL")
    if given:
        return given
    import warnings

    with warnings.catch_warnings():
        # pgserver asks platformdirs for XDG_RUNTIME_DIR at import; unset in CI, harmless.
        warnings.simplefilter("ignore")
        import pgserver

    pgdata = Path(tempfile.mkdtemp(prefix="learn-pgtest-"))
    server = pgserver.get_server(pgdata, cleanup_mode="delete")
    _state["server"] = server  # kept alive for the session; stopped and deleted at exit
    return str(server.get_uri())


def admin_url() -> str:
    """The server's URL (started on first use); skips the test when none can start."""
    if "error" in _state:
        pytest.skip(_state["error"])
    if "url" not in _state:
        try:
            import psycopg

            url = _start()
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
                conn.execute(f"CREATE DATABASE {TEMPLATE}")
            with psycopg.connect(with_database(url, TEMPLATE), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            _state["url"] = url
        except Exception as exc:  # any failure to start means "skip, and say why"
            _state["error"] = f"PostgreSQL + pgvector unavailable (pgserver/psycopg): {exc!r}"
            pytest.skip(_state["error"])
    return str(_state["url"])


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database with pgvector, dropped after the test."""
    import psycopg

    admin = admin_url()
    name = f"learn_t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    try:
        yield with_database(admin, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a store under test lives: a SQLite file, or a fresh PostgreSQL database URL."""
    if request.param == "sqlite":
        return tmp_path / "data" / "feedback.db"
    url: str = request.getfixturevalue("pg_url")
    return url


@contextlib.contextmanager
def own_server(**settings: str) -> Iterator[tuple[str, Path]]:
    """A PostgreSQL server of the test's own (pgserver), started with `settings`
    (ALTER SYSTEM, then a reload) and password authentication (SCRAM) for every
    role but its superuser: (the superuser's URL, the server's log file). Skips
    when pgserver cannot start one (LEARN_TEST_DATABASE_URL names a server whose
    log this test cannot read)."""
    import warnings

    import psycopg

    if os.environ.get("LEARN_TEST_DATABASE_URL"):
        pytest.skip("a server of the test's own needs pgserver")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    # Directly under the temp dir, as _start's: the server runs as another user
    # when the tests run as root, and pytest's tmp_path is private to root.
    pgdata = Path(tempfile.mkdtemp(prefix="learn-pgtest-own-"))
    with pgserver.get_server(pgdata, cleanup_mode="delete") as server:
        url = str(server.get_uri())
        hba = pgdata / "pg_hba.conf"
        hba.write_text("local all postgres trust\nlocal all all scram-sha-256\n" + hba.read_text())
        with psycopg.connect(url, autocommit=True) as conn:
            for name, value in settings.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            conn.execute("SELECT pg_reload_conf()")
        for _ in range(100):  # the reload is a signal: wait until a new session sees it
            with psycopg.connect(url, autocommit=True) as conn:
                now = {n: conn.execute(f"SHOW {n}").fetchone() for n in settings}
            if all(now[n] == (v,) for n, v in settings.items()):
                break
            time.sleep(0.05)
        yield url, server.log
