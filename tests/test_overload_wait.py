"""An overloaded API is waited out, visibly, within the run's budget; a failure that
repeats is given up in seconds.

With api.anthropic.com unreachable, a run printed nothing for ten minutes and took
half an hour for 11 sessions (each call retried for its whole 600 s); HTTP 500 on
every naming call held a run for the budget per call. The real CLI over the demo
corpus against the fake Messages server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer, RecordedRequest
from fakes.http_server import Reply
from test_interrupt_points import planned_calls

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.config import Config
from learn.models.retry import MAX_SAME_FAILURES

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet", "--json"]


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str], GoldOracle]:
    oracle = GoldOracle(demo.build(tmp_path / "corpus"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "corpus" / "home"), PYTHONPATH=str(REPO),
               LEARN_DATA_DIR=str(tmp_path / "data"), LEARN_CACHE_DIR=str(tmp_path / "cache"),
               LEARN_CONFIG_DIR=str(tmp_path / "config"), ANTHROPIC_API_KEY="k")
    return tmp_path / "corpus" / "home", env, oracle


def learn(home: Path, env: dict[str, str], url: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "learn", *RUN], cwd=home,
                          env={**env, "ANTHROPIC_BASE_URL": url}, capture_output=True, text=True,
                          timeout=600)
    return done, time.monotonic() - started


def test_a_run_whose_api_is_overloaded_for_a_while_says_so_and_finishes(
        world: tuple[Path, dict[str, str], GoldOracle]) -> None:
    home, env, oracle = world
    with FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text)) as fake:
        # The first six calls: overloaded, come back in 3 s.
        fake.enqueue_status(529, times=6, headers={"retry-after": "3"})
        done, took = learn(home, env, fake.base_url)
    assert done.returncode == 0, done.stderr
    waits = [x for x in done.stderr.splitlines() if "waiting for the API" in x]
    assert waits and waits[0].startswith("learn: waiting for the API: HTTP 529 overloaded")
    assert "of 10m; Ctrl-C keeps what is finished" in waits[0]
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["proposals"] and not result["failed_stages"]
    assert result["usage"]["sessions_mined"] == result["usage"]["sessions_seen"]
    print(f"waited out six 529s and finished in {took:.1f} s")


class Dropping(FakeAnthropicServer):
    """Answers the preflight, then drops every Messages connection (the network went)."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        return Reply(drop=True)


def test_a_connection_that_keeps_dropping_is_given_up_in_seconds(
        world: tuple[Path, dict[str, str], GoldOracle]) -> None:
    home, env, _ = world
    mining_calls = sum(planned_calls(home, env).values())
    with Dropping() as fake:
        done, took = learn(home, env, fake.base_url)
        calls = len(fake.requests)
    assert done.returncode == 1
    assert "connection error" in done.stderr and "the same failure each time" in done.stderr
    # MAX_SAME_FAILURES tries for each call already in flight when the first gave up
    # (one per mining worker), one for each call after it; not the 600 s budget each
    # (which would end this test at its 600 s timeout). Counted, not timed.
    print(f"gave up after {took:.1f} s and {calls} requests")
    workers = Config().mining.concurrency
    assert calls <= workers * MAX_SAME_FAILURES + (mining_calls - workers) + 1, (calls, mining_calls)
    assert "Traceback" not in done.stderr
