"""`learn share`: only verified, redacted candidates of opted-in projects reach the team
store (a real PostgreSQL, set up as `learn team init` does: one role per person),
--dry-run shows exactly that, --forget removes it; a fix leaves only as the commands
that ran."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _team_db import roles, team_database
from click.testing import CliRunner, Result

from evals.builder import ClaudeSession
from learn.cli import cli
from learn.config import config_path
from learn.reduce.sharing import shareable
from learn.store import FeedbackStore, open_store
from learn.store.runs import default_store_path
from learn.store.scan_tables import CandidateRow, ScannedSession, ScanTables, StoredCandidate
from learn.store.team import SHARED_FIELDS, session_hash
from learn.textfold import fold

SECRET = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh"
TOOL_OUTPUT = "Traceback: connection refused to db-prod-7.internal:5432"
COMMAND = "psql postgres://admin:hunter2@db-prod-7/app"
FILE_TEXT = "PRIVATE_FILE_BODY def handler(): pass"
SESSION = "9d1e7c2a-session-of-ana"
TOKEN = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
FIX_TEXT = "Pinned node to 20 with nvm and the tests passed"  # the model's words
FAILED, STEP, NEVER_RAN = "npm test", "nvm use 20", "rm -rf node_modules"
REPO_ID = "github.com/team/app"


def _git_project(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin",
                    f"https://ana:{TOKEN}@github.com/team/app.git"], check=True)
    return root


def _transcript(root: Path, cwd: Path) -> Path:
    """The session the fix happened in: `npm test` failed, `nvm use 20`, it passed."""
    from datetime import UTC, datetime

    s = ClaudeSession(SESSION, str(cwd), datetime(2026, 2, 1, 9, tzinfo=UTC))
    s.user("the tests fail on my machine")
    s.tool("Bash", {"command": FAILED}, "engine node 18 unsupported", is_error=True)
    s.tool("Bash", {"command": STEP}, "Now using node v20")
    s.tool("Bash", {"command": FAILED}, "12 passed")
    s.assistant("Fixed.")
    return s.write(root / ".claude")


def _local_candidates(project: Path, other: Path) -> None:
    payload = {"command": COMMAND, "error_excerpt": TOOL_OUTPUT, "edited_files": ["/p/secret.py"],
               "file": FILE_TEXT, "rationale": "the user repeated it"}
    fix = {**payload, "command": FAILED, "intervening_commands": [STEP, NEVER_RAN]}
    path = _transcript(project.parent / "transcripts", project)
    with FeedbackStore.open(default_store_path()) as s:
        t = ScanTables(s)
        t.record_session(ScannedSession(SESSION, "claude", str(project), str(path), "h", None, 2,
                                        "2026-02-01T12:00:00+00:00"))
        t.replace_session_candidates(SESSION, [
            CandidateRow(SESSION, "directive", f"use the staging database, key {SECRET}",
                         project=str(project / "sub"), occurred_at="2026-02-01T10:00:00+00:00",
                         payload=payload),
            CandidateRow(SESSION, "fix", FIX_TEXT, project=str(project),
                         occurred_at="2026-02-01T11:00:00+00:00", payload=fix),
        ])
        t.replace_session_candidates("s-other", [
            CandidateRow("s-other", "directive", "never share this project", project=str(other)),
        ])
        (first, *_rest) = t.candidates(kind="directive")
        t.set_labels({first.id: "use-staging-db"}, run_id=None)


def _config(project: Path, url: str | None, author: str = "ana") -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    db = f'database_url = "{url}"\n' if url else ""
    path.write_text(f'[team]\n{db}author = "{author}"\nprojects = ["{project}"]\n')


def _share(*args: str) -> Result:
    return CliRunner().invoke(cli, ["share", *args])


def _everything_in(url: str) -> str:
    """Every value of every table in the team database, as one string."""
    import psycopg

    out: list[str] = []
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")]
        for t in tables:
            for row in conn.execute(f'SELECT * FROM "{t}"'):
                out.append(repr(row))
    return "\n".join(out)


def test_shareable_keeps_the_listed_fields_of_opted_in_projects_only() -> None:
    c = StoredCandidate(id=1, session_id="s1", kind="directive", source="miner",
                        text=f"token {SECRET}", text_hash="h", project="/repo/app",
                        occurred_at="t", payload={"command": COMMAND}, label="l", label_run=None)
    elsewhere = replace(c, project="/elsewhere")
    (row,) = shareable([c, elsewhere], {Path("/repo/app"): REPO_ID}, "ana")
    assert tuple(row.to_json()) == SHARED_FIELDS
    assert row.quote == "token [REDACTED:anthropic-key]"
    assert row.session_hash == session_hash("s1", "ana") != "s1"
    # the same session id of two people is two sessions
    assert session_hash("s1", "bo") != row.session_hash
    assert (row.author, row.project_remote, row.label, row.evidence) == ("ana", REPO_ID, "l", ())
    assert COMMAND not in repr(row.to_json())
    with pytest.raises(ValueError, match="author"):
        shareable([c], {Path("/repo/app"): "r"}, " ")


def test_a_fix_leaves_only_as_the_commands_that_ran() -> None:
    """Never the model's description; the failing command and the steps in between,
    each found among the commands that ran, redacted; else nothing."""
    key_step = f"export ANTHROPIC_API_KEY={SECRET}"
    ran = [fold(c) for c in (FAILED, STEP, "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]")]
    fix = StoredCandidate(id=1, session_id="s1", kind="fix", source="miner", text=FIX_TEXT,
                          text_hash="h", project="/repo/app", occurred_at="t",
                          payload={"command": FAILED, "error_excerpt": TOOL_OUTPUT,
                                   "intervening_commands": [STEP, key_step, NEVER_RAN]},
                          label=None, label_run=None)
    projects = {Path("/repo/app"): REPO_ID}
    (row,) = shareable([fix], projects, "ana", commands_ran=lambda sid: ran)
    assert (row.kind, row.quote) == ("fix", FAILED)
    assert row.evidence == (STEP, "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]")
    text = repr(row.to_json())
    for gone in (FIX_TEXT, NEVER_RAN, SECRET, TOOL_OUTPUT):
        assert gone not in text, gone
    # unchecked (no transcript), unreadable, or a command that never ran: not shared
    assert shareable([fix], projects, "ana") == []
    assert shareable([fix], projects, "ana", commands_ran=lambda sid: None) == []
    assert shareable([fix], projects, "ana", commands_ran=lambda sid: [fold(STEP)]) == []


def test_nothing_but_the_listed_fields_reaches_the_team_store(tmp_path: Path, pg_url: str) -> None:
    urls = team_database(pg_url, "ana")
    project = _git_project(tmp_path / "app")
    other = _git_project(tmp_path / "other")
    _local_candidates(project, other)
    _config(project, urls["ana"], author="someone-else")
    result = _share("--project", str(project))
    assert result.exit_code == 0, result.output
    # the identity is the database role, not the name in the config
    assert f"shared 2 candidates of {REPO_ID} as ana" in result.output

    ana = roles(pg_url)["ana"]
    with FeedbackStore.open(pg_url) as team:
        rows = team.sql("SELECT * FROM team_candidates ORDER BY kind")
        assert set(rows[0]) == {"id", *SHARED_FIELDS, "text_hash", "shared_at"}
        assert [(r["author"], r["kind"], r["label"], r["quote"], r["evidence"]) for r in rows] == [
            (ana, "directive", "use-staging-db",
             "use the staging database, key [REDACTED:anthropic-key]", None),
            (ana, "fix", None, FAILED, f'["{STEP}"]'),
        ]
        assert {r["session_hash"] for r in rows} == {session_hash(SESSION, ana)}
        assert {r["project_remote"] for r in rows} == {REPO_ID}
        # only the team tables hold rows: no ledger, runs, sessions or local candidates
        for table in ("feedback_events", "candidates", "sessions_scanned", "runs", "files"):
            assert team.sql(f"SELECT COUNT(*) AS n FROM {table}") == [{"n": 0}], table
    dump = _everything_in(pg_url)
    for planted in (SECRET, TOOL_OUTPUT, COMMAND, "hunter2", FILE_TEXT, "/p/secret.py", SESSION,
                    TOKEN, str(project), str(tmp_path), "never share this project",
                    "the user repeated it", FIX_TEXT, NEVER_RAN, "someone-else"):
        assert planted not in dump, planted


def test_dry_run_prints_what_share_sends_and_sends_nothing(tmp_path: Path, pg_url: str) -> None:
    import json

    urls = team_database(pg_url, "ana")
    project = _git_project(tmp_path / "app")
    _local_candidates(project, _git_project(tmp_path / "other"))
    _config(project, urls["ana"])
    dry = _share("--project", str(project), "--dry-run")
    assert dry.exit_code == 0, dry.output
    printed = [json.loads(line) for line in dry.stdout.splitlines()]
    with FeedbackStore.open(pg_url) as team:
        assert team.sql("SELECT COUNT(*) AS n FROM team_candidates") == [{"n": 0}]
    assert _share("--project", str(project)).exit_code == 0
    with FeedbackStore.open(pg_url) as team:
        sent = team.sql(f"SELECT {', '.join(SHARED_FIELDS)} FROM team_candidates ORDER BY kind")
    for r in sent:
        r["evidence"] = json.loads(r["evidence"]) if r["evidence"] else []
    assert sorted(printed, key=lambda r: r["kind"]) == sent


def test_forget_removes_only_the_connected_persons_rows(tmp_path: Path, pg_url: str) -> None:
    """Forgetting goes by the database role: a config naming another person as its
    author forgets the connected person's rows, never the other's."""
    urls = team_database(pg_url, "ana", "bo")
    project = _git_project(tmp_path / "app")
    _local_candidates(project, _git_project(tmp_path / "other"))
    _config(project, urls["ana"])
    assert _share("--project", str(project)).exit_code == 0
    _config(project, urls["bo"])
    assert _share("--project", str(project)).exit_code == 0
    _config(project, urls["ana"], author="bo")
    result = _share("--forget")
    assert result.exit_code == 0 and "forgot 2 shared candidates of ana" in result.output
    with FeedbackStore.open(pg_url) as team:
        rows: list[dict[str, Any]] = team.sql("SELECT DISTINCT author FROM team_candidates")
    assert rows == [{"author": roles(pg_url)["bo"]}]


def test_a_postgresql_store_no_team_init_set_up_is_refused_and_a_sqlite_one_warns(
    tmp_path: Path, pg_url: str
) -> None:
    project = _git_project(tmp_path / "app")
    _local_candidates(project, _git_project(tmp_path / "other"))
    FeedbackStore.open(pg_url).close()  # migrated, but no roles: anyone could be anyone
    _config(project, pg_url)
    bare = _share("--project", str(project))
    assert bare.exit_code == 2 and "is not set up for a team" in bare.output
    assert "learn team init" in bare.output and len(bare.output.strip().splitlines()) == 1
    _config(project, str(tmp_path / "team.db"))
    sqlite = _share("--project", str(project))
    assert sqlite.exit_code == 0 and "protects no one" in sqlite.stderr
    urls = team_database(pg_url, "ana")
    _config(project, urls["ana"])
    guarded = _share("--project", str(project))
    assert guarded.exit_code == 0 and "warning" not in guarded.stderr


def test_a_project_not_opted_in_is_refused(tmp_path: Path, pg_url: str) -> None:
    project = _git_project(tmp_path / "app")
    other = _git_project(tmp_path / "other")
    _local_candidates(project, other)
    _config(project, pg_url)
    result = _share("--project", str(other))
    assert result.exit_code == 2 and "not opted in" in result.output
    with FeedbackStore.open(pg_url) as team:
        assert team.sql("SELECT COUNT(*) AS n FROM team_candidates") == [{"n": 0}]


def test_a_run_with_a_database_url_keeps_everything_in_postgresql(
    tmp_path: Path, pg_url: str
) -> None:
    """`learn run` (offline, the demo corpus) with LEARN_DATABASE_URL: the run, its
    candidates and labels land in PostgreSQL, `learn digest` reads them back, and no
    SQLite file is created."""
    import json
    import os
    import sys

    from evals.corpora import demo

    repo = Path(__file__).resolve().parents[1]
    root = tmp_path / "corpus"
    demo.build(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), PYTHONPATH=str(repo),
               LEARN_DATABASE_URL=pg_url)

    def learn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=repo,
                              capture_output=True, text=True, timeout=300)

    run = learn("run", "--all-projects", "--since", "2026-01-01", "--offline", "--json")
    assert run.returncode == 0, run.stderr
    proposals = json.loads(run.stdout)["proposals"]
    assert len(proposals) == 1
    assert not list((root / "data").rglob("*.db"))
    with FeedbackStore.open(pg_url) as store:
        assert store.sql("SELECT COUNT(*) AS n FROM runs WHERE result_json IS NOT NULL") == [
            {"n": 1}]
        assert store.sql("SELECT COUNT(*) AS n FROM candidates")[0]["n"] >= 2
        p = proposals[0]
        assert store.sql("SELECT key FROM proposals") == [{"key": f"{p['kind']}:{p['label']}"}]
    digest = learn("digest", "--all-projects", "--json")
    assert digest.returncode == 0, digest.stderr
    assert [p["label"] for p in json.loads(digest.stdout)["proposals"]] == [
        proposals[0]["label"]]
    stats = learn("stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["store"].startswith("postgresql://")
    assert not list((root / "data").rglob("*.db"))


def test_doctor_checks_the_database_url(pg_url: str) -> None:
    from learn.doctor import check_store

    FeedbackStore.open(pg_url).close()
    c = check_store(pg_url)
    assert (c.status, c.detail.endswith("(0 runs)")) == ("ok", True), c
    down = check_store("postgresql://nobody@127.0.0.1:1/none")
    assert down.status == "fail" and "cannot connect" in down.detail


def test_team_counts_people_and_sessions_and_forgetting_drops_what_only_they_said(
    store_target: Path | str,
) -> None:
    """Each person shares through their own connection (on PostgreSQL their member
    role: the author is the login role); a SQLite team store takes the author ids."""
    from learn.store.team import SharedCandidate, TeamCount

    remote = REPO_ID
    people = ("ana", "bo", "cy", "dee")
    if isinstance(store_target, str):
        from _team_db import team_members

        made = team_members(store_target, *people)
        where = {n: url for n, (_, url) in made.items()}
        author = {n: role for n, (role, _) in made.items()}
    else:
        where = dict.fromkeys(people, str(store_target))
        author = {n: n for n in people}

    def said(who: str, session: str, label: str, project: str = remote) -> SharedCandidate:
        a = author[who]
        return SharedCandidate(author=a, session_hash=session_hash(session, a),
                               kind="directive", label=label, quote=f"{label} ({who})",
                               occurred_at=f"2026-02-0{session}T00:00:00+00:00",
                               project_remote=project)

    def share(who: str, *rows: SharedCandidate) -> None:
        with open_store(where[who]) as store:
            store.team.share(rows)

    share("ana", said("ana", "1", "staging-db"), said("ana", "2", "staging-db"))
    share("bo", said("bo", "3", "staging-db"), said("bo", "6", "tabs-elsewhere"))
    share("cy", said("cy", "4", "tabs"), said("cy", "5", "tabs"))
    share("dee", said("dee", "1", "staging-db", "github.com/other/repo"))
    with open_store(where["ana"]) as store:
        team = store.team
        assert team.team_counts(remote) == [
            TeamCount("directive", "staging-db", people=2, sessions=3,
                      last_seen="2026-02-03T00:00:00+00:00")]
        assert [c.label for c in team.team_counts(remote, min_people=1)] == ["staging-db", "tabs"]
    with open_store(where["bo"]) as store:
        assert store.team.forget(author["bo"]) == 2
    with open_store(where["ana"]) as store:
        team = store.team
        assert team.team_counts(remote) == []
        assert [(c.label, c.people, c.sessions) for c in team.team_counts(remote, min_people=1)
                ] == [("staging-db", 1, 2), ("tabs", 1, 2)]


def test_three_homes_share_into_one_database_and_forget_drops_what_only_one_said(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three people's machines (three HOMEs, three local SQLite stores, three database
    roles) `learn share` into one PostgreSQL: the directive two of them said counts 2
    people, the one only one said stays below the two-people threshold; forgetting
    one of the two drops it."""
    said = {
        "ana": [("s1", "use-staging-db"), ("s2", "use-staging-db"), ("s3", "tabs")],
        "bo": [("s1", "use-staging-db")],
        "cy": [("s1", "no-force-push"), ("s2", "no-force-push")],
    }
    urls = team_database(pg_url, *said)
    for person, rows in said.items():
        home = tmp_path / person
        home.mkdir()
        monkeypatch.setenv("HOME", str(home))
        project = _git_project(home / "src" / "app")
        with FeedbackStore.open(default_store_path()) as s:
            t = ScanTables(s)
            for sid, label in rows:
                # the same session ids on every machine: still separate sessions
                t.replace_session_candidates(sid, [
                    CandidateRow(sid, "directive", f"{label} please ({person})",
                                 project=str(project), occurred_at="2026-03-01T00:00:00+00:00")])
            t.set_labels({c.id: label for c, (_, label) in zip(t.candidates(), rows, strict=True)},
                         run_id=None)
        _config(project, urls[person], author=person)
        result = _share("--project", str(project))
        assert result.exit_code == 0, result.output

    with open_store(pg_url) as store:
        team = store.team
        assert [(c.label, c.people, c.sessions) for c in team.team_counts(REPO_ID)] == [
            ("use-staging-db", 2, 3)]
        everything = team.team_counts(REPO_ID, min_people=1, min_sessions=1)
        assert [(c.label, c.people, c.sessions) for c in everything] == [
            ("use-staging-db", 2, 3), ("no-force-push", 1, 2), ("tabs", 1, 1)]
    monkeypatch.setenv("HOME", str(tmp_path / "bo"))
    assert _share("--forget").exit_code == 0
    with open_store(pg_url) as store:
        assert store.team.team_counts(REPO_ID) == []


def test_a_dry_run_without_a_team_database_needs_nothing_but_the_project(tmp_path: Path) -> None:
    """Before any team database exists, a person can see what they would share: the
    configured author id stands in for the role they do not have yet."""
    import json

    project = _git_project(tmp_path / "app")
    _local_candidates(project, _git_project(tmp_path / "other"))
    _config(project, None, author="ana")
    dry = _share("--project", str(project), "--dry-run")
    assert dry.exit_code == 0, dry.output
    printed = [json.loads(line) for line in dry.stdout.splitlines()]
    assert [(r["author"], r["kind"], r["quote"]) for r in printed] == [
        ("ana", "directive", "use the staging database, key [REDACTED:anthropic-key]"),
        ("ana", "fix", FAILED)]
    send = _share("--project", str(project))
    assert send.exit_code == 2 and "set [team] database_url" in send.output
