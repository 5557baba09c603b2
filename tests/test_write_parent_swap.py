"""A folder swapped for a link after confine checked the path cannot carry a write out.

The audit's case: write_plan confined `.claude/rules/tooling.md`, then wrote by path;
a process in the repository renamed `.claude/rules` away and linked it to a folder
outside the project in between, and the new file landed there. Now the folder is
reached one name at a time with no link followed, held open, and must be the folder
confine saw; the file is staged and renamed relative to it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from learn.report import apply as apply_mod
from learn.report import held_folder
from learn.report.apply import plan_all, write_plan
from learn.report.confine import backups_dir
from learn.report.edits import ApplyError, FilePlan, RuleEdit


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "rules").mkdir(parents=True)
    return root


def _plan(target: Path, project: Path) -> FilePlan:
    [plan] = plan_all([RuleEdit(key="directive:use-bun", text="Use bun", target=target,
                                project=project)])
    assert plan.refused is None, plan.refused
    return plan


def _after_the_check(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """`swap` runs right after write_plan's confine check (at read_only_reason)."""
    real = apply_mod.read_only_reason

    def swapped(path: Path) -> str | None:
        swap()
        return real(path)

    monkeypatch.setattr(apply_mod, "read_only_reason", swapped)


def _rules_swapped_for_a_link(project: Path, tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> Path:
    """`.claude/rules` renamed away and linked to an outside folder (returned) right
    after write_plan's check; the write of `.claude/rules/tooling.md` must be refused."""
    victim = tmp_path / "victim"
    victim.mkdir()
    rules = project / ".claude" / "rules"
    plan = _plan(rules / "tooling.md", project)

    def swap() -> None:
        rules.rename(tmp_path / "old-rules")
        rules.symlink_to(victim)

    _after_the_check(monkeypatch, swap)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        write_plan(plan)
    return victim


def test_the_files_folder_swapped_for_a_link_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = _rules_swapped_for_a_link(project, tmp_path, monkeypatch)
    assert list(victim.iterdir()) == []
    assert list((tmp_path / "old-rules").iterdir()) == []


def test_a_folder_higher_up_swapped_for_a_link_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    (victim / "rules").mkdir(parents=True)
    plan = _plan(project / ".claude" / "rules" / "tooling.md", project)

    def swap() -> None:
        (project / ".claude").rename(tmp_path / "old-claude")
        (project / ".claude").symlink_to(victim)

    _after_the_check(monkeypatch, swap)
    with pytest.raises(ApplyError):
        write_plan(plan)
    assert list((victim / "rules").iterdir()) == []


def test_a_folder_replaced_by_another_folder_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No link at all: the folder confine saw is not the one there now.
    rules = project / ".claude" / "rules"
    plan = _plan(rules / "tooling.md", project)

    def swap() -> None:
        rules.rename(tmp_path / "old-rules")
        rules.mkdir()

    _after_the_check(monkeypatch, swap)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        write_plan(plan)
    assert list(rules.iterdir()) == []


def test_the_backups_folder_swapped_for_a_link_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = project / "CLAUDE.md"
    target.write_text("# P\n")
    plan = _plan(target, project)
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o755)
    real_confine = apply_mod.confine

    def confine_then_swap(path: Path, *args: object, **kwargs: object) -> Path:
        out = real_confine(path, *args, **kwargs)  # type: ignore[arg-type]
        if kwargs.get("internal") and backups_dir() in out.parents:
            backups_dir().rename(tmp_path / "old-backups")
            backups_dir().symlink_to(victim)
        return out

    monkeypatch.setattr(apply_mod, "confine", confine_then_swap)
    with pytest.raises(ApplyError):
        write_plan(plan)
    assert list(victim.iterdir()) == []
    assert os.stat(victim).st_mode & 0o777 == 0o755  # not made learn's private folder either
    assert target.read_text() == "# P\n"


def test_a_missing_folder_is_made_and_written_inside_the_project(project: Path) -> None:
    target = project / ".claude" / "rules" / "deep" / "tooling.md"
    write_plan(_plan(target, project))
    assert "Use bun" in target.read_text()
    assert sorted(p.name for p in target.parent.iterdir()) == ["tooling.md"]  # no temp left


def test_without_dir_fd_the_write_goes_by_path_as_before(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows has no dir_fd: there the write takes the path-based way.
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    target = project / "CLAUDE.md"
    target.write_text("# P\n")
    os.chmod(target, 0o644)
    backup = write_plan(_plan(target, project))
    assert "Use bun" in target.read_text() and os.stat(target).st_mode & 0o777 == 0o644
    assert backup is not None and backup.read_text() == "# P\n"


def _no_walk(folder: Path, *_: object) -> int:
    raise PermissionError(13, "a folder on the way may be passed through, not read", str(folder))


def test_a_folder_on_the_way_that_cannot_be_read_still_takes_the_write(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No O_PATH (macOS) and a 0711 folder on the way: the folder is opened by its path.
    monkeypatch.setattr(held_folder, "_walk", _no_walk)
    target = project / ".claude" / "rules" / "tooling.md"
    write_plan(_plan(target, project))
    assert "Use bun" in target.read_text()


def test_opened_by_its_path_a_swapped_folder_is_still_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_folder, "_walk", _no_walk)
    victim = _rules_swapped_for_a_link(project, tmp_path, monkeypatch)
    assert list(victim.iterdir()) == []


# Without dir_fd (Windows) the folder cannot be held open: it is checked by path at the
# hold and again just before the rename. Forced here on Linux, where the same swaps run.

def test_without_dir_fd_a_folder_swapped_before_the_hold_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    victim = _rules_swapped_for_a_link(project, tmp_path, monkeypatch)
    assert list(victim.iterdir()) == []


def test_without_dir_fd_a_folder_higher_up_swapped_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    victim = tmp_path / "victim"
    (victim / "rules").mkdir(parents=True)
    plan = _plan(project / ".claude" / "rules" / "tooling.md", project)

    def swap() -> None:
        (project / ".claude").rename(tmp_path / "old-claude")
        (project / ".claude").symlink_to(victim)

    _after_the_check(monkeypatch, swap)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        write_plan(plan)
    assert list((victim / "rules").iterdir()) == []


def test_without_dir_fd_a_folder_replaced_by_another_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    rules = project / ".claude" / "rules"
    plan = _plan(rules / "tooling.md", project)

    def swap() -> None:
        rules.rename(tmp_path / "old-rules")
        rules.mkdir()

    _after_the_check(monkeypatch, swap)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        write_plan(plan)
    assert list(rules.iterdir()) == []


def test_without_dir_fd_a_swap_while_the_new_text_is_staged_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # After the hold, while the new bytes go to disk, the folder is swapped for a link to
    # one whose file holds the same bytes (so the re-read before the rename passes): the
    # look at the folder just before the rename finds it is not the one held.
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    target = project / ".claude" / "rules" / "tooling.md"
    target.write_text("# mine\n")
    plan = _plan(target, project)
    victim = tmp_path / "victim"
    victim.mkdir()
    rules = target.parent
    real_fill = apply_mod.fill

    def fill_then_swap(staged: held_folder.Staged, data: bytes, mode: int) -> None:
        real_fill(staged, data, mode)
        rules.rename(tmp_path / "old-rules")
        rules.symlink_to(victim)
        (victim / "tooling.md").write_text("# mine\n")

    monkeypatch.setattr(apply_mod, "fill", fill_then_swap)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        write_plan(plan)
    assert (victim / "tooling.md").read_text() == "# mine\n"
    assert sorted(p.name for p in victim.iterdir()) == ["tooling.md"]
    assert (tmp_path / "old-rules" / "tooling.md").read_text() == "# mine\n"


def test_without_dir_fd_a_removal_checks_the_folder_first(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_folder, "BY_FOLDER", False)
    rules = project / ".claude" / "rules"
    target = rules / "tooling.md"
    target.write_text("# mine\n")
    folder = held_folder.hold(rules, held_folder.seen(rules), private=False)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "tooling.md").write_text("# theirs\n")
    rules.rename(tmp_path / "old-rules")
    rules.symlink_to(victim)
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        held_folder.unlink_in(folder, "tooling.md")
    assert (victim / "tooling.md").read_text() == "# theirs\n"


def test_by_path_a_name_surrogate_reparse_point_is_a_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows: a junction's lstat is a folder whose reparse tag names another; a
    # OneDrive placeholder's tag does not, and it is a folder like any other.
    class Junction:
        def __init__(self, st: os.stat_result, tag: int) -> None:
            self._st, self.st_reparse_tag = st, tag

        def __getattr__(self, name: str) -> object:
            return getattr(self._st, name)

    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    real_lstat = os.lstat

    def lstat_with(tag: int) -> Callable[[object], object]:
        def lstat(p: object) -> object:
            st = real_lstat(p)  # type: ignore[arg-type]
            return Junction(st, tag) if Path(str(p)) == tmp_path / "a" else st
        return lstat

    monkeypatch.setattr(os, "lstat", lstat_with(0xA0000003))  # a mount point
    with pytest.raises(ApplyError, match="changed since learn checked it"):
        held_folder._by_path(inner, None)
    monkeypatch.setattr(os, "lstat", lstat_with(0x9000601A))  # a cloud file
    assert held_folder._by_path(inner, None) == (os.stat(inner).st_dev, os.stat(inner).st_ino)
