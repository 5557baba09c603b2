"""learn's Claude Code hooks on Windows are written in exec form (`command` the
interpreter, `args` the rest), which no shell parses.

Claude Code runs a hook's `command` alone through a shell, and on Windows without Git
Bash that shell is PowerShell, which cannot run the POSIX line learn wrote there
(`'C:\\Users\\Jo Smith\\...\\python.exe' -P -m learn hook session-end` is a parse error):
every learn hook, the check too, silently never ran. No Windows machine runs these
tests: the platform decision (learn.invocation.exec_form_hooks) is switched, and the
interpreter is a Windows path where only the written JSON is looked at. The exec form
is run for real, as Claude Code spawns it (no shell), with this machine's interpreter.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from learn import invocation
from learn.cli import cli
from learn.commands.install_claude_command import command as install
from learn.doctor import check_hook
from learn.hook.settings import (
    HOOKS,
    hook_command,
    hook_entry,
    is_learn_entry,
    learn_hooks,
    with_hooks,
)
from learn.report.check_install import hook_command as check_line

WIN_PY = "C:\\Users\\Jo Smith\\venv\\Scripts\\python.exe"
EXEC_ARGS = {"SessionEnd": ["-P", "-m", "learn", "hook", "session-end"],
             "InstructionsLoaded": ["-P", "-m", "learn", "hook", "instructions-loaded"]}


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invocation, "exec_form_hooks", lambda: True)


def _entries(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in settings["hooks"][event] for h in g["hooks"]]


def _settings_file() -> Path:
    return Path.home() / ".claude" / "settings.json"


def test_install_on_windows_writes_both_hooks_in_exec_form(
        windows: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", WIN_PY)
    settings = _settings_file()
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "opus"}), encoding="utf-8")
    done = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert done.exit_code == 0, done.output
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["model"] == "opus" and "backed up" in done.output
    for event, args in EXEC_ARGS.items():
        assert _entries(data, event) == [
            {"type": "command", "command": WIN_PY, "args": args, "timeout": 10}]
    again = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert again.exit_code == 0 and "already" in again.output


def test_a_reinstall_on_windows_turns_learns_shell_line_into_the_exec_form_in_place(
        windows: None) -> None:
    old = {"env": {"A": "1"}, "hooks": {event: [{"hooks": [
        {"type": "command", "command": hook_command(WIN_PY, args), "timeout": 30}]}]
        for event, args, _ in HOOKS}}
    new = with_hooks(old, WIN_PY)
    assert new["env"] == {"A": "1"}
    for event, args in EXEC_ARGS.items():
        # One hook, not two; its own timeout kept; `args` right after `command`.
        [hook] = _entries(new, event)
        assert list(hook.items()) == [("type", "command"), ("command", WIN_PY),
                                      ("args", args), ("timeout", 30)]
    assert with_hooks(new, WIN_PY) is new


def test_a_reinstall_on_posix_turns_an_exec_form_back_into_the_shell_line() -> None:
    spawned = {"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", **hook_entry("/usr/bin/python3", exec_form=True), "timeout": 10}]}]}}
    [hook] = _entries(with_hooks(spawned), "SessionEnd")
    assert hook == {"type": "command", "command": hook_command(), "timeout": 10}


@pytest.mark.parametrize("persons", [
    {"command": "C:\\tools\\notify.exe", "args": ["-P", "-m", "notify", "hook", "session-end"]},
    {"command": WIN_PY, "args": ["-P", "-m", "learn", "hook", "session-end", "--backend",
                                 "claude-cli"]},
    {"command": WIN_PY, "args": ["-m", "learn", "hook", "session-end"]},
    {"command": WIN_PY, "args": ["-P", "-m", "learn", "hook", 5]},
    {"command": WIN_PY, "args": "-P -m learn hook session-end"},
    {"command": "python.exe", "args": ["-P", "-m", "learn", "hook", "session-end"]},
    {"command": "C:", "args": ["-P", "-m", "learn", "hook", "session-end"]},
    {"command": hook_command(WIN_PY), "args": []},
    {"command": [WIN_PY], "args": ["-P", "-m", "learn", "hook", "session-end"]},
], ids=["other-program", "extra-flag", "no-P", "not-strings", "args-a-string",
        "relative-command", "drive-only", "line-with-args", "command-a-list"])
def test_a_persons_own_hook_with_args_is_never_rewritten_or_removed(
        windows: None, persons: dict[str, Any], tmp_path: Path) -> None:
    hook = {"type": "command", **persons, "timeout": 5}
    assert not is_learn_entry(hook)
    settings = {"hooks": {"SessionEnd": [{"hooks": [dict(hook)]}]}}
    new = with_hooks(settings, WIN_PY)
    assert _entries(new, "SessionEnd")[0] == hook
    # learn adds its own beside it, unless the person's runs learn's hook already.
    assert _entries(new, "SessionEnd")[1:] in (
        [], [{"type": "command", "command": WIN_PY, "args": EXEC_ARGS["SessionEnd"],
              "timeout": 10}])


def test_the_exec_form_counts_as_installed_and_its_installer_repoints_another_venvs(
        windows: None) -> None:
    other = "D:\\old\\venv\\Scripts\\python.exe"
    settings = {"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", **hook_entry(other), "timeout": 10}]}]}}
    assert learn_hooks(settings) and learn_hooks(settings, own=True)
    [hook] = _entries(with_hooks(settings, WIN_PY), "SessionEnd")
    assert hook["command"] == WIN_PY and hook["args"] == EXEC_ARGS["SessionEnd"]


def _check(project: Path, *more: str) -> None:
    done = CliRunner().invoke(cli, ["check", *more, "--yes", "--project", str(project)])
    assert done.exit_code == 0, done.output


def _add_rule(project: Path) -> None:
    _check(project, "add", "git", "push", "--flag", "-f", "--reason", "no force pushing here",
           "--enforce")


def _pre_tool_use(project: Path) -> list[dict[str, Any]]:
    data = json.loads((project / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    return _entries(data, "PreToolUse")


def test_the_check_hook_on_windows_is_written_replaced_and_removed_in_exec_form(
        windows: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", WIN_PY)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    _add_rule(project)
    [hook] = _pre_tool_use(project)
    assert hook["command"] == WIN_PY and "learn.guard" not in hook["command"]
    assert hook["args"][:4] == ["-P", "-m", "learn.guard", "--rules"]
    rules = hook["args"][4]
    # A check hook an earlier learn wrote as a shell line is turned into the exec form.
    settings = project / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["PreToolUse"][0]["hooks"] = [
        {"type": "command", "command": check_line(Path(rules), "claude"), "timeout": 10}]
    persons = {"type": "command", "command": WIN_PY, "args": ["-P", "-m", "mine.guard"]}
    data["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [persons]})
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    _check(project, "add", "rm", "--flag", "-rf", "--reason", "no")
    assert _pre_tool_use(project) == [hook, persons]
    _check(project, "remove", "--all")
    assert _pre_tool_use(project) == [persons]


def test_doctor_on_windows_warns_of_learns_hook_in_shell_form(
        windows: None, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": hook_command(WIN_PY)}]}]}}), encoding="utf-8")
    check = check_hook(settings, tmp_path / "data")
    assert check is not None and check.status == "warn"
    assert "PowerShell" in check.detail and "install-claude-command --hooks" in check.hint


def test_doctor_on_windows_is_content_with_the_exec_form(windows: None, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(with_hooks({}, WIN_PY)), encoding="utf-8")
    check = check_hook(settings, tmp_path / "data")
    assert check is not None and check.status == "ok", check
    assert "installed (settings.json)" in check.detail


def test_doctor_elsewhere_says_nothing_of_the_shell_form(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(with_hooks({})), encoding="utf-8")
    check = check_hook(settings, tmp_path / "data")
    assert check is not None and check.status == "ok", check


def test_posix_install_writes_the_same_bytes_as_before(tmp_path: Path) -> None:
    """The exact file learn wrote before exec form existed, for a person's 4-space file."""
    settings = _settings_file()
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n    "model": "opus"\n}\n', encoding="utf-8")
    done = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert done.exit_code == 0, done.output
    end, loads = (json.dumps(shlex.join([sys.executable, "-P", "-m", "learn", "hook", a]))
                  for a in ("session-end", "instructions-loaded"))
    assert settings.read_text(encoding="utf-8") == (
        '{\n    "model": "opus",\n    "hooks": {\n'
        '        "SessionEnd": [\n            {\n                "hooks": [\n'
        '                    {\n                        "type": "command",\n'
        f'                        "command": {end},\n'
        '                        "timeout": 10\n                    }\n'
        '                ]\n            }\n        ],\n'
        '        "InstructionsLoaded": [\n            {\n                "hooks": [\n'
        '                    {\n                        "type": "command",\n'
        f'                        "command": {loads},\n'
        '                        "timeout": 10\n                    }\n'
        '                ]\n            }\n        ]\n    }\n}\n')


def test_posix_check_hook_is_the_shell_line_as_before(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    _add_rule(project)
    [hook] = _pre_tool_use(project)
    assert set(hook) == {"type", "command", "timeout"}
    assert shlex.split(hook["command"])[:5] == [sys.executable, "-P", "-m", "learn.guard",
                                                "--rules"]


# The exec form, run as Claude Code 2.1.139+ spawns it: `command` resolved as an
# executable, `args` handed over as they are, no shell; in the session's folder, which
# here ships a learn.py of its own (-P keeps it off sys.path, learn.invocation).

def _spawn(hook: dict[str, Any], cwd: Path, stdin: str,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([hook["command"], *hook["args"]], cwd=cwd, input=stdin, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_exec_form_of_the_session_hooks_runs_learns_hook(windows: None,
                                                             tmp_path: Path) -> None:
    import os

    repo, marker = tmp_path / "repo", tmp_path / "pwned"
    repo.mkdir()
    (repo / "learn.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    data = tmp_path / "Jo Smith's data $HOME `x`"  # nothing here is a shell's to read
    env = {**os.environ, "LEARN_DATA_DIR": str(data)}
    settings = with_hooks({})
    for event, _, _ in HOOKS:
        [hook] = _entries(settings, event)
        assert hook["args"] == EXEC_ARGS[event]
        # Not a hook input: learn's hook logs why and exits 0, queuing nothing.
        proc = _spawn(hook, repo, "not a hook input", env)
        assert proc.returncode == 0 and proc.stdout == "", (event, proc.stderr)
    assert not marker.exists()
    assert "hook:" in (data / "hook" / "hook.log").read_text(encoding="utf-8")


def test_the_exec_form_of_the_check_hook_refuses_the_forbidden_command(
        windows: None, tmp_path: Path) -> None:
    project, marker = tmp_path / "shop", tmp_path / "pwned"
    (project / ".git").mkdir(parents=True)
    _add_rule(project)
    (project / "learn.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    [hook] = _pre_tool_use(project)
    event = json.dumps({"session_id": "s1", "tool_name": "Bash", "cwd": str(project),
                        "tool_input": {"command": "git push -f"}})
    proc = _spawn(hook, project, event)
    assert proc.returncode == 0, proc.stderr
    decision = json.loads(proc.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "no force pushing here" in decision["permissionDecisionReason"]
    assert not marker.exists()
