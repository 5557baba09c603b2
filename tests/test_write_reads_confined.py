"""Files learn reads to plan a write are read only as regular files of bounded size.

The audit's case: a repository whose `.claude/settings.local.json` (or settings.json)
is a committed link to /dev/zero. Planning learn's check read it until MemoryError,
and `learn install-claude-command --project --hooks` wrote the hooks, then read the
checked-in settings.json the same way and died before installing /learn: half an
install. Each runs here in a child process capped at 1 GB and 60 s, so the old
behaviour fails the test instead of the machine."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from learn.guard.rules import CheckRule
from learn.report.check_install import CheckError, plan_rules
from learn.report.errors import ConfinementError

ROOT = Path(__file__).resolve().parents[1]
RULE = CheckRule(id="no-force-push", program="git", subcommand="push", flags=("--force",),
                 reason="never force push", mode="record")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, preexec_fn=_capped, check=False)


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    return project


@needs_dev_zero
@pytest.mark.parametrize("special", ["dev-zero", "fifo"])
def test_planning_a_check_refuses_settings_that_are_no_regular_file(
        tmp_path: Path, special: str) -> None:
    project = _project(tmp_path)
    settings = project / ".claude" / "settings.local.json"
    if special == "fifo":
        os.mkfifo(settings)  # opened for reading, it waits for a writer that never comes
    else:
        settings.symlink_to("/dev/zero")
    code = ("from learn.report.check_install import CheckError, plan_rules\n"
            "from learn.guard.rules import CheckRule\n"
            "r = CheckRule(id='x', program='git', subcommand='push', flags=('--force',), "
            "reason='never force push', mode='record')\n"
            f"try:\n    plan_rules({str(project)!r}, [r])\n"
            "except CheckError as exc:\n    print('refused:', exc)\n")
    done = _run(["-c", code], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"refused: {settings} is not a regular file" in done.stdout


def test_planning_a_check_refuses_settings_over_the_read_cap(tmp_path: Path) -> None:
    project = _project(tmp_path)
    settings = project / ".claude" / "settings.local.json"
    settings.write_text(json.dumps({"padding": "x" * (5 << 20)}))  # valid JSON, 5 MB
    with pytest.raises(CheckError, match="over 4 MB"):
        plan_rules(str(project), [RULE])


def test_a_small_settings_file_behind_a_link_is_still_read(tmp_path: Path) -> None:
    # Dotfile managers link settings files: a link to a regular file is fine.
    from learn.report.confine import read_regular

    project = _project(tmp_path)
    real = tmp_path / "dotfiles-settings.json"
    real.write_text('{"model": "opus"}\n')
    (project / ".claude" / "settings.local.json").symlink_to(real)
    assert read_regular(project / ".claude" / "settings.local.json") == b'{"model": "opus"}\n'
    with pytest.raises(ConfinementError, match="cannot be read"):
        read_regular(project / ".claude" / "settings.local.json", follow=False)


@needs_dev_zero
def test_install_claude_command_checks_everything_before_writing_anything(
        tmp_path: Path) -> None:
    # The checked-in settings.json is read only for a note: unreadable, it says nothing,
    # and the install is whole (the hooks and /learn).
    project = _project(tmp_path)
    (project / ".claude" / "settings.json").symlink_to("/dev/zero")
    done = _run(["-m", "learn", "install-claude-command", "--project", "--hooks", "--yes"], project)
    assert done.returncode == 0, done.stderr[-2000:]
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert "SessionEnd" in local["hooks"]
    assert (project / ".claude" / "commands" / "learn.md").exists()
