"""learn never makes an instruction file or folder beside one whose name differs only in
case (learn.report.confine: the one check every write makes, here for a file that does
not exist yet).

A Linux folder, a WSL one and a Windows folder made case-sensitive (`fsutil file
setCaseSensitiveInfo`) tell `claude.md` from `CLAUDE.md`. Before, `learn apply` in a
project holding `claude.md` made `CLAUDE.md` beside it, and `.claude/rules/x.md` beside
a `.claude/Rules/`: the person's rules split over two files, one of them read by no
agent. Now the existing entry is used when its own name is the surface asked for (as
Windows' rules read names: tests/_windows_sim.py `windows`), and refused, naming both,
when it is not. Real folders on this machine, which is case-sensitive.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _windows_sim import record_bun, windows
from click.testing import CliRunner

from learn.report.confine import confine, may_write
from learn.report.errors import ConfinementError

__all__ = ["windows"]  # the fixture, from tests/_windows_sim.py


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize(("existing", "asked", "made"), [
    ("claude.md", "CLAUDE.md", "CLAUDE.md"),
    ("Claude.md", "CLAUDE.md", "CLAUDE.md"),
    ("agents.md", "AGENTS.md", "AGENTS.md"),
    ("CLAUDE.LOCAL.md", "CLAUDE.local.md", "CLAUDE.local.md"),
    (".claude/Rules/", ".claude/rules/testing.md", "the folder"),
    (".Claude/", ".claude/settings.json", "the folder"),
    (".github/Instructions/", ".github/instructions/a.instructions.md", "the folder"),
    ("web/Agents.md", "web/AGENTS.md", "AGENTS.md"),
])
def test_a_new_surface_beside_a_name_differing_in_case_is_refused_naming_both(
        project: Path, existing: str, asked: str, made: str) -> None:
    there = project / existing
    if existing.endswith("/"):
        there.mkdir(parents=True)
    else:
        there.parent.mkdir(parents=True, exist_ok=True)
        there.write_text("# the person's\n")
    before = _tree(project)
    with pytest.raises(ConfinementError, match="differs only in case") as refused:
        confine(project / asked, [project])
    said = str(refused.value)
    assert str(there).rstrip("/") in said and made in said and "nothing was written" in said
    assert not may_write(project / asked, [project])
    assert _tree(project) == before


def test_a_new_surface_with_no_such_neighbour_is_made_as_before(project: Path) -> None:
    (project / "README.md").write_text("x\n")
    (project / ".claude").mkdir()
    for rel in ("CLAUDE.md", "AGENTS.md", ".claude/rules/testing.md", ".claude/settings.json"):
        assert confine(project / rel, [project]) == project / rel


def test_two_spellings_differing_in_case_are_both_named(project: Path) -> None:
    (project / "claude.md").write_text("a\n")
    (project / "Claude.md").write_text("b\n")
    with pytest.raises(ConfinementError) as refused:
        confine(project / "CLAUDE.md", [project])
    assert str(project / "Claude.md") in str(refused.value)
    assert str(project / "claude.md") in str(refused.value)


def test_an_existing_name_that_is_itself_the_surface_is_written_instead(project: Path) -> None:
    # A command file is any `*.md` of `.claude/commands`: the person's `deploy.md` is the
    # one learn writes, never a second `Deploy.md` beside it.
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "deploy.md").write_text("ship it\n")
    assert confine(commands / "Deploy.md", [project]) == commands / "deploy.md"


def test_where_names_fold_the_persons_spelling_is_the_file_written(
        project: Path, windows: None) -> None:
    # Windows' rules (a folder made case-sensitive still reads `claude.md` as CLAUDE.md
    # to learn's check): the existing spelling is used, never a second file made.
    (project / "claude.md").write_text("# Shop\n")
    assert confine(project / "CLAUDE.md", [project]) == project / "claude.md"
    (project / ".claude" / "Rules").mkdir(parents=True)
    assert confine(project / ".claude" / "rules" / "x.md", [project]) == \
        project / ".claude" / "Rules" / "x.md"


def test_apply_makes_no_claude_md_beside_the_persons_claude_md(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    memory = project / "claude.md"
    memory.write_text("# Shop\n")
    record_bun(tmp_path / "data", project)
    monkeypatch.chdir(project)
    res = CliRunner().invoke(command, ["--project", str(project), "--yes"])
    assert res.exit_code != 0
    assert "differs only in case" in res.output and str(memory) in res.output
    assert sorted(p.name for p in project.iterdir()) == [".git", "claude.md"]
    assert memory.read_text() == "# Shop\n"
