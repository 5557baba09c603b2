"""A person who only uses Codex is not given a CLAUDE.md by `learn apply`.

Found running learn on real sessions of a Codex-only person (15 Codex sessions, no
Claude Code session, no ~/.claude at all): `learn apply` planned the rule twice, into a
new ~/.claude/CLAUDE.md (creating ~/.claude) and into ~/.codex/AGENTS.md. The docs say
"a project that uses none of an agent gets none of its files" (docs/rule-files.md), but
the main destination (`--target`, default `claude`) is planned whatever agent the
rule was said to, so Claude Code's file is made for someone who never ran it. The
same happens with a project-scope rule: the project's CLAUDE.md is created beside the
AGENTS.md Codex reads.

Modules: learn/report/targets.py (the main destination) and
learn/report/agent_targets.py (the agents a project uses).

Fixed: with `--target` left to its default, the main destination is written only where
an agent in use reads it (learn.report.agent_targets.unread_main;
tests/test_f1_main_destination_follows_agents.py for user scope, both agents, an explicit
`--target claude`).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "service"
    (root / ".git").mkdir(parents=True)
    return root


def _record_codex_only(tmp_path: Path, project: Path) -> None:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    quotes = tuple(Quote(f"cx{i}", "find the cause first, do not touch the code yet",
                         f"2026-03-2{i}T00:00:00+00:00", str(project), agent="codex")
                   for i in range(2))
    point = Proposal("directive", "investigate-before-fixing", quotes[0].text, 2, 2,
                     quotes[0].at, quotes,
                     verdict=Verdict(True, "Find and report the cause before changing any code.",
                                     "workflow", "project", 0.9),
                     agents=(("codex", 2),))
    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([point], run_id=None, fallback_project=str(project))
        scans = ScanTables(store)
        for q in quotes:
            scans.record_session(ScannedSession(q.session_id, "codex", str(project),
                                                f"/x/{q.session_id}", "h", None, 0, q.at or ""))


def test_codex_only_project_gets_agents_md_and_no_claude_md(tmp_path: Path,
                                                            project: Path) -> None:
    from learn.commands.apply import command

    _record_codex_only(tmp_path, project)
    res = CliRunner().invoke(command, ["--project", str(project), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert f"+++ {project / 'AGENTS.md'}" in res.output
    assert f"+++ {project / 'CLAUDE.md'}" not in res.output
