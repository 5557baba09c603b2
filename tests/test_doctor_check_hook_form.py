"""`learn doctor` on Windows warns of learn's check hook written as a shell line, and
the command it names rewrites it in exec form; a person's own hook is never counted.

learn's check (a PreToolUse hook in a project's `.claude/settings.local.json`) is
written in exec form on Windows, and a re-install turns an earlier learn's shell line
into it; but doctor looked only at the SessionEnd and InstructionsLoaded hooks, so a
check hook an earlier learn wrote as a shell line, which PowerShell cannot run (Claude
Code's shell there without Git Bash), stopped nothing and doctor said all was well.
Windows is modelled as tests/test_windows_exec_hooks.py models it: the platform
decision (learn.invocation.exec_form_hooks) is switched.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from learn import invocation
from learn.cli import cli
from learn.doctor import run_checks
from learn.doctor_check_hook import check_check_hooks

PERSONS = {"type": "command", "command": "python3 -m mine.guard --rules x.json"}


def _check(project: Path, *more: str) -> None:
    done = CliRunner().invoke(cli, ["check", *more, "--yes", "--project", str(project)])
    assert done.exit_code == 0, done.output


def _hooks(project: Path) -> list[dict[str, Any]]:
    data = json.loads((project / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    return [h for g in data["hooks"]["PreToolUse"] for h in g["hooks"]]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose check an earlier learn (or this one, elsewhere) wrote as the
    shell line, one rule enforced, with a person's own PreToolUse hook beside it."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    _check(root, "add", "git", "push", "--flag", "-f", "--reason", "no force pushing here",
           "--enforce")
    settings = root / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [dict(PERSONS)]})
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    [learns, _] = _hooks(root)
    assert "args" not in learns and "learn.guard" in learns["command"]
    return root


def test_doctor_elsewhere_says_nothing_of_the_check_hooks_shell_line(project: Path) -> None:
    assert check_check_hooks() is None
    assert all(c.name != "check hook" for c in run_checks())


def test_doctor_on_windows_warns_of_the_check_hook_in_shell_form_and_its_fix_rewrites_it(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invocation, "exec_form_hooks", lambda: True)
    settings = project / ".claude" / "settings.local.json"
    check = check_check_hooks()
    assert check is not None and check.status == "warn"
    assert str(settings) in check.detail and "PowerShell" in check.detail
    assert "stops nothing" in check.detail
    assert [c for c in run_checks() if c.name == "check hook"] == [check]
    # The hint is the command that re-installs the check without changing a rule.
    [fix] = re.findall(r"`(learn check [^`]+)`", check.hint)
    assert fix == f'learn check enforce git-push-f --project "{project}"'
    done = CliRunner().invoke(cli, [*shlex.split(fix)[1:], "--yes"])
    assert done.exit_code == 0, done.output
    learns, persons = _hooks(project)
    assert learns["args"][:3] == ["-P", "-m", "learn.guard"]
    assert persons == PERSONS  # the person's own hook untouched
    assert check_check_hooks() is None


def test_doctor_on_windows_never_counts_a_persons_own_shell_hook(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invocation, "exec_form_hooks", lambda: True)
    _check(project, "enforce", "git-push-f")  # learn's hook in exec form now
    assert _hooks(project)[1] == PERSONS  # the person's shell line is still there
    assert check_check_hooks() is None


def test_doctor_on_windows_skips_a_settings_file_it_cannot_read_as_json(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invocation, "exec_form_hooks", lambda: True)
    (project / ".claude" / "settings.local.json").write_text("{not json", encoding="utf-8")
    assert check_check_hooks() is None
