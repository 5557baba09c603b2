"""learn's check, run as Claude Code runs it, in every checkout of the project's repository.

The audit's case (audit 2, r1): a rule made stopping from a sibling worktree (`shop-fix`
beside `shop`) put the hook in the worktree's settings, and the hook let every command
through there: the rules file names the main checkout, and the worktree is not inside
it. The hook is run here exactly as installed: its command line from the settings file,
a PreToolUse event on stdin whose cwd is where the session runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.cli import cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _repo(folder: Path) -> Path:
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "x")
    return folder


def _enforced_from(checkout: Path) -> str:
    """`learn check add ... --enforce` run in `checkout`; the hook command it installed."""
    added = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "--force",
                                     "--flag", "-f", "--reason", "Never force push.",
                                     "--enforce", "--yes", "--project", str(checkout)])
    assert added.exit_code == 0, added.output
    settings = json.loads((checkout / ".claude" / "settings.local.json").read_text())
    [command] = [h["command"] for entry in settings["hooks"]["PreToolUse"]
                 for h in entry["hooks"]]
    return str(command)


def _answer(command: str, cwd: Path | str, line: str = "git push --force") -> str:
    """What the hook prints for a Bash call run in `cwd` (empty: the call runs)."""
    event = {"session_id": "s1", "transcript_path": "/dev/null", "cwd": str(cwd),
             "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_input": {"command": line, "description": "push"}}
    done = subprocess.run(["sh", "-c", command], input=json.dumps(event), cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def _denied(out: str) -> bool:
    return bool(out) and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_check_enforced_in_a_sibling_worktree_stops_the_command_there(tmp_path: Path) -> None:
    main = _repo(tmp_path / "shop")
    worktree = tmp_path / "shop-fix"
    _git(main, "worktree", "add", "-q", "-b", "fix", str(worktree))
    (worktree / "app").mkdir()
    command = _enforced_from(worktree)
    assert _denied(_answer(command, worktree))
    assert _denied(_answer(command, worktree / "app"))  # a folder inside the worktree
    assert _denied(_answer(command, main))
    assert _answer(command, worktree, "git push origin fix") == ""
    # Another repository beside them (even one named like a worktree) is not decided.
    other = _repo(tmp_path / "shop-other")
    assert _answer(command, other) == ""
    assert _answer(command, tmp_path) == ""


def test_a_symlinked_spelling_of_the_project_is_the_project(tmp_path: Path) -> None:
    main = _repo(tmp_path / "shop")
    worktree = tmp_path / "shop-fix"
    _git(main, "worktree", "add", "-q", "-b", "fix", str(worktree))
    command = _enforced_from(main)
    (tmp_path / "link").symlink_to(main)
    (tmp_path / "link-fix").symlink_to(worktree)
    assert _denied(_answer(command, tmp_path / "link"))
    assert _denied(_answer(command, tmp_path / "link-fix"))
    (tmp_path / "elsewhere").symlink_to(_repo(tmp_path / "other"))
    assert _answer(command, tmp_path / "elsewhere") == ""


def test_reading_the_disk_for_a_worktree_imports_nothing_heavy(tmp_path: Path) -> None:
    """The check starts on every shell call: a session in a worktree beside the project
    reads its `.git` with the standard library, never learn.projects' identity (msgspec,
    pathlib: ~30 ms). Not a timing test (benchmarks/check.py measures it)."""
    import sys

    main = _repo(tmp_path / "shop")
    worktree = tmp_path / "shop-fix"
    _git(main, "worktree", "add", "-q", "-b", "fix", str(worktree))
    code = ("import sys; from learn.guard.hook import in_project; "
            f"assert in_project({str(worktree)!r}, {str(main.resolve())!r}); "
            "print(sorted(m for m in sys.modules if m.startswith('learn.projects') "
            "or m in ('msgspec', 'pathlib', 'dataclasses')))")
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": root}).stdout
    assert out.strip() == str(["learn.projects", "learn.projects.checkout",
                               "learn.projects.flavour"])
