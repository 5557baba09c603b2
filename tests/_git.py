"""Real git for tests that build repositories and worktrees: one author, no config read."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git(*args: str, cwd: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run([GIT or "git", *args], cwd=cwd, env=env, check=True, capture_output=True)
