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

from _said_to_agents import project, record, said_quotes
from click.testing import CliRunner

from learn.records.proposal import Proposal, Verdict

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)


def _record_codex_only(tmp_path: Path, project: Path) -> None:
    quotes = said_quotes(project, ("codex", "codex"),
                         "find the cause first, do not touch the code yet", prefix="cx")
    record(tmp_path, project,
           Proposal("directive", "investigate-before-fixing", quotes[0].text, 2, 2,
                    quotes[0].at, quotes,
                    verdict=Verdict(True, "Find and report the cause before changing any code.",
                                    "workflow", "project", 0.9),
                    agents=(("codex", 2),)))


def test_codex_only_project_gets_agents_md_and_no_claude_md(tmp_path: Path,
                                                            project: Path) -> None:
    from learn.commands.apply import command

    _record_codex_only(tmp_path, project)
    res = CliRunner().invoke(command, ["--project", str(project), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert f"+++ {project / 'AGENTS.md'}" in res.output
    assert f"+++ {project / 'CLAUDE.md'}" not in res.output
