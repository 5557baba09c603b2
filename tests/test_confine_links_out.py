"""A project's file leads only into that project, a user's file only to a user's file
(learn.report.confine).

A cloned project committed `CLAUDE.md -> ../../.claude/CLAUDE.md` and
`.claude/settings.local.json -> ../../../.claude/settings.json`: confine checked only
that each led to a file of the same kind, so `learn apply` put the project's rule in the
person's global CLAUDE.md and `learn check` its hook in the global settings, applied in
every project. Links within a project, and between the agents' user files, still are
written through."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from learn.guard.files import rules_file
from learn.guard.rules import CheckRule
from learn.report.apply import plan_all, plan_file
from learn.report.check_install import CheckError, plan_rules
from learn.report.check_writes import write_plan as write_check_plan
from learn.report.confine import confine, may_write
from learn.report.edits import RuleEdit
from learn.report.errors import ConfinementError

GLOBAL_RULES = "# my global rules\n"
GLOBAL_SETTINGS = json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}) + "\n"
FORCE = CheckRule(id="no-force-push", program="git", subcommand="push",
                  flags=("--force", "-f"), arguments=("+*",),
                  reason="Never force push; ask me first.", mode="enforce")


@pytest.fixture
def home() -> Path:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text(GLOBAL_RULES)
    (home / ".claude" / "settings.json").write_text(GLOBAL_SETTINGS)
    return home


@pytest.fixture
def cloned(home: Path) -> Path:
    repo = home / "code" / "evil"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude").mkdir()
    return repo


def rule(path: Path, project: Path) -> RuleEdit:
    return RuleEdit(key="directive:use-bun-here", text="Use bun for scripts", target=path,
                    project=project)


# What the audit committed, as relative links the way a repository holds them; an
# absolute one to Codex's home; a command over the person's own command.
@pytest.mark.parametrize(("name", "link", "lands_on"), [
    ("CLAUDE.md", "../../.claude/CLAUDE.md", ".claude/CLAUDE.md"),
    (".claude/settings.json", "../../../.claude/settings.json", ".claude/settings.json"),
    (".claude/settings.local.json", "../../../.claude/settings.json", ".claude/settings.json"),
    ("AGENTS.md", "@abs", ".codex/AGENTS.md"),
    ("GEMINI.md", "@abs", ".gemini/GEMINI.md"),
    (".claude/commands/pr.md", "@abs", ".claude/commands/pr.md"),
])
def test_a_project_file_linked_out_to_a_users_file_is_refused_naming_where_it_leads(
        home: Path, cloned: Path, name: str, link: str, lands_on: str) -> None:
    target = home / lands_on
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("theirs\n")
    before = target.read_bytes()
    asked = cloned / name
    asked.parent.mkdir(parents=True, exist_ok=True)
    asked.symlink_to(target if link == "@abs" else Path(link))
    with pytest.raises(ConfinementError) as refused:
        confine(asked, [cloned])
    message = str(refused.value)
    assert str(asked) in message and str(target) in message
    assert "link out of it" in message and "Nothing was written" in message
    assert not may_write(asked, [cloned])
    assert target.read_bytes() == before


def test_apply_plans_no_write_into_the_global_claude_md(home: Path, cloned: Path) -> None:
    claude_md = cloned / "CLAUDE.md"
    claude_md.symlink_to("../../.claude/CLAUDE.md")
    with pytest.raises(ConfinementError, match="link out of it"):
        plan_file(claude_md, [rule(claude_md, cloned)], [cloned])
    [plan] = plan_all([rule(claude_md, cloned)], [cloned])
    assert plan.refused is not None and "link out of it" in plan.refused
    assert (home / ".claude" / "CLAUDE.md").read_text() == GLOBAL_RULES


def test_the_check_hook_never_goes_into_the_global_settings(home: Path, cloned: Path) -> None:
    (cloned / ".claude" / "settings.local.json").symlink_to("../../../.claude/settings.json")
    with pytest.raises(CheckError, match="link out of it"):
        write_check_plan(plan_rules(str(cloned), [FORCE]), str(cloned))
    assert (home / ".claude" / "settings.json").read_text() == GLOBAL_SETTINGS
    assert not rules_file(str(cloned)).exists()


def test_a_link_into_another_project_is_refused(home: Path, cloned: Path) -> None:
    other = home / "code" / "bank"
    (other / ".git").mkdir(parents=True)
    (other / "CLAUDE.md").write_text("# bank\n")
    (cloned / "CLAUDE.md").symlink_to("../bank/CLAUDE.md")
    with pytest.raises(ConfinementError, match=f"a file of the project {other}"):
        confine(cloned / "CLAUDE.md", [cloned, other])
    assert (other / "CLAUDE.md").read_text() == "# bank\n"


@pytest.mark.parametrize(("name", "lands_on"), [
    ("CLAUDE.md", "AGENTS.md"),
    ("AGENTS.md", "CLAUDE.md"),
    (".claude/settings.local.json", ".claude/settings.json"),
    ("packages/web/CLAUDE.md", "CLAUDE.md"),
])
def test_a_link_within_the_project_is_still_written_through(
        cloned: Path, name: str, lands_on: str) -> None:
    target = cloned / lands_on
    target.write_text("# shared\n")
    link = cloned / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))
    assert confine(link, [cloned]) == target


def test_a_folder_linked_within_the_project_and_a_project_reached_through_a_link(
        home: Path, cloned: Path, tmp_path: Path) -> None:
    (cloned / "shared").mkdir()
    (cloned / "docs").symlink_to("shared")
    assert confine(cloned / "docs" / "CLAUDE.md", [cloned]) == cloned / "shared" / "CLAUDE.md"
    # The project named through a link to it (a ~/work that is a link to /data/work).
    alias = tmp_path / "alias"
    alias.symlink_to(cloned)
    (cloned / "AGENTS.md").write_text("# a\n")
    (cloned / "CLAUDE.md").symlink_to("AGENTS.md")
    assert confine(alias / "CLAUDE.md", [alias]) == cloned / "AGENTS.md"


def test_a_users_file_linked_into_a_project_is_refused(home: Path, cloned: Path) -> None:
    # The person's own rules would go into a file the repository shares (and is pushed).
    (cloned / "CLAUDE.md").write_text("# project\n")
    global_md = home / ".claude" / "CLAUDE.md"
    global_md.unlink()
    global_md.symlink_to(cloned / "CLAUDE.md")
    with pytest.raises(ConfinementError, match=f"link into the project {cloned}"):
        confine(global_md, [cloned])
    assert not may_write(global_md)  # and with no project known it is nothing learn writes
    assert (cloned / "CLAUDE.md").read_text() == "# project\n"


def test_user_files_shared_between_agents_and_a_linked_home_are_still_written(
        home: Path, tmp_path: Path) -> None:
    # ~/.codex/AGENTS.md linked to ~/.claude/CLAUDE.md: one person's rules for two agents.
    (home / ".codex").mkdir()
    (home / ".codex" / "AGENTS.md").symlink_to(home / ".claude" / "CLAUDE.md")
    assert confine(home / ".codex" / "AGENTS.md") == home / ".claude" / "CLAUDE.md"
    # ~/.gemini a link to a dotfiles folder that is also a project learn knows: the file
    # there is still the user's GEMINI.md.
    dotfiles = home / "dotfiles"
    (dotfiles / ".git").mkdir(parents=True)
    (dotfiles / "gemini").mkdir()
    (home / ".gemini").symlink_to(dotfiles / "gemini")
    assert confine(home / ".gemini" / "GEMINI.md", [dotfiles]) == dotfiles / "gemini" / "GEMINI.md"
