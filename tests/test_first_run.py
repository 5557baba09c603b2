"""Issue 18 item 8: a first run that leads somewhere, as a user meets it (`python -m learn`
on the demo corpus in a temp HOME)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.corpora import demo
from learn.report.digest import OFFLINE_LIMITS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    demo.build(tmp_path / "corpus")
    return tmp_path / "corpus" / "home"


def learn(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=home)


def test_an_offline_run_says_once_what_it_cannot_see_and_lists_no_failure(home: Path) -> None:
    done = learn(home, "run", "--offline", "--all-projects", "--since", "2026-01-01", "--all")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # nothing failed: there was no model to fail
    assert "What failed" not in done.stdout and "judge: offline" not in done.stdout
    assert done.stdout.count(OFFLINE_LIMITS) == 1
    assert "## Directives" in done.stdout  # the detectors' evidence is still shown
