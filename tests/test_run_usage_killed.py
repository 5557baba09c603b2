"""A `learn run` killed mid-way still shows in `learn stats`, with the cost of the calls it made.

The run wrote its usage only at its end, so a run killed with SIGKILL while mining
(an OOM killer, a CI timeout) left no row in `runs`, and `learn stats` reported none
of the calls it had been answered and billed for. Here the real CLI mines the demo
corpus against the fake Messages server, which answers three mining calls and holds
the next; the process group gets SIGKILL (no handler runs, nothing is flushed), and
`learn stats --json` must count one unfinished run with exactly those three calls.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.anthropic_server import DEFAULT_USAGE, FakeAnthropicServer
from test_interrupt_points import Stage, mined_entries, start, wait_until, world

from evals.oracle import GoldOracle
from learn.models.catalog import model_info

__all__ = ["world"]  # the fixture, shared with tests/test_interrupt_points.py

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture's subprocess helpers are Linux's")

ANSWERED = 3


def stats(home: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "learn", "stats", "--json"], cwd=home, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_a_run_killed_while_mining_shows_in_stats_with_the_calls_it_was_answered(
        world: tuple[Path, dict[str, str], GoldOracle]) -> None:
    home, env, oracle = world
    stage = Stage(oracle, hold="record_candidates", answer_first=ANSWERED)
    with FakeAnthropicServer(responder=stage) as fake:
        proc = start(home, env, fake.base_url)
        # A session is cached after its call's usage is counted: three cached, three counted.
        wait_until(lambda: mined_entries(env) >= ANSWERED
                   and stage.count("record_candidates") > ANSWERED,
                   proc, f"{ANSWERED} sessions mined and the next call held")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        stage.release.set()
        model = str(fake.requests[0].json["model"])
    assert proc.returncode == -signal.SIGKILL

    got = stats(home, env)
    assert got["runs"] == 1 and got["finished_runs"] == 0  # shown, as unfinished
    assert got["model_calls"] == ANSWERED and got["failed_calls"] == 0
    assert got["input_tokens"] == ANSWERED * DEFAULT_USAGE["input_tokens"]
    assert got["output_tokens"] == ANSWERED * DEFAULT_USAGE["output_tokens"]
    per_call = model_info(model).cost(DEFAULT_USAGE["input_tokens"], DEFAULT_USAGE["output_tokens"])
    assert per_call > 0
    assert got["cost_usd"] == pytest.approx(ANSWERED * per_call, abs=1e-6)


def test_a_finished_run_after_a_killed_one_keeps_both_costs(
        world: tuple[Path, dict[str, str], GoldOracle]) -> None:
    home, env, oracle = world
    stage = Stage(oracle, hold="record_candidates", answer_first=ANSWERED)
    with FakeAnthropicServer(responder=stage) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: mined_entries(env) >= ANSWERED
                   and stage.count("record_candidates") > ANSWERED,
                   proc, f"{ANSWERED} sessions mined and the next call held")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        stage.release.set()
    killed = stats(home, env)

    second = Stage(oracle)
    with FakeAnthropicServer(responder=second) as fake:
        done = subprocess.run([sys.executable, "-m", "learn", *_run_args()], cwd=home,
                              env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    usage = json.loads(done.stdout)["usage"]
    assert usage["model_calls"] > 0 and killed["runs"] == 1

    got = stats(home, env)
    assert got["runs"] == 2 and got["finished_runs"] == 1
    assert got["model_calls"] == killed["model_calls"] + usage["model_calls"]  # type: ignore[operator]
    assert got["input_tokens"] == killed["input_tokens"] + usage["input_tokens"]  # type: ignore[operator]
    assert got["cost_usd"] == pytest.approx(killed["cost_usd"] + usage["cost_usd"], abs=1e-6)  # type: ignore[operator]


def _run_args() -> list[str]:
    from test_interrupt_points import RUN

    return [*[a for a in RUN if a != "--quiet"], "--quiet", "--json"]
