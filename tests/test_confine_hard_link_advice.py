"""A file with a second name (a hard link) is refused with what to do about it, in
commands of the system learn runs on.

The refusal told everyone to run `ln -sf CLAUDE.md OTHER`: a POSIX command, which
neither cmd nor PowerShell has. On Windows it says what works there: delete the other
name, or make it a symlink with cmd's `mklink` (which takes Developer Mode or an
administrator's prompt). Windows is modelled by its names flag
(`learn.windows_names.WINDOWS`), as tests/test_confine_windows.py does: the link
itself is a real hard link on this machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from learn import windows_names
from learn.report.confine import confine
from learn.report.errors import ConfinementError


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A project whose CLAUDE.md and AGENTS.md are one file: CLAUDE.md."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# Shop\n")
    os.link(root / "CLAUDE.md", root / "AGENTS.md")
    return root / "CLAUDE.md"


def _refusal(path: Path) -> str:
    with pytest.raises(ConfinementError, match="hard links") as refused:
        confine(path, [path.parent])
    return str(refused.value)


def test_on_posix_the_hard_link_refusal_says_the_ln_command_as_before(linked: Path) -> None:
    said = _refusal(linked)
    assert "Nothing was written to it." in said
    assert "(ln -sf CLAUDE.md OTHER)" in said and "mklink" not in said


def test_on_windows_the_hard_link_refusal_says_what_works_there(
        linked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windows_names, "WINDOWS", True)
    said = _refusal(linked)
    assert "ln -sf" not in said and "Nothing was written to it." in said
    assert "Delete the other name" in said
    # mklink's order is LINK TARGET, and the target by its whole path: a relative one
    # is read from the link's own folder.
    assert f'`del OTHER` then `mklink OTHER "{linked}"`' in said
    assert "Developer Mode" in said and "administrator" in said
    assert "\n" not in said
    assert linked.read_text() == (linked.parent / "AGENTS.md").read_text() == "# Shop\n"
