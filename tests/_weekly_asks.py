"""A project where the same request was typed once a week in three sessions, and learn
run on it as a person runs it (a subprocess, the fake Messages server): the setup of the
command-stage tests found on real Claude Code sessions
(tests/test_h6_command_body_failure_exit_code.py, test_h6_command_description_from_writer.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]


def weekly_asks(tmp_path: Path, folder: str, ask: str, reply: str) -> Path:
    """`tmp_path/home/code/<folder>`, where `ask` was typed in three sessions a week apart,
    each answered with `reply`; returns the project."""
    project = tmp_path / "home" / "code" / folder
    project.mkdir(parents=True)
    for i in range(3):
        s = ClaudeSession(session_id(f"{folder}-{i}"), str(project),
                          datetime(2026, 11, 2 + 7 * i, 9, tzinfo=UTC))
        s.user(ask)
        s.assistant(reply)
        s.write(tmp_path / "home" / ".claude")
    return project


def learn_env(tmp_path: Path, base_url: str) -> dict[str, str]:
    """This environment with learn's folders, home and endpoint under `tmp_path`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=base_url)
    return env


def learn(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)
