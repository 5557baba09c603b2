"""The digest says where `learn apply` puts a command or a deny for the agents in use.

Apply made a Codex-only person's command a Codex command (a skill,
`~/.agents/skills/<name>/SKILL.md`, for a current Codex: tests/test_codex_skills.py)
and their deny a forbidden prefix_rule (`~/.codex/rules/learn.rules`), or wrote nothing
where Codex has no form for it (tests/test_f5_commands_and_denials_follow_agents.py);
the digest still said `.claude/commands/<name>.md` and `.claude/settings.json`, files
apply would not write. The digest asks the same functions apply asks
(learn.report.agent_targets.unread_main, codex_form), with learn's sessions read once
per digest, not once per proposal.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _said_to_agents import project, record
from click.testing import CliRunner
from test_f5_commands_and_denials_follow_agents import _command, _denial

from learn.records.proposal import Funnel, Proposal, RunResult, RunUsage

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)


def _digest(project: Path) -> str:
    from learn.commands.digest import command

    res = CliRunner().invoke(command, ["--project", str(project)])
    assert res.exit_code == 0, res.output
    return res.output


def _line(out: str, start: str) -> str:
    [line] = [x for x in out.splitlines() if x.startswith(f"  - {start}")]
    return line


def test_a_codex_only_projects_command_is_said_to_go_to_a_codex_skill(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    line = _line(_digest(project), "a command")
    assert line == (
        "  - a command, not a rule line: `learn apply` writes it as a Codex skill, "
        "`~/.agents/skills/release-notes/SKILL.md` (which Codex reads in every project); "
        "type $release-notes in a Codex message to use it; not .claude/commands/"
        "my-release-notes.md: the project uses Codex, which does not read it "
        "(`--target claude` writes it there)")


def test_a_codex_only_projects_deny_is_said_to_be_a_codex_prefix_rule(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _denial(project, ("codex", "codex"), rules=(
        "Bash(git push --force:*)", "Edit(migrations/**)"), commands=("git push --force",)))
    line = _line(_digest(project), "enforced")
    assert line == ("  - enforced, not advised: `learn apply` adds a forbidden prefix_rule for "
                    "`git push --force` to `~/.codex/rules/learn.rules` (which Codex reads in "
                    "every project); Edit(migrations/**) not denied for Codex (a prefix_rule "
                    "forbids commands, not edits); not .claude/settings.json: the project uses "
                    "Codex, which does not read it (`--target claude` adds Bash(git push "
                    "--force:*), Edit(migrations/**) to `permissions.deny` there)")
    assert ".claude/settings.json (`--agents`" not in line


def test_a_deny_with_no_codex_form_is_said_to_be_written_nowhere(tmp_path: Path,
                                                                 project: Path) -> None:
    record(tmp_path, project, _denial(project, ("codex", "codex"),
                                       rules=("Edit(migrations/**)",), commands=()))
    line = _line(_digest(project), "enforced")
    assert "`learn apply` writes it nowhere: not .claude/settings.json: the project uses Codex" \
        in line
    assert "Codex has no rule for it (Edit(migrations/**): a prefix_rule forbids commands, " \
        "not edits)" in line


def test_a_project_whose_agents_take_no_command_is_told_nothing_is_written(
        tmp_path: Path, project: Path) -> None:
    (project / "GEMINI.md").write_text("# service\n")
    record(tmp_path, project, _command(project, ("gemini", "gemini")))
    line = _line(_digest(project), "a command")
    assert ("writes it nowhere: not .claude/commands/my-release-notes.md: the project uses "
            "Gemini CLI, which does not read it, and no command or deny of Gemini CLI is one "
            "learn writes") in line
    assert ".codex" not in line


def test_a_codex_only_persons_user_command_says_codex_and_no_project(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex"), scope="user"))
    line = _line(_digest(project), "a command")
    assert ("`~/.agents/skills/release-notes/SKILL.md`; type $release-notes in a Codex message "
            "to use it; not") in line
    assert "~/.claude/commands/my-release-notes.md: you use Codex" in line


@pytest.mark.parametrize("said", [("claude", "claude"), ("codex", "claude"), (None, None)])
def test_a_claude_code_users_lines_are_as_before(tmp_path: Path, project: Path,
                                                 said: tuple[str | None, ...]) -> None:
    record(tmp_path, project, _command(project, said), _denial(project, said),
            scanned=said != (None, None))
    out = _digest(project)
    assert _line(out, "a command") == ("  - a command, not a rule line: `learn apply` writes "
                                       ".claude/commands/<name>.md, typed when wanted")
    assert _line(out, "enforced").startswith(
        "  - enforced, not advised: `learn apply` adds Bash(git push --force:*) to "
        "`permissions.deny` in .claude/settings.json")


def test_the_sessions_are_read_once_for_the_whole_digest(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of proposals, one read of learn's sessions: asked per proposal, the
    digest opened the store once per command and deny it listed."""
    import learn.report.agent_targets as agent_targets
    from learn.report.digest import render_digest_markdown

    record(tmp_path, project, _command(project, ("codex", "codex")))
    reads: list[int] = []
    real = agent_targets._scanned_sessions

    def counted() -> list[tuple[str, str | None]]:
        reads.append(1)
        return real()

    monkeypatch.setattr(agent_targets, "_scanned_sessions", counted)
    points: list[Proposal] = []
    for i in range(200):
        made = _command(project, ("codex", "codex")) if i % 2 else \
            _denial(project, ("codex", "codex"))
        points.append(_renamed(made, f"point-{i}"))
    result = RunResult(tuple(points), Funnel(), RunUsage())
    started = time.perf_counter()
    text = render_digest_markdown(result)
    took = time.perf_counter() - started
    assert len(reads) == 1
    assert text.count("~/.agents/skills/point-") == 100
    assert text.count("forbidden prefix_rule") == 100
    assert took < 10, took  # 0.35 s measured for these 200 (0.05 s before the line asked)


def _renamed(p: Proposal, label: str) -> Proposal:
    from dataclasses import replace

    return replace(p, label=label)
