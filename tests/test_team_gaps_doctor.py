"""`learn doctor` and the team database `[team] database_url` names: reachable within a
short timeout, pgvector there, learn's team schema at a version this learn reads, the
URL's role a member; the URL printed without its password, a failure as one line with
its fix, and nothing said at all when no team is configured.

Real PostgreSQL (pgserver, set up as `learn team init` sets it up) where a server is
needed; a port nobody listens on, and a socket that accepts and never answers, for the
server that is not there.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from _team_db import team_members
from click.testing import CliRunner

from learn.cli import cli
from learn.paths import config_dir
from learn.store.postgres import redact_url

PASSWORD = "s3cret-pass-word"


@pytest.fixture(autouse=True)
def _no_claude_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's own `claude` must not add lines (or time) to doctor.
    empty = tmp_path / "emptybin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)


def _configure(url: str) -> None:
    config_dir().mkdir(parents=True, exist_ok=True, mode=0o700)
    (config_dir() / "config.toml").write_text(f'[team]\ndatabase_url = "{url}"\n')


def _doctor() -> tuple[int, str, dict[str, Any]]:
    """(exit code, text output, the team check of --json or {})."""
    text = CliRunner().invoke(cli, ["doctor"], catch_exceptions=False)
    data = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    checks = {c["name"]: c for c in json.loads(data.output)["checks"]}
    return text.exit_code, text.output, checks.get("team", {})


def _team_lines(out: str) -> list[str]:
    """The team line and its hint line, if any."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line[2:].startswith("team"):
            return lines[i:i + 2] if i + 1 < len(lines) and "hint:" in lines[i + 1] else [line]
    return []


def test_without_a_team_database_doctor_says_nothing_of_a_team() -> None:
    code, out, team = _doctor()
    assert code == 0, out
    assert team == {} and _team_lines(out) == []


def test_a_members_url_is_usable_and_printed_without_its_password(pg_url: str) -> None:
    members = team_members(pg_url, "ana")
    url = members["ana"][1]
    password = psycopg.conninfo.conninfo_to_dict(url)["password"]
    assert password and password in url
    _configure(url)
    code, out, team = _doctor()
    assert team["status"] == "ok", team
    assert redact_url(url) in team["detail"] and password not in out
    for said in ("PostgreSQL 1", "pgvector 0.", "schema as this learn reads it",
                 "member 'ana'"):
        assert said in team["detail"], said
    assert code == 0, out


def test_a_server_nobody_answers_on_fails_in_one_line_with_its_fix() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    # Closed again: nothing listens on the port.
    _configure(f"postgresql://ana:{PASSWORD}@127.0.0.1:{port}/learn?sslmode=disable")
    code, out, team = _doctor()
    assert code == 1
    assert team["status"] == "fail" and "cannot connect to" in team["detail"]
    assert "\n" not in team["detail"] and "[team] database_url" in team["hint"]
    assert PASSWORD not in out and "ana:***@127.0.0.1" in out
    assert len(_team_lines(out)) == 2  # the line and its fix


def test_a_server_that_never_answers_holds_doctor_for_seconds_not_minutes() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(5)  # the kernel accepts; nothing ever answers
    try:
        # A URL that would wait a minute: doctor's own limit is the shorter.
        _configure(f"postgresql://ana:{PASSWORD}@127.0.0.1:{silent.getsockname()[1]}/learn"
                   "?sslmode=disable&connect_timeout=60")
        started = time.monotonic()
        result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
        took = time.monotonic() - started
    finally:
        silent.close()
    team = {c["name"]: c for c in json.loads(result.output)["checks"]}["team"]
    assert team["status"] == "fail" and PASSWORD not in result.output
    assert took < 10, took  # DOCTOR_CONNECT_TIMEOUT_S is 3


def test_a_database_with_no_team_yet_names_the_admins_init(pg_url: str) -> None:
    _configure(pg_url)  # pgvector is there (the test template has it), learn's schema is not
    code, _, team = _doctor()
    assert code == 1
    assert team["status"] == "fail" and "no learn team here yet" in team["detail"]
    assert "learn team init" in team["hint"]


def test_a_database_without_pgvector_created_says_it_is_available(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP EXTENSION vector")
    _configure(pg_url)
    _, _, team = _doctor()
    assert team["status"] == "fail" and "pgvector available" in team["detail"]


def test_a_schema_a_newer_learn_migrated_says_upgrade(pg_url: str) -> None:
    members = team_members(pg_url, "ana")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("INSERT INTO _migrations (name, applied_at) VALUES "
                      "('9999_from_the_future', '2099-01-01')")
    _configure(members["ana"][1])
    code, _, team = _doctor()
    assert code == 1
    assert team["status"] == "fail" and "newer than this learn" in team["detail"]
    assert "upgrade learn" in team["hint"]


def test_a_schema_missing_a_step_asks_the_admin_to_migrate(pg_url: str) -> None:
    members = team_members(pg_url, "ana")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DELETE FROM _migrations WHERE name = (SELECT max(name) FROM _migrations)")
    _configure(members["ana"][1])
    _, _, team = _doctor()
    assert team["status"] == "fail" and "older than this learn" in team["detail"]
    assert "learn team init" in team["hint"]


def test_the_admins_url_in_the_team_section_is_refused_with_the_fix(pg_url: str) -> None:
    team_members(pg_url, "ana")
    _configure(pg_url)  # the superuser that set the team up
    code, _, team = _doctor()
    assert code == 1
    assert team["status"] == "fail" and "superuser" in team["detail"]
    assert "member URL" in team["hint"]


def test_a_role_that_is_not_a_member_is_told_which_url_to_use(pg_url: str) -> None:
    team_members(pg_url, "ana")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE stranger LOGIN PASSWORD '{PASSWORD}'")
        db = admin.execute("SELECT current_database()").fetchone()
        assert db is not None
        admin.execute(f'GRANT CONNECT ON DATABASE "{db[0]}" TO stranger')
    url = psycopg.conninfo.make_conninfo(pg_url, user="stranger", password=PASSWORD)
    params = psycopg.conninfo.conninfo_to_dict(url)
    # Back to a URL (the config holds one); the socket directory goes in the query.
    stranger = (f"postgresql://stranger:{PASSWORD}@/{params['dbname']}"
                f"?host={params.get('host', '')}&port={params.get('port', '5432')}")
    _configure(stranger)
    _, out, team = _doctor()
    assert team["status"] == "fail" and "not a member" in team["detail"], team
    assert PASSWORD not in out


def test_a_password_in_the_query_is_redacted_too() -> None:
    assert redact_url("postgresql://ana@db/learn?sslmode=require&password=hunter2x") \
        == "postgresql://ana@db/learn?sslmode=require&password=***"
    assert redact_url("postgresql://ana:hunter2x@db/learn") == "postgresql://ana:***@db/learn"
