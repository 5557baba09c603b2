"""`learn apply`'s main destination (`--target`, default Claude Code's CLAUDE.md) is written
only where an agent the project (or, for a user-scope rule, the person) uses reads it;
`--target claude` named still writes it.

Found on a Codex-only person (tests/test_h5_codex_only_person_gets_no_claude_md.py): a new
~/.claude/CLAUDE.md and a project CLAUDE.md were planned beside the AGENTS.md Codex reads.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import os
from pathlib import Path

from _said_to_agents import agents_of, project, record, said_quotes
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Verdict

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)


def _record(tmp_path: Path, project: Path, said: tuple[str | None, ...], scope: str = "project",
            scanned: bool = True) -> None:
    """A rule said in `project` once per agent of `said` (None: a quote of an older run,
    which recorded no agent); `scanned`: learn's session index knows those sessions."""
    quotes = said_quotes(project, said, "find the cause first, do not touch the code yet")
    record(tmp_path, project,
           Proposal("directive", "investigate-before-fixing", quotes[0].text, len(quotes),
                    len(quotes), quotes[0].at, quotes,
                    verdict=Verdict(True, "Find and report the cause before changing any code.",
                                    "workflow", scope, 0.9),  # type: ignore[arg-type]
                    agents=agents_of(said)), scanned=scanned)


def _apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), "--dry-run", *args])
    assert res.exit_code == 0, res.output
    return res


def _home() -> Path:
    return Path(os.environ["HOME"])


def test_a_codex_only_persons_user_rule_goes_to_codex_and_no_claude_folder_is_made(
        tmp_path: Path, project: Path) -> None:
    _record(tmp_path, project, ("codex", "codex"), scope="user")
    res = _apply(project)
    assert f"+++ {_home() / '.codex' / 'AGENTS.md'}" in res.output
    assert str(_home() / ".claude") not in res.output.replace(
        f"not written to {_home() / '.claude' / 'CLAUDE.md'}", "")
    assert "you use Codex, which does not read it" in res.output
    assert not (_home() / ".claude").exists()


def test_scope_user_named_for_a_codex_only_person_goes_to_codex(tmp_path: Path,
                                                                project: Path) -> None:
    _record(tmp_path, project, ("codex", "codex"))
    res = _apply(project, "--scope", "user")
    assert f"+++ {_home() / '.codex' / 'AGENTS.md'}" in res.output
    assert f"+++ {_home() / '.claude' / 'CLAUDE.md'}" not in res.output


def test_target_claude_named_still_writes_claude_md(tmp_path: Path, project: Path) -> None:
    _record(tmp_path, project, ("codex", "codex"))
    res = _apply(project, "--target", "claude")
    assert f"+++ {project / 'CLAUDE.md'}" in res.output
    assert f"+++ {project / 'AGENTS.md'}" in res.output


def test_a_project_used_by_both_agents_gets_both_files(tmp_path: Path, project: Path) -> None:
    _record(tmp_path, project, ("codex", "claude"))
    res = _apply(project)
    assert f"+++ {project / 'CLAUDE.md'}" in res.output
    assert f"+++ {project / 'AGENTS.md'}" in res.output
    assert "not written to" not in res.output


def test_a_codex_rule_in_a_project_holding_claude_code_files_keeps_claude_md(
        tmp_path: Path, project: Path) -> None:
    (project / "CLAUDE.md").write_text("# service\n")  # a teammate's Claude Code file
    _record(tmp_path, project, ("codex", "codex"))
    res = _apply(project)
    assert f"+++ {project / 'CLAUDE.md'}" in res.output
    assert f"+++ {project / 'AGENTS.md'}" in res.output


def test_a_codex_only_user_rule_keeps_claude_md_when_claude_code_has_its_folder(
        tmp_path: Path, project: Path) -> None:
    (_home() / ".claude").mkdir()
    _record(tmp_path, project, ("codex", "codex"), scope="user")
    res = _apply(project)
    assert f"+++ {_home() / '.claude' / 'CLAUDE.md'}" in res.output
    assert f"+++ {_home() / '.codex' / 'AGENTS.md'}" in res.output


def test_with_no_agent_known_the_main_destination_is_written_as_before(
        tmp_path: Path, project: Path) -> None:
    _record(tmp_path, project, (None, None), scanned=False)
    res = _apply(project)
    assert f"+++ {project / 'CLAUDE.md'}" in res.output
    assert "AGENTS.md" not in res.output


def test_a_project_whose_agents_read_no_file_of_the_rule_gets_nothing_and_is_told(
        tmp_path: Path, project: Path) -> None:
    """A Gemini CLI project whose settings name no context file learn writes: Claude
    Code's file would be read by no one, and Gemini's has no name learn may write."""
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text('{"context": {"fileName": "docs/x.md"}}')
    _record(tmp_path, project, ("gemini", "gemini"))
    res = _apply(project)
    assert "+++" not in res.output
    assert "nothing is written for it" in res.output
