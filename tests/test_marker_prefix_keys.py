"""A rule whose key is a prefix of a key already in the file is still written.

The audit: with `<!-- learn directive:use-bun-always, 2 sessions -->` in Cursor's
learn.mdc, applying `directive:use-bun` said "already in learn.mdc" and wrote nothing,
because the check was `marker(key) in text`. Every surface kind asks one function
(`edits.has_marker`), which wants the marker followed by `,` or ` -->`; the key itself
still counts as present.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.report.agent_formats import plan_agent_file
from learn.report.command_plan import command_text, plan_command
from learn.report.edits import RuleEdit, has_marker, plan_text, rule_line
from learn.report.errors import ApplyError
from learn.report.surfaces_apply import plan_surface

LONGER = "directive:use-bun-always"
SHORT = "directive:use-bun"


def _section(key: str) -> str:
    line = rule_line(RuleEdit(key=key, text="Use bun always", target=Path("x"),
                              provenance="2 sessions"))
    return f"<!-- learn:begin -->\n{line}\n<!-- learn:end -->\n"


def test_has_marker_wants_the_key_itself_not_a_longer_one() -> None:
    assert not has_marker(_section(LONGER), SHORT)
    assert has_marker(_section(LONGER), LONGER)
    assert has_marker("- Use bun <!-- learn directive:use-bun -->", SHORT)  # no provenance
    assert not has_marker("- Use bun <!-- learn directive:use-bun.v2 -->", SHORT)


AGENT_FILES = [
    (".cursor/rules/learn.mdc", "---\ndescription: x\nalwaysApply: true\n---\n\n"),
    (".github/instructions/learn.instructions.md", '---\napplyTo: "**"\n---\n\n'),
    (".windsurf/rules/learn.md", "---\ntrigger: always_on\n---\n\n"),
    (".kiro/steering/learn.md", "---\ninclusion: always\n---\n\n"),
    ("AGENTS.md", "# Agents\n\n"),
    ("GEMINI.md", "# Gemini\n\n"),
]


@pytest.mark.parametrize(("rel", "head"), AGENT_FILES, ids=[r for r, _ in AGENT_FILES])
def test_agent_rule_file_takes_a_key_that_prefixes_one_already_there(
        tmp_path: Path, rel: str, head: str) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + _section(LONGER))
    edit = RuleEdit(key=SHORT, text="Use bun for scripts", target=path, form="agent-rule")
    plan = plan_agent_file(path, [edit])
    assert [e.key for e in plan.applied] == [SHORT], plan.notes
    assert has_marker(plan.new_text, SHORT) and has_marker(plan.new_text, LONGER)


@pytest.mark.parametrize(("rel", "head"), AGENT_FILES, ids=[r for r, _ in AGENT_FILES])
def test_agent_rule_file_with_the_key_itself_is_left_alone(
        tmp_path: Path, rel: str, head: str) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + _section(SHORT))
    edit = RuleEdit(key=SHORT, text="Use bun for scripts", target=path, form="agent-rule")
    plan = plan_agent_file(path, [edit])
    assert plan.applied == [] and plan.new_text == plan.original
    assert plan.notes == [f"{SHORT}: already in {path.name}"]


def _path_rule(path: Path) -> RuleEdit:
    return RuleEdit(key=SHORT, text="Use bun for scripts", target=path, form="path-rule",
                    surface_rules=("scripts/**",))


def test_claude_path_rule_file_takes_a_key_that_prefixes_one_already_there(
        tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "rules" / "bun.md"
    path.parent.mkdir(parents=True)
    path.write_text('---\npaths:\n  - "scripts/**"\n---\n\n' + _section(LONGER))
    plan = plan_surface(path, [_path_rule(path)])
    assert [e.key for e in plan.applied] == [SHORT], plan.notes
    assert has_marker(plan.new_text, SHORT)


def test_claude_path_rule_file_with_the_key_itself_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "rules" / "bun.md"
    path.parent.mkdir(parents=True)
    path.write_text('---\npaths:\n  - "scripts/**"\n---\n\n' + _section(SHORT))
    plan = plan_surface(path, [_path_rule(path)])
    assert plan.applied == [] and plan.new_text == plan.original
    assert plan.notes == [f"{SHORT}: already in bun.md"]


def _command(path: Path, key: str) -> RuleEdit:
    return RuleEdit(key=key, text="Deploy", target=path, form="command",
                    description="Deploy the site", body="Run make deploy.",
                    provenance="2 sessions")


def test_command_file_of_a_longer_key_is_a_different_command(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "commands" / "deploy.md"
    path.parent.mkdir(parents=True)
    path.write_text(command_text(_command(path, "command:deploy-prod")))
    with pytest.raises(ApplyError, match="is a different command"):
        plan_command(path, [_command(path, "command:deploy")])


def test_command_file_of_the_key_itself_is_already_there(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "commands" / "deploy.md"
    path.parent.mkdir(parents=True)
    path.write_text(command_text(_command(path, "command:deploy")))
    plan = plan_command(path, [_command(path, "command:deploy")])
    assert plan.applied == [] and plan.new_text == ""
    assert plan.notes == ["command:deploy: the command deploy.md is already there"]


def test_claude_md_takes_a_key_that_prefixes_one_already_there() -> None:
    path = Path("/p/CLAUDE.md")
    text, applied, notes = plan_text(_section(LONGER), [
        RuleEdit(key=SHORT, text="Use bun for scripts", target=path)], path)
    assert [e.key for e in applied] == [SHORT] and notes == []
    assert has_marker(text, SHORT)


def test_claude_md_with_the_key_itself_is_left_alone() -> None:
    path = Path("/p/CLAUDE.md")
    text, applied, notes = plan_text(_section(SHORT), [
        RuleEdit(key=SHORT, text="Use bun for scripts", target=path)], path)
    assert applied == [] and text == _section(SHORT)
    assert notes == [f"{SHORT}: already in CLAUDE.md, not added again"]
