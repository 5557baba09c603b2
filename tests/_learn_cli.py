"""`learn` as a person runs it, for the end-to-end tests: a real process, this
checkout on its path, no model endpoint or learn setting leaking in from outside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def learn_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def learn(*args: str, cwd: Path, env: Mapping[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    """`learn ARGS` run in `cwd` (made when missing)."""
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=dict(env or learn_env()),
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def learn_json(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The JSON `learn ARGS` printed; the test fails with its stderr when it failed."""
    done = learn(*args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out
