"""`learn run --team` end to end: three people's machines (three HOMEs, each with its
own transcripts of one repository) mine their sessions, share into one real
PostgreSQL, and a team run proposes what two of them said and not what only one
said, counting people and sessions; `learn share --forget` takes a person out and
the next team run drops what only they made reach the threshold. The model is
the gold oracle behind the fake Messages server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from _team_db import team_database
from fakes.anthropic_server import FakeAnthropicServer
from test_store_team import _everything_in

from evals.builder import ClaudeSession, session_id
from evals.gold import Gold
from evals.oracle import GoldOracle
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote
from learn.reduce.team import people_counter, shared_rules, team_sessions
from learn.store import FeedbackStore
from learn.store.team import SharedCandidate

REPO = Path(__file__).resolve().parents[1]
REMOTE = "https://github.com/team/app.git"
STAGING = "use-staging-database"
CHANGELOG = "write-changelog-entries"
BO_SAID = "use the staging database for this, never touch prod"


def _at(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour, tzinfo=UTC)


def _person(root: Path, name: str, said: list[list[str]], gold: Gold, day: int) -> Path:
    """A HOME with the repository checked out at home/code/app and one Claude Code
    session per list in `said` (each line typed by the person)."""
    home = root / name / "home"
    app = home / "code" / "app"
    app.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(app)], check=True)
    subprocess.run(["git", "-C", str(app), "remote", "add", "origin", REMOTE], check=True)
    for i, lines in enumerate(said):
        s = ClaudeSession(session_id(f"{name}-{i}"), str(app), _at(day + i, 9))
        s.user("add a retry to the payment webhook handler")
        s.assistant("Added the retry.")
        for line in lines:
            group = STAGING if "staging" in line else CHANGELOG if "changelog" in line else "prs"
            s.user(gold.said(s.session_id, line, group))
            s.assistant("Understood.")
        s.write(home / ".claude")
    return app


def _config(root: Path, name: str, app: Path, url: str, *, show_name: bool) -> None:
    cfg = root / name / "config"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text(
        f'[team]\ndatabase_url = "{url}"\nauthor = "{name}"\nprojects = ["{app}"]\n'
        f"show_name = {'true' if show_name else 'false'}\n")


def _env(root: Path, name: str, fake: FakeAnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / name / "home"), LEARN_DATA_DIR=str(root / name / "data"),
               LEARN_CACHE_DIR=str(root / name / "cache"),
               LEARN_CONFIG_DIR=str(root / name / "config"),
               ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url,
               PYTHONPATH=str(REPO))
    return env


def _learn(env: dict[str, str], *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=cwd,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out


def test_team_run_proposes_what_two_people_said_and_forget_drops_it(
    tmp_path: Path, pg_url: str
) -> None:
    gold = Gold(corpus="team")
    gold.group(STAGING, "directive", "Point tests and scripts at the staging database, never prod.")
    gold.group(CHANGELOG, "directive", "Add a changelog entry with every user-facing change.")
    gold.group("prs", "directive", "Keep pull requests small.")
    apps = {
        # ana: staging in two sessions, the changelog in the same two (her habit alone)
        "ana": _person(tmp_path, "ana", [
            ["run the migrations against the staging database, never prod",
             "every user facing change needs a changelog entry"],
            ["point the seed script at the staging database and never at prod",
             "add a changelog entry for this too"]], gold, 3),
        # bo: staging once
        "bo": _person(tmp_path, "bo", [
            [BO_SAID]], gold, 10),
        # cy: only something nobody else says
        "cy": _person(tmp_path, "cy", [["keep this pull request small please"]], gold, 12),
    }
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))
    personal: dict[str, set[str]] = {}
    urls = team_database(pg_url, *apps)  # a database role per person
    with fake:
        for name, app in apps.items():
            _config(tmp_path, name, app, urls[name], show_name=name == "ana")
            env = _env(tmp_path, name, fake)
            own = json.loads(_learn(env, "run", "--project", str(app), "--since", "2026-01-01",
                                    "--yes", "--quiet", "--json", "--embedder", "tfidf").stdout)
            personal[name] = {p["label"] for p in own["proposals"]}
            shared = _learn(env, "share", "--project", str(app))
            assert f"as {name}" in shared.stdout

        # ana's own run proposed her changelog habit: it is hers, the team's run must not.
        assert personal == {"ana": {STAGING, CHANGELOG}, "bo": set(), "cy": set()}
        ana = _env(tmp_path, "ana", fake)
        team_args = ("run", "--team", "--project", str(apps["ana"]), "--yes", "--quiet",
                     "--embedder", "tfidf")
        result = json.loads(_learn(ana, *team_args, "--json").stdout)
        got = {p["label"]: p for p in result["proposals"]}
        assert set(got) == {STAGING}
        assert (got[STAGING]["people"], got[STAGING]["sessions"]) == (2, 3)
        assert got[STAGING]["verdict"]["accepted"] is True
        # only ana chose to be named
        assert got[STAGING]["authors"] == ["ana"]

        # The verdict is stored once for the team, with its vector evidence, in the team
        # database: the next team run (another person's machine) reuses it, no judge call.
        with FeedbackStore.open(pg_url) as team:
            assert team.sql("SELECT dedup_key FROM feedback_events") == [
                {"dedup_key": f"directive:{STAGING}"}]
            assert team.sql("SELECT COUNT(*) AS n FROM verdict_evidence")[0]["n"] == 1
        judged = sum(1 for r in fake.requests if r.tool_name == "record_verdicts")
        digest = _learn(_env(tmp_path, "cy", fake), *team_args).stdout
        assert sum(1 for r in fake.requests if r.tool_name == "record_verdicts") == judged
        assert "said by 2 people in 3 sessions (ana)" in digest
        (line,) = [x for x in digest.splitlines() if "said by" in x]
        assert "bo" not in line.replace("(ana)", "").split()

        # The HTML report of the team run (from the team database, not ana's own last
        # run, which proposed her changelog habit): the same who-count and session-count.
        html_path = tmp_path / "team.html"
        _learn(ana, "report", "--team", "--out", str(html_path), cwd=apps["ana"])
        html = html_path.read_text()
        assert "said by 2 people in 3 sessions (ana), last on" in html
        assert CHANGELOG not in html and STAGING in html

        forgot = _learn(_env(tmp_path, "bo", fake), "share", "--forget")
        assert "forgot 1 shared candidates of bo" in forgot.stdout
        # Nothing bo said stays in the team database, the stored team runs included.
        assert BO_SAID not in _everything_in(pg_url)
        after = json.loads(_learn(ana, *team_args, "--json").stdout)
        assert after["proposals"] == []


def test_people_are_counted_per_group_and_names_only_of_those_who_chose() -> None:
    rows = [
        SharedCandidate("p-ana", "h1", "directive", None, "use staging", "2026-11-01", REMOTE,
                        True, name="ana"),
        SharedCandidate("p-ana", "h2", "directive", None, "staging please", "2026-11-02", REMOTE,
                        True, name="ana"),
        SharedCandidate("p-bo", "h3", "directive", None, "staging only", "2026-11-03", REMOTE),
        # bo's session hash equal to ana's: two sessions of two people, never one
        SharedCandidate("p-bo", "h1", "directive", None, "staging, as ever", "2026-11-04", REMOTE),
    ]
    sessions, authors = team_sessions(rows)
    assert [s.session_id for s in sessions] == ["h1", "h2", "h3", "h1:3"]
    assert authors == {"h1": "p-ana", "h2": "p-ana", "h3": "p-bo", "h1:3": "p-bo"}
    # no project folder: the repository is the team run's own (its `projects`)
    assert sessions[0] == SessionCandidates("h1", "team", None, "2026-11-01",
                                            (MinedCandidate("directive", "use staging"),))

    def group(*sids: str) -> Proposal:
        return Proposal("directive", "x-" + "".join(sids), "t", len(sids), len(sids), None,
                        tuple(Quote(s, "t", None) for s in sids))

    admit = people_counter(authors, {"p-ana": "ana"}, 2)
    (kept,) = admit([group("h1", "h2", "h3"), group("h1", "h2")])
    assert (kept.people, kept.sessions, kept.authors) == (2, 3, ("ana",))
    assert admit([group("h1", "h1:3")])[0].people == 2
    assert people_counter(authors, {}, 1)([group("h1", "h2")])[0].authors == ()


def test_coverage_reads_the_repositorys_rule_files_not_the_persons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    repo = home / "code" / "app"
    (repo / ".claude" / "rules").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text("- my personal rule\n")
    (home / "code" / "CLAUDE.md").write_text("- a parent directory rule\n")
    (repo / "CLAUDE.md").write_text("- use the staging database\n")
    (repo / "AGENTS.md").write_text("- keep pull requests small\n")
    (repo / ".claude" / "rules" / "db.md").write_text("- never run migrations on prod\n")
    (repo / "CLAUDE.local.md").write_text("- my local note\n")
    monkeypatch.setenv("HOME", str(home))
    corpus = shared_rules(repo)
    assert sorted(r.text for r in corpus.rules) == [
        "keep pull requests small", "never run migrations on prod", "use the staging database"]


def test_team_thresholds_come_from_the_team_config_section(tmp_path: Path) -> None:
    """Offline (no model), on a SQLite team store: [team] min_people and min_sessions
    decide what a team run proposes, and the run is stored in the team store."""
    from learn.config import Config, TeamConfig
    from learn.reduce.team import run_team
    from learn.store import open_store

    db = tmp_path / "team.db"
    rows = [
        SharedCandidate("ana", "a1", "directive", None, "never deploy on fridays", "2026-11-01",
                        REMOTE),
        SharedCandidate("ana", "a2", "directive", None, "never deploy on fridays", "2026-11-02",
                        REMOTE),
        SharedCandidate("bo", "b1", "directive", None, "never deploy on fridays", "2026-11-03",
                        REMOTE),
        SharedCandidate("bo", "b2", "directive", None, "use the staging database", "2026-11-03",
                        "https://github.com/other/repo.git"),
    ]
    with open_store(db) as store:
        store.team.share(rows)

    def proposals(**team: Any) -> list[tuple[str, int | None, int]]:
        config = Config(team=TeamConfig(database_url=str(db), **team))
        result = run_team(tmp_path, REMOTE, config, backend=None, embedder="tfidf")
        return [(p.text, p.people, p.sessions) for p in result.proposals]

    assert proposals() == [("never deploy on fridays", 2, 3)]
    assert proposals(min_people=3) == []
    assert proposals(min_sessions=4) == []
    with FeedbackStore.open(db) as store:
        assert store.sql("SELECT COUNT(*) AS n FROM runs WHERE result_json IS NOT NULL") == [
            {"n": 3}]


def test_a_teammates_row_reaches_no_terminal_with_its_escape_sequences() -> None:
    """A row of a SQLite team file (anyone's to write) holding ESC sequences (cursor up,
    erase the line, set the title, conceal) and a bidi override: read as the words would
    show, so neither the proposal nor the digest printed to a terminal holds them."""
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.digest import render_digest_markdown

    hostile = "never deploy on fridays\x1b[1A\x1b[2K\x1b]0;owned\x07\x1b[8m\u202eyadot"
    rows = [SharedCandidate("mallory", "m1", "directive", None, hostile, "2026-11-03", REMOTE),
            SharedCandidate("mallory", "m1", "fix", None, "make\x1b[8m deploy", "2026-11-03",
                            REMOTE, evidence=("git push\x1b[2K",))]
    sessions, _ = team_sessions(rows)
    texts = [c.text for s in sessions for c in s.candidates]
    texts += [x for s in sessions for c in s.candidates for x in (c.command or "",
                                                                  *c.intervening_commands)]
    assert texts and not any(ch in t for t in texts for ch in "\x1b\x07\u202e")
    assert any(t.startswith("never deploy on fridays ") for t in texts)
    quote = Quote("m1", hostile, "2026-11-03T00:00:00+00:00", None)
    p = Proposal("directive", "no-friday-deploys", hostile, 2, 2, None, (quote,))  # type: ignore[arg-type]
    md = render_digest_markdown(RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage()))
    assert "never deploy on fridays" in md
    assert not any(ch in md for ch in "\x1b\x07\u202e")
