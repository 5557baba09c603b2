"""What `write_plan` (learn.report.apply) does when the file moves under it: an editor's
save landing while learn backs up or writes aborts the write and keeps the person's
bytes; a file with two names (a hard-linked CLAUDE.md / AGENTS.md) is refused, since
the atomic replace would give one name the new text and leave the other the old."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from learn.report import apply as apply_mod
from learn.report.apply import plan_all, plan_file, write_plan
from learn.report.edits import ApplyError, ConcurrentEditError, FilePlan, RuleEdit, sha256

MINE = "# P\nMY EDIT, saved by the editor meanwhile\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# P\n")
    return root


def rule(path: Path, project: Path) -> RuleEdit:
    return RuleEdit(key="directive:use-bun-always", text="Use bun, not npm.", target=path,
                    project=project)


def saving_during(step: str, path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The person's editor saves `path` while write_plan runs `step`."""
    real: Callable[..., object] = getattr(apply_mod, step)

    def save_then_step(*args: object) -> object:
        path.write_text(MINE)
        return real(*args)

    monkeypatch.setattr(apply_mod, step, save_then_step)


@pytest.mark.parametrize("step", ["save_backup", "_atomic_replace"])
def test_a_save_landing_during_the_write_aborts_it_and_keeps_the_persons_bytes(
        project: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    path = project / "CLAUDE.md"
    plan = plan_file(path, [rule(path, project)], [project])
    saving_during(step, path, monkeypatch)
    with pytest.raises(ConcurrentEditError, match="changed"):
        write_plan(plan)
    assert path.read_text() == MINE
    assert sorted(p.name for p in project.iterdir()) == [".git", "CLAUDE.md"]  # no temp left


def test_a_save_landing_before_a_removal_keeps_the_file(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = project / "CLAUDE.md"
    data = path.read_bytes()
    plan = FilePlan(path=path, original=data.decode(), original_hash=sha256(data), new_text="",
                    projects=(str(project),), remove=True)
    saving_during("save_backup", path, monkeypatch)
    with pytest.raises(ConcurrentEditError):
        write_plan(plan)
    assert path.read_text() == MINE


def test_a_hard_linked_claude_md_is_refused_and_both_names_keep_their_text(
        project: Path) -> None:
    claude_md, agents_md = project / "CLAUDE.md", project / "AGENTS.md"
    os.link(claude_md, agents_md)
    with pytest.raises(ApplyError, match="hard link") as refused:
        plan_file(claude_md, [rule(claude_md, project)], [project])
    assert str(claude_md) in str(refused.value)
    [plan] = plan_all([rule(claude_md, project)], [project])
    assert plan.refused is not None and "hard link" in plan.refused
    assert os.path.samefile(claude_md, agents_md)
    assert claude_md.read_text() == agents_md.read_text() == "# P\n"


def test_a_hard_link_made_after_planning_is_refused_at_the_write(project: Path) -> None:
    claude_md, agents_md = project / "CLAUDE.md", project / "AGENTS.md"
    plan = plan_file(claude_md, [rule(claude_md, project)], [project])
    os.link(claude_md, agents_md)
    with pytest.raises(ApplyError, match="hard link"):
        write_plan(plan)
    assert os.path.samefile(claude_md, agents_md)
    assert agents_md.read_text() == "# P\n"
