"""A CLAUDE.md or rule file `learn apply` creates is the person's: made as any new file
is (0666 less the umask), not 0600 as learn's own data is. A file that was there keeps
its mode, and what learn keeps for itself (the backup of a file it rewrote, a check's
data file) stays 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from learn.guard.files import checks_dir
from learn.report.apply import backups_dir, plan_file, write_plan
from learn.report.edits import FilePlan, RuleEdit


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder beside the test's HOME (a folder holding HOME is no project)."""
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture(params=[0o022, 0o027, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    mask: int = request.param
    before = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _write(path: Path, project: Path, key: str = "directive:b", text: str = "Say B.") -> None:
    write_plan(plan_file(path, [RuleEdit(key, text, path)], [project]))


@pytest.mark.parametrize("name", ["CLAUDE.md", ".claude/rules/testing.md", "AGENTS.md"])
def test_a_new_instruction_file_gets_the_mode_any_new_file_gets(
        project: Path, umask: int, name: str) -> None:
    path = project / name
    _write(path, project)
    assert "Say B." in path.read_text()
    assert _mode(path) == 0o666 & ~umask


def test_a_file_that_was_there_keeps_its_mode(project: Path, umask: int) -> None:
    shared, private = project / "CLAUDE.md", project / "CLAUDE.local.md"
    shared.write_text("# Notes\n")
    shared.chmod(0o664)
    private.write_text("# Mine\n")
    private.chmod(0o600)
    _write(shared, project)
    _write(private, project, "directive:c", "Say C.")
    assert _mode(shared) == 0o664
    assert _mode(private) == 0o600


def test_the_backup_of_a_persons_file_stays_private(project: Path) -> None:
    path = project / "CLAUDE.md"
    path.write_text("# Notes\n")
    path.chmod(0o644)
    _write(path, project)
    [backup] = list(backups_dir().iterdir())
    assert backup.read_text() == "# Notes\n"
    assert _mode(backup) == 0o600
    assert _mode(path) == 0o644


def test_learns_own_data_file_stays_private_when_new(umask: int) -> None:
    data = checks_dir() / "shop-0123.json"
    write_plan(FilePlan(path=data, original=None, original_hash="", new_text="{}\n"))
    assert data.read_text() == "{}\n"
    assert _mode(data) == 0o600
