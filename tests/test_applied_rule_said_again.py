"""A rule already in place and said again: what the digest says of it agrees with "Did the
rules work?" and with what `learn apply` will do.

`learn run`, `learn apply` and `learn digest` end to end (the real anthropic SDK against
the fake Messages server on 127.0.0.1, answering from a gold file as in
test_several_agents_surfaces). An end-to-end run (2026-12) found two faults:

- a rule `learn apply` wrote, said again in a later session: the proposal came back with
  "already written ... so that rule is not working: rewrite it rather than adding
  another", and `learn apply` answered "nothing to apply"; "Did the rules work?" said the
  rule "wants a stronger surface" and offered none (escalation.escalate has none for a
  rule that forbids no command and is no procedure);
- a line the person wrote in a CLAUDE.md outside git, which learn dates from the run that
  first found it (learn.reduce.in_place), after every quote: the proposal said "that rule
  is not working" while "Did the rules work?" said "0 sessions since".

Both now read the rule's outcome (learn.report.outcomes.said_again). With the line dated
by its commit, before the quotes, the two agree that it is not working.

The sessions and rules are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fixtures.fidelity.writers import Chain, claude_path

from evals.gold import Gold
from evals.oracle import GoldOracle
from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.outcomes import InPlace, Said, rule_outcomes
from learn.report.digest import render_digest_markdown

REPO = Path(__file__).resolve().parents[1]

RULE = "Begin every commit subject with a [bot] or [me] tag."
SAID = ["tag each commit subject with [bot] or [me] up front",
        "the commit subject needs its [bot] or [me] tag first",
        "again: [bot] or [me] at the start of the commit subject"]
BEFORE = [datetime(2026, 11, 20, 9, tzinfo=UTC), datetime(2026, 11, 22, 14, tzinfo=UTC)]
KEY = "directive:commit-subject-tag"

Learn = Callable[..., subprocess.CompletedProcess[str]]


def _gold() -> Gold:
    gold = Gold(corpus="applied-rule-said-again")
    group = gold.group("commit-subject-tag", "directive", RULE, category="git",
                       coverage="restated")
    for n, text in enumerate(SAID):
        gold.said(_sid(n), text, group)
    gold.finish()
    return gold


def _sid(n: int) -> str:
    return f"5a1d0000-0000-4000-8000-00000000000{n}"


def _write_session(home: Path, project: Path, n: int, start: datetime) -> None:
    """Session `n` saying SAID[n] to Claude Code in `project`, started at `start`."""
    chain = Chain(_sid(n), cwd=str(project))
    chain.user(SAID[n])
    chain.assistant("Tagged it.")
    for i, entry in enumerate(chain.lines):
        entry["timestamp"] = (start + timedelta(seconds=30 * i)).isoformat().replace(
            "+00:00", "Z")
    path = chain.write(claude_path(home, _sid(n), str(project)))
    end = (start + timedelta(minutes=1)).timestamp()
    os.utime(path, (end, end))


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[Path, Path, Learn]]:
    """(home, project, learn): the sessions before the rule written, a fake model."""
    home = tmp_path / "home"
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    for n, start in enumerate(BEFORE):
        _write_session(home, project, n, start)
    oracle = GoldOracle(_gold())
    fake = FakeAnthropicServer(
        responder=lambda req: oracle.answer(req.tool_name or "", req.user_text))
    with fake:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ANTHROPIC_", "LEARN_", "GIT_")) and k not in (
                   "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
                   "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
        env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp_path / "data"),
                   LEARN_CACHE_DIR=str(tmp_path / "cache"),
                   LEARN_CONFIG_DIR=str(tmp_path / "config"), ANTHROPIC_API_KEY="test-key",
                   ANTHROPIC_BASE_URL=fake.base_url, PYTHONPATH=str(REPO))

        def learn(*args: str) -> subprocess.CompletedProcess[str]:
            proc = subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=project,
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            return proc

        yield home, project, learn


def _run(learn: Learn) -> str:
    """`learn run`, and the digest it prints."""
    return learn("run", "--since", "2026-01-01", "--yes", "--quiet", "--embedder",
                 "tfidf").stdout


def _item(digest: str) -> str:
    """The proposal's lines in the digest (up to the next section)."""
    start = digest.index("**commit-subject-tag** — \"")
    return digest[start:digest.index("\n## ", start)]


def _outcome(digest: str) -> str:
    start = digest.index("## Did the rules work?")
    end = digest.find("\n## ", start + 1)
    return digest[start:end if end != -1 else None]


def test_an_applied_rule_said_again_gets_the_next_step_that_exists(
        shop: tuple[Path, Path, Learn]) -> None:
    home, project, learn = shop
    (project / ".git").mkdir()
    _run(learn)
    learn("apply", "--yes")
    assert RULE in (project / "CLAUDE.md").read_text()
    # Said again in a session that started after the rule was written.
    _write_session(home, project, 2, datetime.now(UTC) + timedelta(seconds=1))
    digest = _run(learn)
    item, outcome = _item(digest), _outcome(digest)
    assert "**commit-subject-tag** — ignored" in outcome
    assert "said again in 1 of the 1 session since" in outcome
    # What `learn apply` does with it: nothing.
    assert "nothing to apply" in learn("apply", "--yes").stdout
    # So the digest does not send the person there: it says the rule is applied, said
    # again, and the step that exists (learn proposes no stronger surface for a commit
    # subject's tag).
    assert "rewrite it rather than adding another" not in digest
    assert (f"applied to `{project / 'CLAUDE.md'}` on ") in item
    assert "said again in 1 of the 1 session since, so that rule is not working" in item
    step = ("`learn apply` does not write an applied rule again, and learn has no stronger "
            "surface for this one")
    assert step in item
    assert f"rewrite that line in `{project / 'CLAUDE.md'}` yourself" in item
    # "Did the rules work?" says the same step after "wants a stronger surface".
    assert f"next: {step}" in outcome


def test_a_line_first_found_after_every_quote_is_not_called_not_working(
        shop: tuple[Path, Path, Learn]) -> None:
    _, project, learn = shop
    (project / ".git").mkdir()  # a repository that has no history of the line
    (project / "CLAUDE.md").write_text(f"# shop\n\n- {RULE}\n")
    digest = _run(learn)
    item, outcome = _item(digest), _outcome(digest)
    assert "too early to tell: 0 sessions since" in outcome
    assert "not working" not in item
    assert f"already written in `{project / 'CLAUDE.md'}`: \"{RULE}\" (in place since " in item
    assert "whether it works is not known yet" in item
    assert "next:" not in outcome


def test_a_line_its_commit_dates_before_the_quotes_is_not_working_in_both_places(
        shop: tuple[Path, Path, Learn]) -> None:
    home, project, learn = shop
    git_env = {**os.environ, "GIT_AUTHOR_DATE": "2026-11-01T10:00:00+00:00",
               "GIT_COMMITTER_DATE": "2026-11-01T10:00:00+00:00", "GIT_AUTHOR_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@example.invalid", "HOME": str(home)}

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(project), *args], env=git_env, check=True,
                       capture_output=True)

    git("init", "-q")
    (project / "CLAUDE.md").write_text(f"# shop\n\n- {RULE}\n")
    git("add", "CLAUDE.md")
    git("commit", "-qm", "rules")
    digest = _run(learn)
    item, outcome = _item(digest), _outcome(digest)
    assert "**commit-subject-tag** — ignored" in outcome
    assert "said again in 2 of the 2 sessions since" in outcome
    assert "(in place since 2026-11-01) — said again in 2 of the 2 sessions since, so that " \
           "rule is not working: rewrite that line rather than adding another" in item
    # Not applied by learn: the pending proposal is what `learn apply` writes.
    assert "next: rewrite that line rather than adding another" in outcome


def _applied_result(escalation: dict[str, str] | None) -> RunResult:
    """A run showing the applied no-force-push rule again, said in one session since."""
    applied = "2026-11-10T00:00:00+00:00"
    starts = {"b1": "2026-11-01T09:00:00+00:00", "s1": "2026-11-12T09:00:00+00:00"}
    rule = InPlace("directive:no-force-push", "Never run git push --force.", "/p/CLAUDE.md",
                   applied, project="/p")
    said = [Said("b1", starts["b1"], "no-force-push", "directive", "no force pushes", "/p"),
            Said("s1", starts["s1"], "no-force-push", "directive", "stop force pushing", "/p")]
    [o] = rule_outcomes([rule], said, starts)
    o = dataclasses.replace(o, escalation=escalation)
    quotes = tuple(Quote(s.session_id, s.text, s.started_at, "/p") for s in said)
    p = Proposal("directive", "no-force-push", "stop force pushing", 2, 2, quotes[1].at, quotes,
                 status="restated", existing_rule="Never run git push --force.",
                 existing_rule_file="/p/CLAUDE.md",
                 verdict=Verdict(True, "Never run git push --force.", "git", "project", 0.9))
    return RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage(sessions_seen=2),
                     extra={"outcomes": [o.to_json()],
                            "states": {"directive:no-force-push": "applied"}})


def test_an_applied_rule_with_an_escalation_points_to_it_once() -> None:
    esc = {"key": "directive:no-force-push-enforced", "state": "pending",
           "summary": "Enforce it: deny Bash(git push --force:*) in .claude/settings.json"}
    md = render_digest_markdown(_applied_result(esc))
    item, outcome = md[:md.index("## Did the rules work?")], _outcome(md)
    assert ("said again in 1 of the 1 session since, so that rule is not working: a stronger "
            "surface is proposed for it, `learn apply --only directive:no-force-push-enforced`"
            ) in item
    assert "rewrite" not in item.split("applied to `/p/CLAUDE.md`")[1]
    # The escalation's own line says its command; no second "next:" line repeats it.
    assert "escalation proposed: Enforce it" in outcome and "next:" not in outcome


def test_an_applied_rule_whose_escalation_is_applied_is_rewritten_by_hand() -> None:
    esc = {"key": "directive:no-force-push-enforced", "state": "applied",
           "summary": "Enforce it: deny Bash(git push --force:*) in .claude/settings.json"}
    md = render_digest_markdown(_applied_result(esc))
    assert "escalated already" in md
    assert "no stronger surface" not in md
    assert ("next: `learn apply` does not write an applied rule again: rewrite that line in "
            "`/p/CLAUDE.md` yourself") in md
