"""`learn check add/remove/enforce` writes as safely as `learn apply`.

It had a writer of its own: each destination confined, then written by path. A
`.claude` folder swapped for a link between the check and the write carried the
hook out of the project; a save landing after its one look at the file was
overwritten; the person's settings were replaced with no backup; and a failure on
the second file left the first written (a data file, or a hook, standing alone).
Now each file goes through learn.report.apply.write_plan (held folder, a last look
before the rename, a backup), and the changes are written whole or put back."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from learn.guard.files import record_file, rules_file
from learn.guard.rules import CheckRule
from learn.report import apply as apply_mod
from learn.report import confine as confine_mod
from learn.report.check_install import (
    CheckError,
    claude_settings,
    codex_hooks,
    plan_rules,
)
from learn.report.check_writes import write_plan
from learn.report.confine import backups_dir

FORCE = CheckRule(id="no-force-push", program="git", subcommand="push",
                  flags=("--force", "-f"), arguments=("+*",),
                  reason="Never force push; ask me first.", mode="enforce")
RESET = CheckRule(id="no-hard-reset", program="git", subcommand="reset", flags=("--hard",),
                  reason="Never reset --hard.", mode="record")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / ".claude").mkdir()
    return root


def _when_staging(monkeypatch: pytest.MonkeyPatch, folder: Path, leaf: str,
                  act: Callable[[], None]) -> None:
    """`act` runs once, when the new bytes of `folder/leaf` are being flushed to disk (the
    file staged beside it, before the rename): the moment an editor's save, or a full
    disk, lands in the middle of a write."""
    real = os.fsync
    acted: list[bool] = []

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        staging = folder.is_dir() and any(
            e.name.startswith(f".{leaf}.") and e.stat(follow_symlinks=False).st_ino == st.st_ino
            for e in os.scandir(folder))
        if staging and not acted:
            acted.append(True)
            act()
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_folder_swapped_for_a_link_right_after_the_check_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `.claude` is swapped for a link to an outside folder right after each check of the
    # settings path (and put back for the next check, so every check sees the real
    # folder): only a write made inside the folder the check approved is refused.
    victim = tmp_path / "victim"
    victim.mkdir()
    claude = project / ".claude"
    away = tmp_path / "old-claude"
    real_confine = confine_mod.confine

    def confine_then_swap(path: Path, *args: object, **kwargs: object) -> Path:
        swapped = claude.is_symlink()
        if swapped:
            claude.unlink()
            away.rename(claude)
        out = real_confine(path, *args, **kwargs)  # type: ignore[arg-type]
        if path.name == "settings.local.json":
            swapped = True
        if swapped:
            claude.rename(away)
            claude.symlink_to(victim)
        return out

    monkeypatch.setattr(confine_mod, "confine", confine_then_swap)
    monkeypatch.setattr(apply_mod, "confine", confine_then_swap)
    plan = plan_rules(str(project), [FORCE])
    with pytest.raises(CheckError, match="changed since learn checked it"):
        write_plan(plan, str(project))
    assert list(victim.iterdir()) == []
    assert list(away.iterdir()) == []
    # Whole or not at all: the data file written before the hook is gone again.
    assert not rules_file(str(project)).exists()
    assert not record_file(str(project)).exists()


def test_a_save_landing_while_the_settings_are_written_is_kept(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = claude_settings(str(project))
    settings.write_text('{"model": "opus"}')
    plan = plan_rules(str(project), [FORCE])

    def save() -> None:
        settings.write_text('{"model": "sonnet"}')  # Claude Code's /model, meanwhile

    _when_staging(monkeypatch, settings.parent, settings.name, save)
    with pytest.raises(CheckError, match="changed while learn was writing it"):
        write_plan(plan, str(project))
    assert settings.read_text() == '{"model": "sonnet"}'
    assert not rules_file(str(project)).exists()
    assert not record_file(str(project)).exists()


def test_a_failure_on_the_second_file_puts_the_first_back(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_plan(plan_rules(str(project), [FORCE]), str(project))
    data, record = rules_file(str(project)), record_file(str(project))
    rules_before, record_before = data.read_bytes(), record.read_bytes()
    settings_before = claude_settings(str(project)).read_bytes()
    hooks = codex_hooks()
    plan = plan_rules(str(project), [FORCE, RESET], agents=("claude", "codex"))
    assert [c.path for c in plan.changes if c.before != c.after] == [data, hooks]

    def full() -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    _when_staging(monkeypatch, hooks.parent, hooks.name, full)
    with pytest.raises(CheckError, match="No space left") as raised:
        write_plan(plan, str(project))
    assert f"{data} is put back as it was" in str(raised.value)
    assert data.read_bytes() == rules_before
    assert record.read_bytes() == record_before
    assert claude_settings(str(project)).read_bytes() == settings_before
    assert not hooks.exists() and not hooks.parent.exists()  # the folder made for it too


def test_the_persons_settings_are_backed_up_before_the_hook_goes_in(project: Path) -> None:
    settings = claude_settings(str(project))
    original = b'{"permissions": {"allow": ["Bash(ls:*)"]}}\n'
    settings.write_bytes(original)
    settings.chmod(0o644)
    write_plan(plan_rules(str(project), [FORCE]), str(project))
    kept = [b for b in backups_dir().iterdir() if "settings.local.json" in b.name]
    assert [b.read_bytes() for b in kept] == [original]
    assert kept[0].stat().st_mode & 0o777 == 0o600
    assert settings.stat().st_mode & 0o777 == 0o644  # the file keeps its own mode
    # Taking the check away still restores the settings byte for byte (the install
    # record), and what the hook made them is backed up in turn.
    installed = settings.read_bytes()
    write_plan(plan_rules(str(project), []), str(project))
    assert settings.read_bytes() == original
    assert sorted(b.read_bytes() for b in backups_dir().iterdir()
                  if "settings.local.json" in b.name) == sorted([original, installed])


def test_removing_the_last_rule_still_takes_the_folder_learn_made(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    write_plan(plan_rules(str(bare), [FORCE]), str(bare))
    assert json.loads(claude_settings(str(bare)).read_text())["hooks"]
    write_plan(plan_rules(str(bare), []), str(bare))
    assert list(bare.iterdir()) == []
    assert not rules_file(str(bare)).exists() and not record_file(str(bare)).exists()


def test_a_read_only_settings_file_is_refused_naming_no_apply_option(project: Path) -> None:
    settings = claude_settings(str(project))
    settings.write_text('{\n  "model": "opus"\n}\n')
    settings.chmod(0o444)
    with pytest.raises(CheckError, match=r"read-only \(mode 0444\)") as refused:
        write_plan(plan_rules(str(project), [FORCE]), str(project))
    assert "--target" not in str(refused.value) and "--file" not in str(refused.value)
    assert settings.read_text() == '{\n  "model": "opus"\n}\n'
    assert not rules_file(str(project)).exists()
