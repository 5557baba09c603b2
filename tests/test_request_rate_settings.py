"""`[backend] in_flight` and `requests_per_minute`: the pace of model calls is a setting.

Every backend held 4 requests open and anthropic started at 50 a minute, whatever was
configured: a llama.cpp server with one slot got 4 at once, a proxy allowing 20 a
minute got 50, a high-tier account never more than 4 open. The limiter on a fake
clock (no test sleeps for a rate), the settings as the config reads them, and a real
run against the fake Messages server counting the requests it has open.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest
from test_models_ratelimit_adaptive import VirtualClock

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.config import ConfigError, load_config
from learn.models.ratelimit import RateLimiter, limiter_for
from learn.models.ratelimit_headers import Bucket, Limits

REPO = Path(__file__).resolve().parents[1]
BACKENDS = ("anthropic", "claude-cli", "openai")


def acquired_at(limiter: RateLimiter, clock: VirtualClock, n: int) -> list[float]:
    """When each of `n` back-to-back requests went out (each released at once)."""
    times = []
    for _ in range(n):
        limiter.acquire()
        times.append(clock())
        limiter.release()
    return times


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


# -- the limiter a run builds from the settings ---------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ceiling_of_20_a_minute_sends_one_every_3_s_so_no_minute_sees_a_21st(backend: str) -> None:
    clock = VirtualClock()
    limiter = limiter_for(backend, requests_per_minute=20, clock=clock, sleep=clock.sleep)
    times = acquired_at(limiter, clock, 21)
    assert gaps(times) == pytest.approx([3.0] * 20, abs=0.01)
    assert times[20] - times[0] == pytest.approx(60.0, abs=0.01)  # the 21st: a minute after the 1st


def test_an_accounts_headers_lower_the_ceiling_but_never_lift_it() -> None:
    clock = VirtualClock()
    limiter = limiter_for("anthropic", requests_per_minute=20, clock=clock, sleep=clock.sleep)
    limiter.acquire()
    limiter.observe(Limits(requests=Bucket(4000, 3999)))  # a high tier says 4,000 a minute
    limiter.release()
    assert limiter.requests_per_minute == 20
    # Its bucket of 4,000 does not come with it: still one every 3 s, no burst.
    times = acquired_at(limiter, clock, 5)
    assert gaps(times) == pytest.approx([3.0] * 4, abs=0.01)
    limiter.acquire()
    limiter.observe(Limits(requests=Bucket(10, 9)))  # a tier below the ceiling
    limiter.release()
    assert limiter.requests_per_minute == 10


def test_on_anthropic_a_ceiling_is_also_where_the_rate_starts_before_any_header() -> None:
    # The 50 a minute is a guess for want of a figure; the user's figure replaces it,
    # or a gateway that sends no headers would keep 50 however high it was set.
    assert limiter_for("anthropic", requests_per_minute=200).requests_per_minute == 200
    assert limiter_for("anthropic", requests_per_minute=20).requests_per_minute == 20
    # Unset, the guess stands: 50 a minute, the first 4 at once, then one every 1.2 s.
    clock = VirtualClock()
    times = acquired_at(limiter_for("anthropic", clock=clock, sleep=clock.sleep), clock, 5)
    assert times[3] == times[0] and times[4] - times[3] == pytest.approx(1.2, abs=0.01)
    assert limiter_for("openai").requests_per_minute is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_with_one_in_flight_a_second_request_waits_for_the_first_to_end(backend: str) -> None:
    limiter = limiter_for(backend, in_flight=1)
    limiter.acquire()
    second = threading.Event()

    def other_worker() -> None:
        limiter.acquire()
        second.set()
        limiter.release()

    worker = threading.Thread(target=other_worker, daemon=True)
    worker.start()
    assert not second.wait(0.5)  # held while the first is open
    limiter.release()
    assert second.wait(10)
    worker.join(10)


def test_a_high_tier_may_have_more_than_4_requests_open() -> None:
    clock = VirtualClock()
    limiter = limiter_for("anthropic", in_flight=8, clock=clock, sleep=clock.sleep)
    opened = threading.Semaphore(0)

    def worker() -> None:
        limiter.acquire()  # never released: one past the cap blocks for good
        opened.release()

    for _ in range(9):
        threading.Thread(target=worker, daemon=True).start()
    assert all(opened.acquire(timeout=10) for _ in range(8))
    assert not opened.acquire(timeout=0.5)  # the 9th waits
    assert limiter.in_flight == 8


# -- the settings ---------------------------------------------------------------


def _load(tmp_path: Path, toml: str, **env: str) -> Any:
    path = tmp_path / "config.toml"
    path.write_text(toml)
    return load_config(path, env=env)


def test_the_file_and_the_environment_set_the_pace(tmp_path: Path) -> None:
    default = _load(tmp_path, "").backend
    assert (default.in_flight, default.requests_per_minute) == (4, None)
    backend = _load(tmp_path, "[backend]\nin_flight = 1\nrequests_per_minute = 20\n").backend
    assert (backend.in_flight, backend.requests_per_minute) == (1, 20.0)
    backend = _load(tmp_path, "[backend]\nin_flight = 1\n", LEARN_IN_FLIGHT="12",
                    LEARN_REQUESTS_PER_MINUTE="7.5").backend
    assert (backend.in_flight, backend.requests_per_minute) == (12, 7.5)


@pytest.mark.parametrize(("toml", "said"), [
    ("[backend]\nin_flight = 0\n", "backend.in_flight: Expected `int` >= 1"),
    ("[backend]\nin_flight = 33\n", "backend.in_flight: Expected `int` <= 32"),
    ('[backend]\nin_flight = "one"\n', "backend.in_flight: Expected `int`, got `str`"),
    ("[backend]\nrequests_per_minute = 0\n", "backend.requests_per_minute: Expected `float` > 0"),
    ("[backend]\nrequests_per_minute = -20\n", "backend.requests_per_minute: Expected `float` > 0"),
    ("[backend]\nrequests_per_minute = inf\n", "backend.requests_per_minute: Expected `float` <="),
    ("[backend]\ninflight = 2\n", "unknown key 'inflight' in [backend] (did you mean in_flight?)"),
    ("[backend]\nrequest_per_minute = 2\n",
     "unknown key 'request_per_minute' in [backend] (did you mean requests_per_minute?)"),
])
def test_a_bad_pace_is_an_error_that_names_it(tmp_path: Path, toml: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, toml)
    assert said in str(raised.value)


@pytest.mark.parametrize(("env", "said"), [
    ({"LEARN_IN_FLIGHT": "0"}, "backend.in_flight: Expected `int` >= 1"),
    ({"LEARN_IN_FLIGHT": "2.5"}, "backend.in_flight: Expected `int`, got `str`"),
    ({"LEARN_REQUESTS_PER_MINUTE": "0"}, "backend.requests_per_minute: Expected `float` > 0"),
    ({"LEARN_REQUESTS_PER_MINUTE": "fast"}, "backend.requests_per_minute: Expected `float | null`"),
])
def test_a_bad_override_is_an_error_that_names_the_setting(
        tmp_path: Path, env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match=r"^environment override: ") as raised:
        _load(tmp_path, "", **env)
    assert said in str(raised.value)


def test_a_bad_override_stops_a_command_with_exit_2(tmp_path: Path) -> None:
    # `learn sessions` reads no config when nothing is configured: these overrides
    # must count as configured, or a bad one would pass unseen until a run.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(REPO), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               LEARN_DATA_DIR=str(tmp_path / "data"), LEARN_CACHE_DIR=str(tmp_path / "cache"))
    for name in ("LEARN_IN_FLIGHT", "LEARN_REQUESTS_PER_MINUTE"):
        done = subprocess.run([sys.executable, "-m", "learn", "sessions"], cwd=tmp_path,
                              env={**env, name: "0"}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert "environment override" in done.stderr and "Traceback" not in done.stderr


# -- a run ----------------------------------------------------------------------


class CountingOpen(FakeAnthropicServer):
    """Counts the Messages requests open at once; each answer takes a moment, so
    requests sent together overlap here."""

    def __init__(self, oracle: GoldOracle) -> None:
        super().__init__(responder=self.slow_answer)
        self.oracle = oracle
        self.open = 0
        self.most_open = 0
        self._count = threading.Lock()

    def slow_answer(self, request: RecordedRequest) -> dict[str, Any]:
        time.sleep(0.15)
        return self.oracle.answer(request.tool_name or "", request.user_text)

    def _serve(self, handler: Any) -> None:
        with self._count:
            self.open += 1
            self.most_open = max(self.most_open, self.open)
        try:
            super()._serve(handler)
        finally:
            with self._count:
                self.open -= 1


def test_a_run_never_has_more_requests_open_than_in_flight(tmp_path: Path) -> None:
    oracle = GoldOracle(demo.build(tmp_path / "corpus"))
    home = tmp_path / "corpus" / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               ANTHROPIC_API_KEY="k", LEARN_CONCURRENCY="4", LEARN_IN_FLIGHT="1")
    with CountingOpen(oracle) as fake:
        done = subprocess.run(
            [sys.executable, "-m", "learn", "run", "--all-projects", "--since", "2026-01-01",
             "--yes", "--quiet", "--json"],
            cwd=home, env={**env, "ANTHROPIC_BASE_URL": fake.base_url}, capture_output=True,
            text=True, timeout=600)
        calls, most_open = len(fake.requests), fake.most_open
    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert usage["sessions_mined"] == usage["sessions_seen"] > 1
    assert calls > 4  # enough that 4 workers would have overlapped
    assert most_open == 1
