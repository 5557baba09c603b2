"""A command file or a deny rule from a point said only to Codex goes where Codex reads it.

`learn apply` made the main destination follow the agents in use for a rule line
(tests/test_f1_main_destination_follows_agents.py), but a command and a deny rule kept
Claude Code's files whatever the agents: a Codex-only person applying "make it a
command" got a new `.claude/commands/<name>.md` (and `~/.claude/commands/` for a user
one), and an ignored "never run git push --force" a `.claude/settings.json` deny, files
no agent they use reads. Now a Codex-only person or project gets the Codex command (a
skill, `~/.agents/skills/<name>/SKILL.md`, for a current Codex: tests/test_codex_skills.py)
and the forbidden `prefix_rule` (`~/.codex/rules/learn.rules`); what has no Codex form
(a deny of an edit path, a command for Gemini CLI) is written nowhere, and the apply
says why. `--target claude` still writes Claude Code's file; a Claude Code user's output
is unchanged.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _said_to_agents import agents_of, project, record, said_quotes
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Verdict

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)

BODY = "Write the release notes from the merged pull requests since the last tag, grouped by area."


def _command(project: Path, said: tuple[str | None, ...], scope: str = "project") -> Proposal:
    quotes = said_quotes(project, said, "write the release notes again from the merged PRs")
    return Proposal("request", "release-notes", quotes[0].text, len(quotes), len(quotes),
                    quotes[0].at, quotes,
                    verdict=Verdict(True, "Write the release notes from the merged PRs.",
                                    "procedure", scope, 1.0),  # type: ignore[arg-type]
                    agents=agents_of(said), surface="command", command_body=BODY)


def _denial(project: Path, said: tuple[str | None, ...], rules: tuple[str, ...] = (
        "Bash(git push --force:*)",), commands: tuple[str, ...] = ("git push --force",),
            scope: str = "project") -> Proposal:
    quotes = said_quotes(project, said, "I told you, never run git push --force")
    return Proposal("directive", "no-force-push-enforced", "Never run git push --force.",
                    len(quotes), len(quotes), quotes[0].at, quotes,
                    verdict=Verdict(True, "Enforce it: deny", "enforcement", scope,  # type: ignore[arg-type]
                                    1.0),
                    agents=agents_of(said), surface="permission", surface_rules=rules,
                    surface_commands=commands)


def _apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == 0, res.output
    return res


def _home() -> Path:
    return Path(os.environ["HOME"])


def _skill() -> Path:
    """Where a current Codex's command goes (no Codex session says an older one)."""
    return _home() / ".agents" / "skills" / "release-notes" / "SKILL.md"


def test_a_codex_only_projects_command_is_a_codex_skill_and_no_claude_command(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    assert _skill().read_text().startswith(
        '---\nname: "release-notes"\ndescription: "Write the release notes from the merged '
        f'PRs."\n---\n{BODY}\n')
    assert not (project / ".claude").exists()
    assert not (_home() / ".claude").exists()


def test_the_apply_says_where_the_command_went_instead_and_why(tmp_path: Path,
                                                              project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    out = _apply(project, "--dry-run").output
    claude = project / ".claude" / "commands" / "my-release-notes.md"
    assert (f"request:release-notes: not written to {claude}: {project} uses Codex, which does "
            "not read it; written as ") in out
    assert (f" instead, to {_skill()}, which Codex reads in every project (--target claude "
            "writes it there)") in out
    assert "request:release-notes: a Codex skill, type $release-notes in a Codex message" in out
    assert f"+++ {_skill()}" in out and f"+++ {claude}" not in out


def test_a_codex_only_persons_user_command_goes_to_codex_and_no_claude_folder_is_made(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex"), scope="user"))
    res = _apply(project, "--yes")
    assert _skill().is_file()
    assert not (_home() / ".claude").exists()
    assert "you use Codex, which does not read it" in res.output


def test_a_codex_only_projects_deny_is_a_codex_forbidden_prefix_rule(tmp_path: Path,
                                                                     project: Path) -> None:
    record(tmp_path, project, _denial(project, ("codex", "codex")))
    res = _apply(project, "--yes")
    rules = (_home() / ".codex" / "rules" / "learn.rules").read_text()
    assert 'pattern = ["git", "push", "--force"],' in rules
    assert 'decision = "forbidden",' in rules
    # What Codex shows when it refuses is the person's rule, not learn's summary.
    assert 'justification = "Never run git push --force.",' in rules
    assert not (project / ".claude").exists() and not (_home() / ".claude").exists()
    # Learn's summary ("Enforce it: deny …") is no rule for Codex's AGENTS.md.
    assert not (project / "AGENTS.md").exists()
    assert f"not written to {project / '.claude' / 'settings.json'}" in res.output
    assert "written as a Codex prefix_rule instead" in res.output


def test_a_deny_of_an_edit_path_has_no_codex_form_and_nothing_is_written(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _denial(project, ("codex", "codex"), rules=("Edit(migrations/**)",),
                                       commands=()))
    res = _apply(project, "--dry-run")
    assert "+++" not in res.output
    assert (f"not written to {project / '.claude' / 'settings.json'}: {project} uses Codex, which "
            "does not read it; nothing is written for it: Codex has no rule for it "
            "(Edit(migrations/**): a prefix_rule forbids commands, not edits) (--target claude "
            "writes it there)") in res.output


def test_a_deny_of_commands_and_paths_says_which_part_codex_does_not_get(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _denial(project, ("codex", "codex"), rules=(
        "Bash(git push --force:*)", "Edit(migrations/**)"), commands=("git push --force",)))
    res = _apply(project, "--dry-run")
    assert f"+++ {_home() / '.codex' / 'rules' / 'learn.rules'}" in res.output
    assert ("directive:no-force-push-enforced: Edit(migrations/**) not denied for Codex (a "
            "prefix_rule forbids commands, not edits)") in res.output


def test_a_project_with_no_agent_that_takes_a_command_gets_nothing_and_is_told(
        tmp_path: Path, project: Path) -> None:
    (project / "GEMINI.md").write_text("# service\n")
    record(tmp_path, project, _command(project, ("gemini", "gemini")),
            _denial(project, ("gemini", "gemini")))
    res = _apply(project, "--dry-run")
    assert f"+++ {project / '.claude'}" not in res.output
    assert str(_home() / ".codex") not in res.output
    assert ("uses Gemini CLI, which does not read it; nothing is written for it: no command or "
            "deny of Gemini CLI is one learn writes") in res.output


def test_target_claude_named_still_writes_claude_codes_files(tmp_path: Path,
                                                             project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")),
            _denial(project, ("codex", "codex")))
    _apply(project, "--target", "claude", "--yes")
    assert (project / ".claude" / "commands" / "my-release-notes.md").is_file()
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"]["deny"] == ["Bash(git push --force:*)"]
    assert not (_home() / ".codex" / "prompts").exists() and not (_home() / ".agents").exists()
    assert not (_home() / ".codex" / "rules").exists()


def test_agent_codex_named_writes_codex_forms_and_agent_claude_claude_codes(
        tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")),
            _denial(project, ("codex", "codex")))
    out = _apply(project, "--agent", "codex", "--dry-run").output
    assert f"+++ {_skill()}" in out
    assert f"+++ {_home() / '.codex' / 'rules' / 'learn.rules'}" in out
    assert f"+++ {project / '.claude'}" not in out
    assert "(--agent claude writes it there)" in out
    out = _apply(project, "--agent", "claude", "--dry-run").output
    assert f"+++ {project / '.claude' / 'commands' / 'my-release-notes.md'}" in out
    assert f"+++ {project / '.claude' / 'settings.json'}" in out
    assert str(_home() / ".codex") not in out


@pytest.mark.parametrize("said", [("claude", "claude"), ("codex", "claude"), (None, None)])
def test_a_claude_code_users_command_and_deny_are_written_as_before(
        tmp_path: Path, project: Path, said: tuple[str | None, ...]) -> None:
    record(tmp_path, project, _command(project, said), _denial(project, said),
            scanned=said != (None, None))
    out = _apply(project, "--dry-run").output
    assert f"+++ {project / '.claude' / 'commands' / 'my-release-notes.md'}" in out
    assert f"+++ {project / '.claude' / 'settings.json'}" in out
    assert "prompts" not in out and ".agents" not in out and "learn.rules" not in out
    assert "not written to" not in out


def test_a_codex_only_user_deny_keeps_settings_when_claude_code_has_its_folder(
        tmp_path: Path, project: Path) -> None:
    (_home() / ".claude").mkdir()
    record(tmp_path, project, _denial(project, ("codex", "codex"), scope="user"),
            _command(project, ("codex", "codex"), scope="user"))
    out = _apply(project, "--dry-run").output
    assert f"+++ {_home() / '.claude' / 'settings.json'}" in out
    assert f"+++ {_home() / '.claude' / 'commands' / 'my-release-notes.md'}" in out
    assert "not written to" not in out
