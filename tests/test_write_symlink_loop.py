"""A symlink loop above a target is a refusal of that file, not a crash of the apply.

The audit's case: `pkg` linked to itself in the project and a rule planned for
`pkg/CLAUDE.md`: confine's lstat raised ELOOP (an OSError, not a ConfinementError),
plan_all let it through, and `learn apply` stopped with a traceback, losing the plan
for the project's own CLAUDE.md with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.report.apply import plan_all
from learn.report.confine import confine, may_write
from learn.report.edits import RuleEdit
from learn.report.errors import ConfinementError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").symlink_to(root / "pkg")
    return root


def test_confine_refuses_a_path_under_a_link_loop_naming_it_and_why(project: Path) -> None:
    looped = project / "pkg" / "CLAUDE.md"
    with pytest.raises(ConfinementError) as refused:
        confine(looped, [project])
    assert str(looped) in str(refused.value)
    assert "symbolic links" in str(refused.value)  # ELOOP's own words
    assert not may_write(looped, [project])


def test_the_other_plans_go_ahead(project: Path) -> None:
    good, looped = project / "CLAUDE.md", project / "pkg" / "CLAUDE.md"
    plans = plan_all([RuleEdit(key="directive:a", text="Use bun", target=good, project=project),
                      RuleEdit(key="directive:b", text="Use pnpm", target=looped,
                               project=project)])
    by_path = {p.path.name if p.path == good else "looped": p for p in plans}
    assert by_path["CLAUDE.md"].refused is None and "Use bun" in by_path["CLAUDE.md"].new_text
    assert by_path["looped"].refused is not None
    assert str(looped) in by_path["looped"].refused
