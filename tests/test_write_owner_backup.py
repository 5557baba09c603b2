"""A rewritten file keeps its owner, group and user.* attributes, and a file however deep
can be backed up (and put back by `learn apply --undo`).

The audit's cases: learn replaces a file by renaming a new one over it, so a shared
CLAUDE.md owned 65534:65534 (mode 0664) became root's when learn ran as root, and lost
its user.* extended attributes; and a backup's name was the whole sanitised path plus
~36 characters, so a target deeper than ~205 characters failed with "File name too
long" and could not be written at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from learn.report.apply import plan_all, save_backup, write_plan
from learn.report.confine import backups_dir
from learn.report.edits import RuleEdit, sha256
from learn.report.undo import undo_plan
from learn.store.apply_journal import Write

LONG = "packages-with-a-rather-long-name"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def _write(target: Path, project: Path) -> Path | None:
    [plan] = plan_all([RuleEdit(key="directive:use-bun", text="Use bun", target=target,
                                project=project)])
    assert plan.refused is None, plan.refused
    return write_plan(plan)


def _xattrs_work(path: Path) -> bool:
    if not hasattr(os, "setxattr"):
        return False
    try:
        os.setxattr(path, "user.probe", b"1")
        os.removexattr(path, "user.probe")
    except OSError:
        return False
    return True


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a file to another owner needs root")
def test_a_shared_file_keeps_its_owner_group_and_mode(project: Path) -> None:
    target = project / "CLAUDE.md"
    target.write_text("# team rules\n")
    os.chmod(target, 0o664)
    os.chown(target, 65534, 65534)
    _write(target, project)
    st = target.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (65534, 65534, 0o664)
    assert "Use bun" in target.read_text()


def test_a_rewritten_file_keeps_its_user_xattrs(project: Path) -> None:
    target = project / "CLAUDE.md"
    target.write_text("# team rules\n")
    if not _xattrs_work(target):
        pytest.skip("this filesystem keeps no user.* attributes")
    os.setxattr(target, "user.note", b"keep-me")
    _write(target, project)
    assert os.getxattr(target, "user.note") == b"keep-me"
    assert "Use bun" in target.read_text()


def test_a_deep_file_is_backed_up_and_undone(project: Path) -> None:
    deep = project.joinpath(*[LONG] * 7)
    deep.mkdir(parents=True)
    target = deep / "CLAUDE.md"
    target.write_text("# sub\n")
    assert len(str(target)) > 255
    backup = _write(target, project)
    assert backup is not None and backup.parent == backups_dir()
    assert len(backup.name.encode()) <= 255
    assert backup.read_text() == "# sub\n"
    assert f"{LONG}_CLAUDE.md~" in backup.name  # still says which file it keeps

    after = target.read_bytes()
    undo = undo_plan(Write(id=1, batch="b", action="apply", project=str(project),
                           path=str(target), before_hash=sha256(b"# sub\n"),
                           after_hash=sha256(after), backup_file=str(backup), keys=(),
                           written_at="2026-01-01T00:00:00", undone_at=None))
    assert undo.refused is None, undo.refused
    write_plan(undo)
    assert target.read_text() == "# sub\n"


def test_two_long_paths_that_end_alike_get_two_backups(tmp_path: Path) -> None:
    one = tmp_path / ("a" * 200) / "x" / "CLAUDE.md"
    two = tmp_path / ("b" * 200) / "x" / "CLAUDE.md"
    # The name without its time, bytes' hash and suffix: what names the file kept.
    names = {save_backup(p, b"same bytes\n").name.rsplit(".", 3)[0] for p in (one, two)}
    assert len(names) == 2


def test_a_backup_named_the_old_way_still_restores(project: Path) -> None:
    # Backups an older learn made are named by the whole path; `--undo` finds them by
    # the path its journal recorded, whatever the name.
    target = project / "CLAUDE.md"
    target.write_text("# before\n")
    backups_dir().mkdir(parents=True)
    old = backups_dir() / (str(target).strip("/").replace("/", "_")
                           + ".20250101T000000000000Z.deadbeef.bak")
    old.write_text("# before\n")
    _write(target, project)
    undo = undo_plan(Write(id=1, batch="b", action="apply", project=str(project),
                           path=str(target), before_hash=sha256(b"# before\n"),
                           after_hash=sha256(target.read_bytes()), backup_file=str(old),
                           keys=(), written_at="2025-01-01T00:00:00", undone_at=None))
    assert undo.refused is None, undo.refused
    write_plan(undo)
    assert target.read_text() == "# before\n"
