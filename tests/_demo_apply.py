"""The demo with its rules applied (`learn demo --keep DIR`, then `--apply`), run as the
person would in a HOME of its own: where the tests of what is shown of rules in place
start (tests/test_bugs_outcomes_kept.py, tests/test_fix_digest_project_scope.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Protocol

REPO = Path(__file__).resolve().parents[1]


class Learn(Protocol):
    def __call__(self, *args: str, cwd: Path, **over: str) -> subprocess.CompletedProcess[str]:
        """`learn ARGS` in `cwd`, with `over` over the environment."""
        ...


def demo_learn(tmp_path: Path, *, check: bool = False) -> Learn:
    """A learn whose home, data, cache and config are under `tmp_path`, no key or setting
    of the machine's own; with `check`, each command must exit 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    (tmp_path / "home").mkdir(exist_ok=True)

    def learn(*args: str, cwd: Path, **over: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "learn", *args], env={**env, **over},
                              cwd=cwd, capture_output=True, text=True, timeout=300)
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    return learn


def applied_demo(tmp_path: Path, learn: Learn) -> Path:
    """The demo kept in `tmp_path`/demo, its rules applied in each of its projects; its
    folder."""
    demo = tmp_path / "demo"
    assert learn("demo", "--keep", str(demo), cwd=tmp_path).returncode == 0
    applied = learn("demo", "--keep", str(demo), "--apply", cwd=tmp_path)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return demo


def inside_demo(demo: Path, cache: Path) -> dict[str, str]:
    """The environment of a learn inside the demo: its home, store and config, and the
    mining cache `cache`."""
    return dict(HOME=str(demo / "home"), LEARN_DATA_DIR=str(demo / "data"),
                LEARN_CACHE_DIR=str(cache), LEARN_CONFIG_DIR=str(demo / "config"))
