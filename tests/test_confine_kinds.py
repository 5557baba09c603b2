"""A link lands only on the same kind of file as its name (learn.report.confine): a
CLAUDE.md is written as markdown instructions, so it must lead to markdown instructions,
never to Claude Code's settings.json or to learn's own data; learn's backups and check
files are written only by the writers that ask for them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from learn.guard.files import checks_dir, rules_file
from learn.guard.rules import load_rules
from learn.report.apply import plan_all, plan_file, write_plan
from learn.report.confine import SURFACES, backups_dir, confine, may_write
from learn.report.edits import FilePlan, RuleEdit, sha256
from learn.report.errors import ConfinementError

SETTINGS = json.dumps({"permissions": {"deny": ["Bash(rm -rf:*)"]}}, indent=2) + "\n"


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def cloned(home: Path) -> Path:
    repo = home / "code" / "cloned"
    (repo / ".git").mkdir(parents=True)
    return repo


def rule(path: Path, project: Path) -> RuleEdit:
    return RuleEdit(key="directive:use-bun-always", text="Use bun, not npm.", target=path,
                    project=project)


def test_a_claude_md_linked_to_the_claude_settings_is_refused_and_they_stay_json(
        home: Path, cloned: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(SETTINGS)
    claude_md = cloned / "CLAUDE.md"
    claude_md.symlink_to("../../.claude/settings.json")
    with pytest.raises(ConfinementError) as refused:
        plan_file(claude_md, [rule(claude_md, cloned)], [cloned])
    message = str(refused.value)
    assert str(claude_md) in message and str(settings) in message
    assert "markdown instructions" in message and "settings" in message
    [plan] = plan_all([rule(claude_md, cloned)], [cloned])
    assert plan.refused is not None and "markdown instructions" in plan.refused
    assert settings.read_text() == SETTINGS


def test_a_claude_md_linked_into_learns_check_rules_is_refused_and_the_check_still_loads(
        home: Path, cloned: Path) -> None:
    victim = str(home / "code" / "bank")
    rf = rules_file(victim)
    rf.parent.mkdir(parents=True)
    rules = json.dumps({"format": 1, "project": victim, "rules": [
        {"id": "no-force-push", "program": "git", "subcommand": "push", "flags": ["--force"],
         "reason": "never", "mode": "enforce"}]})
    rf.write_text(rules)
    claude_md = cloned / "CLAUDE.md"
    claude_md.symlink_to(os.path.relpath(rf, cloned))
    with pytest.raises(ConfinementError, match="learn's own") as refused:
        plan_file(claude_md, [rule(claude_md, cloned)], [cloned])
    assert str(claude_md) in str(refused.value) and str(rf) in str(refused.value)
    assert rf.read_text() == rules
    assert load_rules(rf).rules  # the enforced check still has its rule


@pytest.mark.parametrize(("name", "lands_on"), [
    # A markdown name on another kind of surface.
    ("CLAUDE.md", ".claude/settings.json"),
    ("AGENTS.md", "~/.codex/rules/learn.rules"),
    ("AGENTS.md", "~/.codex/hooks.json"),
    ("CLAUDE.md", ".claude/commands/release.md"),
    # Another kind's name on markdown instructions.
    (".claude/settings.json", "CLAUDE.md"),
    (".claude/commands/release.md", "AGENTS.md"),
    # Any surface name on learn's own data.
    ("CLAUDE.md", "@backups/CLAUDE.md.bak"),
    (".claude/settings.json", "@checks/other.json"),
])
def test_a_link_to_another_kind_of_file_is_refused(
        home: Path, cloned: Path, name: str, lands_on: str) -> None:
    if lands_on.startswith("@backups/"):
        target = backups_dir() / lands_on.removeprefix("@backups/")
    elif lands_on.startswith("@checks/"):
        target = checks_dir() / lands_on.removeprefix("@checks/")
    elif lands_on.startswith("~/"):
        target = home / lands_on.removeprefix("~/")
    else:
        target = cloned / lands_on
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("theirs\n")
    link = cloned / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    with pytest.raises(ConfinementError) as refused:
        confine(link, [cloned])
    assert str(link) in str(refused.value) and str(target) in str(refused.value)
    assert not may_write(link, [cloned])
    assert target.read_text() == "theirs\n"


@pytest.mark.parametrize(("name", "lands_on"), [
    ("CLAUDE.md", "AGENTS.md"),
    ("AGENTS.md", "CLAUDE.md"),
    ("GEMINI.md", "AGENTS.md"),
    (".github/copilot-instructions.md", "AGENTS.md"),
    (".claude/rules/style.md", "docs/CLAUDE.md"),
    (".claude/settings.local.json", ".claude/settings.json"),
    # Not a project's command linked to the person's own (`~/.claude/commands/pr.md`):
    # that leaves the project, and one project's body would replace the person's
    # `/pr` everywhere (tests/test_confine_links_out.py refuses it).
])
def test_a_link_to_the_same_kind_of_file_is_still_written_through(
        home: Path, cloned: Path, name: str, lands_on: str) -> None:
    target = home / lands_on.removeprefix("~/") if lands_on.startswith("~/") \
        else cloned / lands_on
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("# shared\n")
    link = cloned / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))
    assert confine(link, [cloned]) == target


def test_claude_md_linked_to_agents_md_gets_the_rule_in_agents_md(cloned: Path) -> None:
    agents = cloned / "AGENTS.md"
    agents.write_text("# Shared instructions\n")
    claude_md = cloned / "CLAUDE.md"
    claude_md.symlink_to("AGENTS.md")
    write_plan(plan_file(claude_md, [rule(claude_md, cloned)], [cloned]))
    assert claude_md.is_symlink()
    assert "- Use bun, not npm. <!-- learn directive:use-bun-always" in agents.read_text()


def test_a_name_that_is_no_instruction_file_does_not_become_one_by_linking(
        cloned: Path) -> None:
    (cloned / "CLAUDE.md").write_text("# P\n")
    notes = cloned / "notes.md"
    notes.symlink_to("CLAUDE.md")
    with pytest.raises(ConfinementError, match="not an instruction file"):
        confine(notes, [cloned])


def test_learns_own_files_only_for_the_writers_that_ask_for_them(cloned: Path) -> None:
    backup = backups_dir() / "x.bak"
    check = checks_dir() / "shop-0123.json"
    for own in (backup, check):
        assert not may_write(own), own
        with pytest.raises(ConfinementError, match="learn's own"):
            confine(own, [cloned])
        assert confine(own, internal=True) == own
        assert may_write(own, internal=True)
    # Asking for learn's files does not let another kind's name reach them.
    (cloned / ".claude").mkdir()
    check.parent.mkdir(parents=True)
    check.write_text("{}\n")
    (cloned / ".claude" / "settings.json").symlink_to(check)
    with pytest.raises(ConfinementError):
        confine(cloned / ".claude" / "settings.json", [cloned], internal=True)
    # The instruction surfaces stay writable by the internal writers too.
    assert confine(cloned / "CLAUDE.md", [cloned], internal=True) == cloned / "CLAUDE.md"


def test_every_surface_has_a_kind() -> None:
    assert all(s.kind for s in SURFACES)
    assert {s.kind for s in SURFACES if s.base in ("learn-backups", "learn-checks")}.isdisjoint(
        s.kind for s in SURFACES if s.base not in ("learn-backups", "learn-checks"))


def test_a_plan_learn_made_for_its_check_data_is_written_but_no_rule_is_planned_there(
        cloned: Path) -> None:
    data = checks_dir() / "shop-0123.json"
    data.parent.mkdir(parents=True)
    data.write_text("{}\n")
    with pytest.raises(ConfinementError, match="learn's own"):
        plan_file(data, [rule(data, cloned)], [cloned])
    assert data.read_text() == "{}\n"
    # `learn apply` of a check hands write_plan the data file's plan itself.
    plan = FilePlan(path=data, original="{}\n", original_hash=sha256(b"{}\n"),
                    new_text='{"format": 1}\n', projects=(str(cloned),))
    assert write_plan(plan) is not None  # backed up, then written
    assert data.read_text() == '{"format": 1}\n'
