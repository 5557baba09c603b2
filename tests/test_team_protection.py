"""The team store protects each person, on a real PostgreSQL (pgserver) set up by
`learn team init`: four people (four database roles) share one repository cloned
four ways and are counted as one; a team run stores no path or credential and no
verdict restating a quote; `learn share --forget` removes every trace of one
person and nothing of the others; no member can delete, alter or forge another's
rows, through learn or through psycopg with their own role, nor change the schema.
The model is the gold oracle behind the fake Messages server on 127.0.0.1."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer

from evals.builder import ClaudeSession
from evals.gold import Gold
from evals.oracle import responder
from learn.cli import cli
from learn.config import Config, config_path
from learn.models.anthropic_backend import AnthropicBackend
from learn.records.proposal import RunResult
from learn.reduce.team import run_team, strip_quotes
from learn.store import FeedbackStore
from learn.store.runs import default_store_path
from learn.store.scan_tables import CandidateRow, ScannedSession, ScanTables

TOKEN = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
REPO = "github.com/team/app"
CLONES = {  # one repository, four ways
    "ana": "git@github.com:team/app.git",
    "bo": "https://github.com/Team/App.git/",
    "cy": "ssh://git@github.com/team/app.git",
    "dora": f"https://dora:{TOKEN}@github.com/team/app",
}
SHOWN = {"cy", "dora"}  # chose [team] show_name = true
STAGING, CHANGELOG, NODE = "use-staging-database", "write-changelog-entries", "node-version"
PRS = "keep-pull-requests-small"  # said by ana and bo only
SAID: dict[str, list[tuple[str, str]]] = {
    "ana": [(STAGING, "run the migrations against the staging database, never prod"),
            (CHANGELOG, "every user facing change needs a changelog entry"),
            (PRS, "keep each pull request small and focused")],
    "bo": [(STAGING, "point the seed script at the staging database and not prod"),
           (PRS, "split this into small pull requests please")],
    "cy": [(STAGING, "tests go to the staging database please, never to prod")],
    "dora": [(STAGING, "only ever the staging database for scripts, prod is off limits"),
             (CHANGELOG, "add a changelog line for anything users will notice")],
}
DORA_FIX = ("npm test", "nvm use 20")  # failed then passed; the step that fixed it


def _gold() -> Gold:
    gold = Gold(corpus="team-protection")
    # The judge's rule restates ana's quote word for word: the team must not keep that.
    gold.group(STAGING, "directive", "Run the migrations against the staging database, never prod.")
    gold.group(CHANGELOG, "directive", "Add a changelog entry with every user-facing change.")
    gold.group(NODE, "fix", "Use node 20 (nvm use 20) before running the tests.")
    gold.group(PRS, "directive", "Keep pull requests small and focused on one change.",
               coverage="restated")
    for lines in SAID.values():
        for group, text in lines:
            gold.said("s", text, group)
    gold.said("s", DORA_FIX[0], NODE, command=DORA_FIX[0])
    return gold


def _session_id(person: str, i: int) -> str:
    return f"0000000{i}-{person}-raw-session-id"


def _person(tmp: Path, name: str, url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's machine: HOME, a clone of the repository, a local store with what
    they said (verified), a config naming the team database with their role."""
    home = tmp / name
    monkeypatch.setenv("HOME", str(home))
    app = home / "code" / "app"
    app.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(app)], check=True)
    subprocess.run(["git", "-C", str(app), "remote", "add", "origin", CLONES[name]], check=True)
    (app / "CLAUDE.md").write_text("- Keep pull requests small.\n")
    with FeedbackStore.open(default_store_path()) as s:
        t = ScanTables(s)
        for i, (_, text) in enumerate(SAID[name]):
            sid = _session_id(name, i)
            t.replace_session_candidates(sid, [CandidateRow(
                sid, "directive", text, project=str(app),
                occurred_at=f"2026-11-0{i + 1}T09:00:00+00:00")])
        if name == "dora":
            sid = _session_id(name, 9)
            s_ = ClaudeSession(sid, str(app), datetime(2026, 11, 5, 9, tzinfo=UTC))
            s_.user("tests fail here")
            s_.tool("Bash", {"command": DORA_FIX[0]}, "node 18 unsupported", is_error=True)
            s_.tool("Bash", {"command": DORA_FIX[1]}, "Now using node v20")
            s_.tool("Bash", {"command": DORA_FIX[0]}, "ok")
            path = s_.write(home / ".claude")
            t.record_session(ScannedSession(sid, "claude", str(app), str(path), "h", None, 1,
                                            "2026-11-05T10:00:00+00:00"))
            t.replace_session_candidates(sid, [CandidateRow(
                sid, "fix", "Switched to node 20 and the suite passed", project=str(app),
                occurred_at="2026-11-05T09:00:00+00:00",
                payload={"command": DORA_FIX[0], "intervening_commands": [DORA_FIX[1]],
                         "error_excerpt": "node 18 unsupported"})])
    cfg = config_path()
    cfg.parent.mkdir(parents=True, exist_ok=True)
    # A stale author id in the config: the database role decides who this is.
    cfg.write_text(f'[team]\ndatabase_url = "{url}"\nauthor = "ana"\nprojects = ["{app}"]\n'
                   f"show_name = {'true' if name in SHOWN else 'false'}\n")
    return app


def _learn(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _text_values(url: str) -> list[tuple[str, str, str]]:
    """(table, column, value) of every text-like column of every table, read as admin."""
    import psycopg

    out: list[tuple[str, str, str]] = []
    with psycopg.connect(url) as conn:
        cols = conn.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c "
            "JOIN information_schema.tables t ON t.table_name = c.table_name "
            "AND t.table_schema = c.table_schema WHERE c.table_schema = 'public' "
            "AND t.table_type = 'BASE TABLE' "
            "AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea')").fetchall()
        for table, col in cols:
            for (value,) in conn.execute(f'SELECT "{col}"::text FROM "{table}"'):
                if value is not None:
                    out.append((table, col, value))
    return out


def _run(url: str, root: Path, fake: FakeAnthropicServer) -> RunResult:
    config = Config()
    config.team.database_url = url
    return run_team(root, REPO, config, embedder="tfidf",
                    backend=AnthropicBackend(api_key="k", base_url=fake.base_url))


def test_four_people_one_repository_forget_and_each_protected_by_postgresql(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:

    from _team_db import printed_urls, roles

    init = _learn("team", "init", "--admin-url", pg_url, *[f"--member={n}" for n in CLONES])
    urls = printed_urls(init)
    assert set(urls) == set(CLONES)
    role = roles(pg_url)
    apps = {name: _person(tmp_path, name, urls[name], monkeypatch) for name in CLONES}
    for name, app in apps.items():
        monkeypatch.setenv("HOME", str(tmp_path / name))
        assert f"of {REPO} as {name}" in _learn("share", "--project", str(app))

    with FeedbackStore.open(pg_url) as admin:
        assert admin.sql("SELECT DISTINCT project_remote FROM team_candidates") == [
            {"project_remote": REPO}]
        assert admin.sql("SELECT quote, evidence FROM team_candidates WHERE kind = 'fix'") == [
            {"quote": DORA_FIX[0], "evidence": f'["{DORA_FIX[1]}"]'}]

    _assert_members_cannot_touch_each_other(urls, role, apps, tmp_path, monkeypatch)

    answer = responder(_gold())
    with FakeAnthropicServer(responder=lambda req: answer(req.body)) as fake:
        # A member (not the admin) runs the team run: under row-level security.
        first = _run(urls["ana"], apps["ana"], fake)
        got = {p.label: p for p in first.proposals}
        assert (got[STAGING].people, got[STAGING].sessions) == (4, 4)
        assert (got[CHANGELOG].people, got[CHANGELOG].sessions) == (2, 2)
        assert (got[PRS].people, got[PRS].sessions) == (2, 2)
        # covered by the repository's CLAUDE.md, named relative to the repository
        assert (got[PRS].status, got[PRS].existing_rule_file) == ("restated", "CLAUDE.md")
        assert got[STAGING].authors == ("cy", "dora")  # only those who chose to be named
        assert NODE not in got  # one person's fix

        values = _text_values(pg_url)
        quotes = [text for lines in SAID.values() for _, text in lines]
        for table, col, value in values:
            assert str(tmp_path) not in value and "/home/" not in value, (table, col)
            assert TOKEN not in value and "@github.com" not in value, (table, col)
            assert "raw-session-id" not in value, (table, col)
            assert "Switched to node 20" not in value, (table, col)
        # The verdict kept for the team does not restate a quote (the oracle's rule did).
        for table, col, value in values:
            if (table, col) in {("verdicts", "summary"), ("verdicts", "rationale"),
                                ("feedback_events", "text"),
                                ("verdict_evidence", "evidence_text")}:
                assert strip_quotes(value, quotes) == value, (table, col, value)
        with FeedbackStore.open(pg_url) as admin:
            kept = admin.sql("SELECT summary FROM verdicts WHERE dedup_key = $1",
                             (f"directive:{STAGING}",))
            # the oracle's rule was ana's words: the label stands in for it
            assert kept == [{"summary": "use staging database"}]
            dora = (role["dora"],)
            dora_hashes = {r["text_hash"] for r in admin.sql(
                "SELECT text_hash FROM team_candidates WHERE author = $1", dora)}
            others = admin.sql("SELECT author, kind, quote, session_hash FROM team_candidates "
                               "WHERE author <> $1 ORDER BY author, quote", dora)
            other_cache = admin.sql("SELECT text_hash FROM embedding_cache WHERE text_hash "
                                    "IN (SELECT text_hash FROM team_candidates "
                                    "WHERE author <> $1) ORDER BY text_hash", dora)
            assert len(other_cache) == 6
            examples_before = admin.sql("SELECT COUNT(*) AS n FROM label_examples")[0]["n"]
            assert admin.sql("SELECT COUNT(*) AS n FROM embedding_cache WHERE text_hash IN "
                             "(SELECT text_hash FROM team_candidates WHERE author = $1)", dora
                             )[0]["n"] == 3

        # dora forgets (with a config naming ana as author: her role decides).
        monkeypatch.setenv("HOME", str(tmp_path / "dora"))
        assert "forgot 3 shared candidates of dora" in _learn("share", "--forget")
        with FeedbackStore.open(pg_url) as admin:
            assert admin.sql("SELECT author, kind, quote, session_hash FROM team_candidates "
                             "ORDER BY author, quote") == others
            assert admin.sql("SELECT text_hash FROM embedding_cache WHERE text_hash "
                             "IN (SELECT text_hash FROM team_candidates) ORDER BY text_hash"
                             ) == other_cache
            hashes = ", ".join(f"'{h}'" for h in dora_hashes)
            for table in ("embedding_cache", "name_cache"):
                assert admin.sql(f"SELECT COUNT(*) AS n FROM {table} WHERE text_hash IN "
                                 f"({hashes})")[0]["n"] == 0, table
            # her label examples and their vectors are gone, the others' stay
            left = admin.sql("SELECT COUNT(*) AS n FROM label_examples")[0]["n"]
            assert 0 < left < examples_before
            owners = {"label": "label_examples", "evidence": "verdict_evidence"}
            tables = admin.sql("SELECT purpose, table_name FROM vector_tables")
            assert {t["purpose"] for t in tables} == set(owners)
            for t in tables:  # no vector outlives the row it belongs to
                ids = {r["id"] for r in admin.sql(f"SELECT id FROM {t['table_name']}")}
                assert ids == {r["id"] for r in admin.sql(
                    f"SELECT id FROM {owners[t['purpose']]}")}, t
            # verdicts her words went into are dropped (judged again next run), not others
            assert admin.sql("SELECT dedup_key FROM feedback_events ORDER BY dedup_key") == [
                {"dedup_key": f"directive:{PRS}"}]
        every = "\n".join(v for _, _, v in _text_values(pg_url))
        for _, text in SAID["dora"]:
            assert text not in every
        for trace in ("nvm use 20", '"dora"', "'dora'", *dora_hashes):
            assert trace not in every, trace
        # she is still a member (her role is listed there, and only there)
        assert {t for t, _, v in _text_values(pg_url) if role["dora"] in v} == {"team_members"}

        # The next team run reflects it: three people, and no changelog proposal; the
        # verdict of what only others said is reused as it was.
        with FeedbackStore.open(pg_url) as admin:
            prs_verdict = admin.sql("SELECT * FROM verdicts WHERE dedup_key = $1",
                                    (f"directive:{PRS}",))
        after = {p.label: p for p in _run(urls["bo"], apps["bo"], fake).proposals}
        with FeedbackStore.open(pg_url) as admin:
            assert admin.sql("SELECT * FROM verdicts WHERE dedup_key = $1",
                             (f"directive:{PRS}",)) == prs_verdict != []
        assert set(after) == {STAGING, PRS}
        assert (after[STAGING].people, after[STAGING].authors) == (3, ("cy",))


def _assert_members_cannot_touch_each_other(
    urls: dict[str, str], role: dict[str, str], apps: dict[str, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg
    from psycopg import errors

    def count(sql: str) -> int:
        with psycopg.connect(urls["ana"], autocommit=True) as ana:
            row = ana.execute(sql).fetchone()
            assert row is not None
            return int(row[0])

    ana_rows = count("SELECT COUNT(*) FROM team_candidates")
    assert ana_rows == 3
    with psycopg.connect(urls["bo"], autocommit=True) as bo:
        # bo sees and can change only his own rows in the table...
        ana, bo_ = role["ana"], role["bo"]
        assert bo.execute("SELECT DISTINCT author FROM team_candidates").fetchall() == [(bo_,)]
        assert bo.execute(f"DELETE FROM team_candidates WHERE author = '{ana}'").rowcount == 0
        assert bo.execute(f"UPDATE team_candidates SET quote = 'x' WHERE author <> '{bo_}'"
                          ).rowcount == 0
        # ...reads everyone's through team_shared, named only where they chose it...
        names = {r[0] for r in bo.execute("SELECT DISTINCT name FROM team_shared")}
        assert names == {None, "cy", "dora"}
        assert len({r[0] for r in bo.execute("SELECT person FROM team_shared")}) == 4
        # ...and cannot forge, drop, alter, create, read the salt or become someone else.
        refused = [
            "INSERT INTO team_candidates (author, session_hash, kind, quote, text_hash, "
            f"project_remote, shared_at) VALUES ('{ana}', 'h', 'directive', 'forged', 'h', 'r', 't')",
            f"UPDATE team_candidates SET author = '{ana}' WHERE author = '{bo_}'",
            "DROP TABLE team_candidates",
            "ALTER TABLE team_candidates DISABLE ROW LEVEL SECURITY",
            "ALTER TABLE verdicts ADD COLUMN x TEXT",
            "DROP VIEW team_shared",
            "CREATE TABLE mine (x INTEGER)",
            "SELECT salt FROM team_settings",
            "DROP FUNCTION learn_vector_table(text, text, integer, text[])",
            "TRUNCATE team_candidates",
            "UPDATE vector_tables SET table_name = 'team_candidates'",
            "INSERT INTO vector_tables VALUES ('label', 'x', 3, 'team_settings')",
            f"SET ROLE {ana}",
            "SELECT * FROM team_members",
        ]
        for sql in refused:
            with pytest.raises(errors.Error):
                bo.execute(sql)
    assert count("SELECT COUNT(*) FROM team_candidates") == ana_rows
    assert count("SELECT COUNT(*) FROM team_candidates WHERE quote = 'x'") == 0
    # Through learn: bo's `learn share --forget` with ana's name in his config.
    monkeypatch.setenv("HOME", str(tmp_path / "bo"))
    assert 'author = "ana"' in config_path().read_text()
    assert "forgot 2 shared candidates of bo" in _learn("share", "--forget")
    assert "as bo" in _learn("share", "--project", str(apps["bo"]))
    assert count("SELECT COUNT(*) FROM team_candidates") == ana_rows


def test_strip_quotes_cuts_runs_of_a_quote_and_keeps_the_rest() -> None:
    quotes = ["run the migrations against the staging database, never prod", "use bun"]
    assert strip_quotes("Run the migrations against the Staging Database before deploys.",
                        quotes) == "… before deploys."
    # shared short phrases are not a restatement; a whole short quote is
    assert strip_quotes("Point scripts at the staging database.", quotes) == (
        "Point scripts at the staging database.")
    assert strip_quotes("Always use bun here.", quotes) == "Always … here."
    assert strip_quotes("", quotes) == ""


def test_team_init_refuses_a_bad_member_name_and_a_sqlite_target(pg_url: str) -> None:
    from _team_db import roles

    for name in ("", "two\nlines", "x" * 65):
        bad = CliRunner().invoke(cli, ["team", "init", "--admin-url", pg_url, "--member", name])
        assert bad.exit_code == 2 and "not a usable member name" in bad.output
    # A name is data, never SQL: quotes and all, it is the name, and the role is opaque.
    odd = _learn("team", "init", "--admin-url", pg_url, "--member", "Robert'); --")
    (role,) = roles(pg_url).values()
    assert roles(pg_url) == {"Robert'); --": role} and re.fullmatch(r"learn_m_[0-9a-f]{12}", role)
    assert f"# Robert'); --: member role {role}," in odd
    sqlite = CliRunner().invoke(cli, ["team", "init", "--admin-url", "/tmp/x.db"])
    assert sqlite.exit_code == 2 and "PostgreSQL" in sqlite.output



def test_a_member_of_one_team_cannot_open_another_teams_database(pg_url: str) -> None:
    """Roles are cluster-wide: each database has its own team role, and PUBLIC may
    not connect, so a member of one team is refused by another team's database. A
    person on two teams has a role (and a password) per team: nothing links them."""
    import psycopg
    from _store_backends import admin_url, with_database
    from _team_db import printed_urls, roles, team_database

    other = with_database(admin_url(), "learn_other_team_db")
    with psycopg.connect(admin_url(), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS learn_other_team_db WITH (FORCE)")
        conn.execute("CREATE DATABASE learn_other_team_db TEMPLATE learn_test_template")
    try:
        ours = team_database(pg_url, "eve")
        theirs = team_database(other, "fay")
        with psycopg.connect(ours["eve"]) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (roles(pg_url)["eve"],)
        with pytest.raises(psycopg.OperationalError, match="permission denied"):
            psycopg.connect(with_database(ours["eve"], "learn_other_team_db")).close()
        added = printed_urls(_learn("team", "add-member", "--admin-url", other, "eve"))
        assert roles(other)["eve"] != roles(pg_url)["eve"]
        with psycopg.connect(added["eve"]) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (roles(other)["eve"],)
        with pytest.raises(psycopg.OperationalError, match="permission denied"):
            psycopg.connect(with_database(ours["eve"], "learn_other_team_db")).close()
        # added again: already a member, the same role, the password unchanged
        again = _learn("team", "add-member", "--admin-url", other, "eve")
        assert "already a member" in again and "database_url" not in again
        assert theirs
    finally:
        with psycopg.connect(admin_url(), autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS learn_other_team_db WITH (FORCE)")


def test_a_member_cannot_migrate_the_team_schema_and_is_told_who_can(
    pg_url: str, tmp_path: Path
) -> None:
    from _team_db import team_database

    from learn.store.db import SchemaMismatchError

    urls = team_database(pg_url, "gus")
    # init again (a newer learn, another member): the same database, nothing lost
    again = _learn("team", "init", "--admin-url", pg_url, "--member", "hal")
    assert 'database_url = "postgresql://learn_m_' in again and "# hal: member role" in again
    import psycopg

    with psycopg.connect(urls["gus"]) as conn:
        assert conn.execute("SELECT name FROM team_me").fetchone() == ("gus",)
    with FeedbackStore.open(pg_url) as admin:  # as if a newer learn had a step to apply
        admin.execute("DELETE FROM _migrations WHERE name = '0014_team_protection'")
    with pytest.raises(SchemaMismatchError, match="ask the team admin to run `learn team init`"):
        FeedbackStore.open(urls["gus"])
