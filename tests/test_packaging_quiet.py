"""Issue 18 item 8: building learn prints no packaging warnings (`make demo` opened with
~490 lines of "Package would be ignored" about learn._bundle.cache.*), and the wheel
still carries every recorded answer.

Builds a wheel with pip (its build backend comes from pip's cache or the registry),
so it runs where LEARN_INSTALL_TEST=1, like tests/test_installed_package.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    os.environ.get("LEARN_INSTALL_TEST") != "1",
    reason="builds a wheel with pip's isolated build backend; set LEARN_INSTALL_TEST=1",
)


def test_the_wheel_builds_without_warnings_and_carries_the_cache(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-w", str(tmp_path), "-v"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    log = done.stdout + done.stderr
    assert "would be ignored" not in log
    assert "SetuptoolsDeprecationWarning" not in log
    (wheel,) = tmp_path.glob("learn-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    recorded = {p.relative_to(REPO).as_posix() for p in (REPO / "cache").rglob("*.json")}
    assert recorded and {f"learn/_bundle/{r}" for r in recorded} <= names
