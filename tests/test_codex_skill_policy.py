"""A Codex skill learn writes is used only when the person names it, as the prompt was.

A custom prompt ran only when the person typed it; a skill's name and description sit in
the model's context, and Codex lets the model use it on its own when it judges a task
matches. So beside each SKILL.md learn writes the skill's `agents/openai.yaml` saying
`policy: allow_implicit_invocation: false`, learn's own text, confined as a kind of its
own, shown in the diff and confirmed with the SKILL.md, and taken away by `--undo`. The
real Codex 0.171.0 (last tests; they skip without build/codex unless LEARN_REQUIRE_CODEX
is set) still loads and lists the skill, and leaves it out of the skills the model is told
of: its `skills/list` answer has no field for the policy, its `debug prompt-input` (what
the model is sent) shows it.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from _said_to_agents import project, record
from click.testing import CliRunner, Result
from test_codex_skills import _codex, _listed, _offline, _rollout
from test_f5_commands_and_denials_follow_agents import BODY, _command

from learn.report.apply import plan_all, plan_file, write_plan
from learn.report.codex_commands import EXPLICIT_ONLY, codex_command, skills_dir
from learn.report.confine import confine, may_write
from learn.report.edits import ApplyError, RuleEdit
from learn.report.errors import ConfinementError

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)

KEY = "request:release-notes"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _skill(name: str = "release-notes") -> Path:
    return skills_dir() / name / "SKILL.md"


def _policy(name: str = "release-notes") -> Path:
    return skills_dir() / name / "agents" / "openai.yaml"


def _apply(project: Path, *args: str, code: int = 0) -> Result:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == code, res.output
    return res


def _edit(name: str = "release-notes") -> RuleEdit:
    return RuleEdit(key=f"request:{name}", text="Release notes.", target=codex_command(name),
                    provenance="2 sessions", form="command",
                    description="Write the release notes.", body=BODY)


# -- planned, shown and written with the skill ------------------------------------------

def test_the_skill_is_written_with_its_explicit_only_policy(tmp_path: Path,
                                                            project: Path) -> None:
    _rollout("0.171.0")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    out = _apply(project, "--yes").output
    assert _skill().is_file()
    assert _policy().read_text() == "policy:\n  allow_implicit_invocation: false\n"
    # Shown before it is written, as its own file, and said why.
    assert f"+++ {_policy()}\n" in out and "+  allow_implicit_invocation: false\n" in out
    assert "Codex may use the skill on its own" in out
    assert out.index(f"wrote {_policy()}") < out.index(f"wrote {_skill()}")


def test_a_dry_run_shows_both_and_its_token_writes_both(tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    out = _apply(project, "--dry-run").output
    assert f"+++ {_policy()}\n" in out and f"+++ {_skill()}\n" in out
    assert not (_home() / ".agents").exists()
    found = re.search(r"--confirm (\w+)", out)
    assert found is not None
    _apply(project, "--confirm", found[1])
    assert _policy().read_text() == EXPLICIT_ONLY and _skill().is_file()


def test_said_no_to_at_a_terminal_it_is_not_written(tmp_path: Path, project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands import apply_writes

    monkeypatch.setattr(apply_writes, "interactive", lambda: True)
    record(tmp_path, project, _command(project, ("codex", "codex")))
    from learn.commands.apply import command

    # No to the policy, yes to the skill: each file is the person's to confirm.
    res = CliRunner().invoke(command, ["--project", str(project)], input="n\ny\n")
    assert f"Write 1 command to {_policy()}?" in res.output
    assert not _policy().exists() and _skill().is_file()


def test_planned_whole_the_policy_comes_first() -> None:
    plans = plan_all([_edit()])
    assert [p.path for p in plans] == [_policy(), _skill()]
    policy = plans[0]
    assert policy.refused is None and policy.original is None
    assert policy.new_text == EXPLICIT_ONLY and [e.key for e in policy.applied] == [KEY]


def test_a_custom_prompt_gets_no_policy(tmp_path: Path, project: Path) -> None:
    _rollout("0.110.0")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    assert (_home() / ".codex" / "prompts" / "release-notes.md").is_file()
    assert not (_home() / ".agents").exists()


# -- a skill learn wrote before --------------------------------------------------------

def test_an_earlier_skill_gets_it_only_when_applied_again(tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    # As a learn without the policy left it.
    _policy().unlink()
    _policy().parent.rmdir()
    skill = _skill().read_text()
    # Not applied again: nothing written.
    _apply(project, "--yes")
    _apply(project, "--only", KEY, "--yes")
    assert not _policy().parent.exists()
    # Applied again (a place named): the policy is planned, shown, and written; the
    # skill, already there, is left as it is.
    out = _apply(project, "--only", KEY, "--agent", "codex", "--yes").output
    assert f"+++ {_policy()}\n" in out
    assert _policy().read_text() == EXPLICIT_ONLY and _skill().read_text() == skill
    # And once there, not planned again.
    plans = plan_all([_edit()])
    assert [p.path for p in plans] == [_skill()] and not plans[0].changed


def test_a_policy_file_with_other_text_is_left_and_a_new_skill_refused() -> None:
    _policy().parent.mkdir(parents=True)
    _policy().write_text("interface:\n  display_name: Notes\n")
    [plan] = plan_all([_edit()])
    assert plan.path == _skill() and plan.refused is not None
    assert "on its own" in plan.refused and "does not replace it" in plan.refused
    assert _policy().read_text() == "interface:\n  display_name: Notes\n"
    assert not _skill().exists()


def test_the_skill_already_there_keeps_its_own_policy_file_and_says_so() -> None:
    [first, skill] = plan_all([_edit()])
    write_plan(first)
    write_plan(skill)
    _policy().write_text("policy:\n  allow_implicit_invocation: true\n")
    policy, again = plan_all([_edit()])
    assert policy.path == _policy() and policy.refused is not None
    assert "does not replace it" in policy.refused and not again.changed
    assert _policy().read_text() == "policy:\n  allow_implicit_invocation: true\n"


# -- confined to that one shape, its text learn's ---------------------------------------

def test_only_a_skill_folders_agents_openai_yaml_may_be_written() -> None:
    skills = skills_dir()
    assert confine(_policy()) == _policy()
    for wrong in (skills / "agents" / "openai.yaml", skills / ".hidden" / "agents" / "openai.yaml",
                  skills / "x" / "agents" / "other.yaml", skills / "x" / "openai.yaml",
                  skills / "x" / "agents" / "deep" / "openai.yaml",
                  skills / "x" / "y" / "agents" / "openai.yaml",
                  _home() / ".agents" / "agents" / "openai.yaml",
                  skills / "x" / "agents" / ".." / ".." / ".." / ".bashrc",
                  _home() / ".codex" / "skills" / "x" / "agents" / "openai.yaml"):
        assert not may_write(wrong), wrong


def test_a_linked_agents_folder_cannot_carry_it_out() -> None:
    (_home() / ".ssh").mkdir()
    folder = skills_dir() / "release-notes"
    folder.mkdir(parents=True)
    (folder / "agents").symlink_to(_home() / ".ssh")
    with pytest.raises(ConfinementError):
        confine(_policy())
    # Nor does the skill go without it: Codex would use it unasked.
    [plan] = plan_all([_edit()])
    assert plan.path == _skill() and plan.refused is not None and "unasked" in plan.refused
    assert not _skill().exists() and not (_home() / ".ssh" / "openai.yaml").exists()


@pytest.mark.parametrize("other", ["SKILL.md", "prompt", "config"])
def test_a_policy_linked_to_another_kind_of_file_is_refused(other: str) -> None:
    targets = {"SKILL.md": _skill("deploy"),
               "prompt": _home() / ".codex" / "prompts" / "deploy.md",
               "config": _home() / ".codex" / "config.toml"}
    target = targets[other]
    target.parent.mkdir(parents=True)
    target.write_text("theirs\n")
    _policy().parent.mkdir(parents=True)
    _policy().symlink_to(target)
    with pytest.raises(ConfinementError):
        confine(_policy())
    assert target.read_text() == "theirs\n"


def test_no_rule_or_command_goes_into_it(tmp_path: Path, project: Path) -> None:
    # `--file` names any instruction file; this one holds only learn's policy.
    _policy().parent.mkdir(parents=True)
    with pytest.raises(ApplyError, match="only its own policy"):
        plan_file(_policy(), [RuleEdit(KEY, "Run the tests first.", _policy())])
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes", "--file", str(_policy()), code=1)
    assert not _policy().exists()


# -- undone whole ----------------------------------------------------------------------

def test_undo_takes_both_files_and_the_folders_learn_made(tmp_path: Path,
                                                          project: Path) -> None:
    theirs = _skill("deploy")
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: deploy\ndescription: Deploy.\n---\nDeploy it.\n")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    assert _policy().is_file() and _skill().is_file()
    out = _apply(project, "--undo", "--yes").output
    assert not (skills_dir() / "release-notes").exists(), out
    assert theirs.read_text().startswith("---\nname: deploy\n")


def test_undo_of_a_policy_added_later_keeps_the_skill(tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    _policy().unlink()
    _policy().parent.rmdir()
    _apply(project, "--only", KEY, "--agent", "codex", "--yes")
    _apply(project, "--undo", "--yes")
    assert _skill().is_file() and not _policy().parent.exists()


# -- the real Codex -----------------------------------------------------------------------

def _told_to_model(codex: Path, cwd: Path) -> set[str]:
    """The skills the real Codex tells the model of, to use on its own judgement: the
    `- name: description (file: ...)` lines of `<skills_instructions>` in what `codex
    debug prompt-input` renders as the model's input."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "CODEX"))}
    env["CODEX_HOME"] = str(_home() / ".codex")
    done = subprocess.run([*_offline(), str(codex), "debug", "prompt-input", "hello"], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    texts = [c.get("text", "") for item in json.loads(done.stdout)
             for c in item.get("content") or () if isinstance(c, dict)]
    [skills] = [t for t in texts if "<skills_instructions>" in t]
    return set(re.findall(r"^- ([^:\n]+): .*\(file: [^)]*\)$", skills, re.M))


def test_the_real_codex_lists_the_skill_and_keeps_it_from_the_model(tmp_path: Path) -> None:
    codex = _codex()
    for plan in plan_all([_edit()]):
        assert plan.refused is None, plan.refused
        write_plan(plan)
    # A skill beside it without the policy file: the model is told of that one.
    other = _skill("deploy-notes")
    other.parent.mkdir(parents=True)
    other.write_text('---\nname: "deploy-notes"\ndescription: "Deploy the notes."\n---\nDo.\n')
    where = tmp_path / "elsewhere"
    where.mkdir()
    listed = {s["name"]: s for s in _listed(codex, where) if s["scope"] == "user"}
    # Loaded and listed, enabled, with no error (`_listed` asserts none).
    assert set(listed) == {"release-notes", "deploy-notes"}
    assert listed["release-notes"]["enabled"] is True
    assert listed["release-notes"]["path"] == str(_skill())
    told = _told_to_model(codex, where)
    assert "deploy-notes" in told
    assert "release-notes" not in told, told
