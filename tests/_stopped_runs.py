"""A real `learn run` over the demo corpus, stopped at a chosen stage: what the tests of
Ctrl-C (tests/test_interrupt_points.py), SIGTERM/SIGHUP (tests/test_terminate_signal.py)
and answers kept across a stop (tests/test_paid_answers_kept.py) share.

The fake Messages server answers from the demo's gold (`Stage`) and holds one tool's
requests open past the first `answer_first`, so a test stops learn when that request is
seen, never after a fixed sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.http_server import RecordedRequest

from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet", "--backend", "anthropic"]
# A stopped run ends within this many seconds of the signal.
ENDS_WITHIN = 2.0

World = tuple[Path, dict[str, str], GoldOracle]


class Stage:
    """A fake server's responder whose answers for `hold` wait, past the first
    `answer_first`, until `release` is set (or a minute passes)."""

    def __init__(self, oracle: GoldOracle, hold: str | None = None, answer_first: int = 0) -> None:
        self.oracle = oracle
        self.hold = hold
        self.answer_first = answer_first
        self.release = threading.Event()
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> dict[str, Any]:
        tool = request.tool_name or ""
        with self.lock:
            self.seen[tool] = self.seen.get(tool, 0) + 1
            n = self.seen[tool]
        if tool == self.hold and n > self.answer_first:
            self.release.wait(60)
        return self.oracle.answer(tool, request.user_text)

    def count(self, tool: str) -> int:
        with self.lock:
            return self.seen.get(tool, 0)


def demo_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a learn whose home is the demo corpus built under `root`
    (`demo_world`), its data, cache and config beside it, no key or setting of the
    machine's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "corpus" / "home"), PYTHONPATH=str(REPO),
               LEARN_DATA_DIR=str(root / "data"), LEARN_CACHE_DIR=str(root / "cache"),
               LEARN_CONFIG_DIR=str(root / "config"), ANTHROPIC_API_KEY="test-key", **extra)
    return env


def demo_world(root: Path, **extra: str) -> World:
    """The demo corpus built under `root`: (its home, `demo_env`, the gold's oracle)."""
    gold = demo.build(root / "corpus")
    return root / "corpus" / "home", demo_env(root, **extra), GoldOracle(gold)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield demo_world(tmp_path)


def as_a_terminal() -> None:
    # A suite run under nohup, or as a background job (`make test &`), passes SIGINT
    # and SIGHUP ignored to its children: give learn the dispositions a terminal's has.
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def start(home: Path, env: dict[str, str], url: str,
          preexec: Callable[[], None] = as_a_terminal) -> subprocess.Popen[str]:
    """`learn run` (RUN) against the model at `url`, in a process group of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "learn", *RUN], cwd=home, env={**env, "ANTHROPIC_BASE_URL": url},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=preexec,
    )


def wait_until(check: Callable[[], bool], proc: subprocess.Popen[str], what: str,
               seconds: float = 120.0) -> None:
    """Until `check()`; fails the test when learn ends first or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while not check():
        if proc.poll() is not None:
            _out, err = proc.communicate()
            pytest.fail(f"learn ended before {what}: exit {proc.returncode}\n{err[-3000:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"never saw {what}")
        time.sleep(0.01)


def mined_entries(env: dict[str, str]) -> int:
    """Sessions whose mining answer is in the cache."""
    return len(list((Path(env["LEARN_CACHE_DIR"]) / "mined").glob("*.json")))
