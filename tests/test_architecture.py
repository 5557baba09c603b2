"""The layers of docs/architecture.md hold: the import-linter contracts in
pyproject.toml pass on the code, and fail on a copy of it given one bad import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter not installed (dev extra)")


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    # lint-imports reads the packages importable from its working directory first.
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def copy_tree(tmp: Path) -> Path:
    keep_py = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("learn", "evals"):
        shutil.copytree(REPO / package, tmp / package, ignore=keep_py)
    shutil.copy(REPO / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def add_line(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")


def test_the_code_keeps_every_contract() -> None:
    done = lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_a_lower_layer_importing_a_higher_one_breaks_the_layers(tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    add_line(root / "learn" / "reduce" / "counting.py", "from learn.report import digest as _digest  # noqa")
    done = lint(root)
    assert done.returncode != 0
    assert "learn.reduce is not allowed to import learn.report" in done.stdout


def test_a_circle_inside_a_package_made_acyclic_breaks_the_check(tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    # The circle issue 23 broke: the rule corpus and the other instruction surfaces.
    add_line(root / "learn" / "reduce" / "surfaces.py", "from learn.reduce import rules as _rules  # noqa")
    done = lint(root)
    assert done.returncode != 0
    assert "No cycles are allowed in learn.reduce" in done.stdout


def test_a_stage_reaching_back_up_the_pipeline_breaks_the_stage_order(tmp_path: Path) -> None:
    root = copy_tree(tmp_path)
    add_line(root / "learn" / "pipeline" / "read.py", "from learn.pipeline import judge as _judge  # noqa")
    done = lint(root)
    assert done.returncode != 0
    assert "learn.pipeline.read is not allowed to import learn.pipeline.judge" in done.stdout
