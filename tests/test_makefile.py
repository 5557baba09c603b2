"""`make test` runs every step whatever an earlier one said, and fails if any failed.

A unit test failing under load used to stop `make test` before the eval gate ran,
so the run said nothing about the evals. Here the steps' tools are stand-ins (a
venv directory of scripts that log their arguments and exit as told), so this
checks the Makefile's control flow, not the tools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def fake_venv(root: Path, failing: set[str]) -> Path:
    venv = root / "venv"
    bin_dir = venv / "bin"
    bin_dir.mkdir(parents=True)
    log = root / "steps.log"
    for tool in ("ruff", "lint-imports", "mypy", "pytest", "learn", "python", "pip"):
        code = 1 if tool in failing else 0
        script = bin_dir / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\nexit {code}\n')
        script.chmod(0o755)
    for stamp in (".installed-base", ".installed-dev"):
        (venv / stamp).touch()  # newer than pyproject.toml: nothing to install
    return venv


def make_test(tmp_path: Path, failing: set[str]) -> tuple[int, list[str], str]:
    venv = fake_venv(tmp_path, failing)
    env = {**os.environ, "MAKEFLAGS": ""}
    done = subprocess.run(["make", "-C", str(REPO), "test", f"VENV={venv}"], env=env,
                          capture_output=True, text=True, timeout=120)
    ran = (tmp_path / "steps.log").read_text().splitlines()
    return done.returncode, [line.split()[0] for line in ran], done.stderr


def test_a_failing_unit_test_still_runs_the_eval_gate_and_fails(tmp_path: Path) -> None:
    code, ran, err = make_test(tmp_path, {"pytest"})
    assert ran == ["ruff", "lint-imports", "mypy", "pytest", "learn"]
    assert (tmp_path / "steps.log").read_text().splitlines()[-1] == "learn eval --gate"
    assert code != 0 and "make test: failed: unit" in err


def test_every_step_passing_passes(tmp_path: Path) -> None:
    code, ran, _ = make_test(tmp_path, set())
    assert code == 0 and ran == ["ruff", "lint-imports", "mypy", "pytest", "learn"]


def test_a_lint_failure_is_reported_with_the_rest_still_run(tmp_path: Path) -> None:
    code, ran, err = make_test(tmp_path, {"ruff", "learn"})
    assert code != 0 and ran[-1] == "learn" and "failed: lint eval" in err
