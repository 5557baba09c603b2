"""`learn apply` says a file is in a worktree only when its folder is a linked worktree.

The note ("… is in the worktree … the rules reach the other checkouts when its branch is
merged") compared the project's key with the folder's path. On WSL a drive folder's key
is its Windows spelling (`c:\\users\\me\\proj` for `/mnt/c/Users/Me/Proj`), on macOS keys
are case-folded: an audit (2026-12) saw the note on every apply into a main checkout
there. The checkout itself is asked now (learn.commands.apply.linked_worktree).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _git import git, needs_git

import learn.projects.flavour as flavour
from learn.commands.apply import _checkout_notes, linked_worktree
from learn.report.edits import FilePlan, RuleEdit

pytestmark = needs_git




def plan_in(folder: Path) -> FilePlan:
    edit = RuleEdit(key="directive:use-bun", text="Use bun.", target=folder / "CLAUDE.md",
                    project=folder)
    return FilePlan(path=folder / "CLAUDE.md", original=None, original_hash="",
                    new_text="x", applied=[edit])


def test_a_main_checkout_on_a_wsl_drive_is_not_called_a_worktree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mnt = tmp_path / "mnt"
    proj = mnt / "c" / "Users" / "Me" / "My Proj"
    proj.mkdir(parents=True)
    git("init", "-q", str(proj), cwd=tmp_path)
    monkeypatch.setattr(flavour, "MOUNT_ROOT", str(mnt))
    monkeypatch.setattr(flavour, "_WSL", True)
    # The defect: the key `c:\users\me\my proj` never equals the folder's path.
    assert not linked_worktree(proj)
    assert _checkout_notes(plan_in(proj)) == []


@pytest.mark.skipif(sys.platform != "linux", reason="pretends to be macOS on Linux")
def test_a_main_checkout_whose_key_is_case_folded_is_not_called_a_worktree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proj = tmp_path / "Mac" / "Proj"
    proj.mkdir(parents=True)
    git("init", "-q", str(proj), cwd=tmp_path)
    monkeypatch.setattr(sys, "platform", "darwin")  # keys folded as on macOS
    assert not linked_worktree(proj)
    assert _checkout_notes(plan_in(proj)) == []


def test_a_linked_worktree_is_said_to_be_one(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shop.mkdir()
    git("init", "-q", "-b", "main", cwd=shop)
    git("commit", "-q", "--allow-empty", "-m", "start", cwd=shop)
    fix = tmp_path / "shop-fix"
    git("worktree", "add", "-q", "-b", "fix", str(fix), cwd=shop)
    assert linked_worktree(fix) and not linked_worktree(shop)
    assert _checkout_notes(plan_in(shop)) == []
    notes = _checkout_notes(plan_in(fix))
    assert notes == [f"{fix / 'CLAUDE.md'} is in the worktree {fix} of {shop}: the rules "
                     "reach the other checkouts when its branch is merged"]


def test_a_folder_in_no_checkout_is_no_worktree(tmp_path: Path) -> None:
    loose = tmp_path / "notes"
    loose.mkdir()
    assert not linked_worktree(loose)
    assert _checkout_notes(plan_in(loose)) == []
