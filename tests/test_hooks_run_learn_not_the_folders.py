"""Every command learn installs to run later runs learn, never a `learn` of the folder it
runs in. Claude Code and Codex run hooks in the session's folder and cron/systemd start
the scheduled job in $HOME; `python -m` puts that folder first on sys.path, so a
repository's `learn.py` or `learn/guard/__main__.py` ran instead of learn (its code at
every tool call, the check's refusal silently gone). Each test runs the command exactly
as installed, in such a folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from learn.cli import cli
from learn.hook.settings import HOOKS, hook_command, with_hook, with_hooks


def _plant(folder: Path, marker: Path) -> None:
    """A folder that shadows learn both ways: a `learn.py` and a `learn/` package (with
    the check's `learn/guard/__main__.py`), each writing `marker` when it runs."""
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "learn" / "guard").mkdir(parents=True)
    (folder / "learn" / "__init__.py").write_text(code, encoding="utf-8")
    (folder / "learn" / "__main__.py").write_text(code, encoding="utf-8")
    (folder / "learn" / "guard" / "__init__.py").write_text(code, encoding="utf-8")
    (folder / "learn" / "guard" / "__main__.py").write_text(code, encoding="utf-8")


def _sh(line: str, cwd: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    # As Claude Code runs a hook: the command line through a shell, in the session's folder.
    return subprocess.run(["sh", "-c", line], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=60, check=False)


def _check_hook(project: Path) -> str:
    done = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "-f", "--reason",
                                    "no force pushing here", "--enforce", "--yes", "--project",
                                    str(project)])
    assert done.exit_code == 0, done.output
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    [group] = settings["hooks"]["PreToolUse"]
    return str(group["hooks"][0]["command"])


def test_the_check_hook_runs_learns_check_in_a_repository_that_ships_its_own(
        tmp_path: Path) -> None:
    project, marker = tmp_path / "shop", tmp_path / "pwned"
    (project / ".git").mkdir(parents=True)
    line = _check_hook(project)
    _plant(project, marker)
    event = json.dumps({"session_id": "s1", "tool_name": "Bash", "cwd": str(project),
                        "tool_input": {"command": "git push -f"}})
    proc = _sh(line, project, event)
    assert not marker.exists(), marker.read_text()
    assert proc.returncode == 0, proc.stderr
    decision = json.loads(proc.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "no force pushing here" in decision["permissionDecisionReason"]


def test_the_check_hook_runs_in_a_project_with_a_learn_py_of_its_own(tmp_path: Path) -> None:
    project, marker = tmp_path / "shop", tmp_path / "pwned"
    (project / ".git").mkdir(parents=True)
    line = _check_hook(project)
    (project / "learn.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    event = json.dumps({"session_id": "s1", "tool_name": "Bash", "cwd": str(project),
                        "tool_input": {"command": "git push -f"}})
    proc = _sh(line, project, event)
    assert not marker.exists()
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_learns_session_hooks_run_learn_in_a_repository_that_ships_a_learn_package(
        tmp_path: Path) -> None:
    repo, marker = tmp_path / "evil", tmp_path / "pwned"
    _plant(repo, marker)
    settings = with_hooks({})
    for event, args, _ in HOOKS:
        [group] = settings["hooks"][event]
        line = group["hooks"][0]["command"]
        # Not a hook input: learn reads it, logs why not in its hook log and exits 0 (a
        # hook never fails Claude Code); no session is queued and no worker started.
        proc = _sh(line, repo, "not a hook input")
        assert proc.returncode == 0, (args, proc.stderr)
        assert not marker.exists(), (args, marker.read_text())
    log = Path(os.environ["HOME"]) / ".local" / "share" / "learn" / "hook" / "hook.log"
    assert "hook:" in log.read_text(encoding="utf-8")  # learn's own hook ran and logged


def test_the_scheduled_job_runs_learn_not_a_learn_py_in_home(tmp_path: Path) -> None:
    from learn.commands.schedule import make_spec

    home, marker = Path(os.environ["HOME"]), tmp_path / "pwned"
    (home / "learn.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    spec = make_spec("weekly", "7d")
    proc = subprocess.run([*spec.learn, "--version"], cwd=home, capture_output=True, text=True,
                          timeout=60, check=False)
    assert not marker.exists()
    assert proc.returncode == 0 and proc.stdout.startswith("learn, version"), proc.stderr


def test_a_hook_written_by_an_older_learn_is_replaced_not_doubled(tmp_path: Path) -> None:
    """Older learns wrote `<python> -m learn hook ...` (no -P): a re-install points that
    hook at the safe form, and adds no second one."""
    line = hook_command()
    older = line.replace(" -P -m ", " -m ")
    assert older != line
    settings = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": older}]}]}}
    new = with_hook(settings)
    assert [h["command"] for g in new["hooks"]["SessionEnd"] for h in g["hooks"]] == [line]


def test_a_check_hook_written_by_an_older_learn_is_replaced_and_removed(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    settings_file = project / ".claude" / "settings.local.json"
    line = _check_hook(project)
    older = line.replace(" -P -m ", " -m ")
    assert older != line
    settings_file.write_text(settings_file.read_text().replace(line, older))
    done = CliRunner().invoke(cli, ["check", "add", "rm", "--flag", "-rf", "--reason", "no",
                                    "--yes", "--project", str(project)])
    assert done.exit_code == 0, done.output
    hooks = [h["command"] for g in json.loads(settings_file.read_text())["hooks"]["PreToolUse"]
             for h in g["hooks"]]
    assert hooks == [line]
    gone = CliRunner().invoke(cli, ["check", "remove", "--all", "--yes", "--project",
                                    str(project)])
    assert gone.exit_code == 0, gone.output
    assert not settings_file.exists() or "learn.guard" not in settings_file.read_text()
