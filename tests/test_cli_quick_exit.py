"""`learn sessions` and `learn show` end without the interpreter's teardown (learn.cli),
and only when nothing was left for it: what they printed arrives whole, and work
registered to run at exit still runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _learn_cli import learn, learn_env

FIXTURE = Path(__file__).parent / "fixtures" / "view" / "claude_main.jsonl"


def _env(home: Path) -> dict[str, str]:
    return learn_env(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
                     CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(home / "data"),
                     LEARN_CACHE_DIR=str(home / "cache"), LEARN_CONFIG_DIR=str(home / "config"))


def test_what_a_read_only_command_prints_arrives_whole(tmp_path: Path) -> None:
    env = _env(tmp_path)
    listed = learn("sessions", "--all-projects", "--json", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"sessions": [], "skipped": []}
    shown = learn("show", "--json", str(FIXTURE), cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["path"] == str(FIXTURE)
    text = learn("show", str(FIXTURE), cwd=tmp_path, env=env)
    assert text.returncode == 0, text.stderr
    assert text.stdout.endswith("\n") and "YOU:" in text.stdout


def test_work_registered_for_exit_still_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = (
        "import atexit, pathlib, sys\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')\n"
        "sys.argv = ['learn', 'sessions', '--all-projects']\n"
        "from learn.cli import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", program], env=_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "yes"


def test_a_failing_command_exits_as_before(tmp_path: Path) -> None:
    done = learn("show", "no-such-session", cwd=tmp_path, env=_env(tmp_path))
    assert done.returncode == 2  # an id that names no session: a usage error
    assert "no session matches" in done.stderr


def test_a_profiled_listing_still_writes_its_profile(tmp_path: Path) -> None:
    """`python -m cProfile -o F -m learn sessions`: the profile is written after the
    command returns, so the command does not end the process first."""
    out = tmp_path / "listing.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "learn",
                           "sessions", "--all-projects"], env=_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
