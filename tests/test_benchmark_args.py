"""A benchmark script's arguments: an option it does not know is refused, not made a folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.outdir import out_dir

ROOT = Path(__file__).resolve().parent.parent


def test_the_folder_left_is_the_output(tmp_path: Path) -> None:
    assert out_dir([str(tmp_path / "x")], tmp_path / "default") == tmp_path / "x"
    assert out_dir([], tmp_path / "default") == tmp_path / "default"


@pytest.mark.parametrize("word", ["--shape", "-x", "--bogus"])
def test_an_unknown_option_is_refused(word: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="unknown option"):
        out_dir([word], tmp_path)


def test_two_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="one output folder"):
        out_dir(["a", "b"], tmp_path)


def test_help_prints_the_usage_and_builds_nothing(tmp_path: Path) -> None:
    # Run from an empty folder: before, `--help` was taken for the output folder and a
    # 343 MB home was built under ./--help.
    where = tmp_path / "cwd"
    where.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "listing_parts.py"), "--help"],
                          cwd=where, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "benchmarks/listing_parts.py [OUT_DIR]" in done.stdout
    assert list(where.iterdir()) == []
