"""A `learn run` killed or interrupted after a model answered keeps that answer: the next
run does not pay for it again, and ends with the proposals an uninterrupted run shows.

Measured on the demo corpus (naming 4 items a call: 8 naming calls; the judge's first
answer giving 4 of 7 verdicts: 2 judge calls; one coverage call), the re-run's requests
for the step that had answered, before this was so and after, SIGKILL and SIGINT alike:
stopped after the first naming answer, 8 naming calls again (now 7); after the coverage
answer, 1 coverage call again (now 0); after the first judge answer, 1 judge call (the
3 verdicts not yet given: verdicts were committed as each answer arrived already), and
the coverage call again (now not).

The real CLI runs against the fake Messages server (tests/test_interrupt_points.py),
which holds one step's next request; the run gets SIGKILL (no handler runs) or SIGINT
(as a terminal sends it) once the fake has seen that request, so the answer before it
was parsed. A second run against a server that answers everything counts what it
asks; a run never interrupted, over the same corpus, is the reference for both the
counts and the proposals.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _stopped_runs import RUN, Stage, World, demo_world, start, wait_until, world
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest
from test_interrupt_points import interrupt

from evals.oracle import GoldOracle

__all__ = ["world"]  # the fixture (tests/_stopped_runs.py)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture's subprocess helpers are Linux's")

# Items per naming call: the demo's 16 candidates take 8 calls, not 4.
NAME_BATCH = 4
# The judge answers at most this many items of a call; the rest are asked again,
# alone, in a second call (learn.reduce.judge): the demo's 7 proposals take 2 calls.
JUDGE_ANSWERS = 4
JSON_RUN = [*[a for a in RUN if a != "--quiet"], "--quiet", "--json"]


class Answers(Stage):
    """The oracle's answers, the judge's cut to JUDGE_ANSWERS rows (by content, so every
    run gets the same answer to the same request)."""

    def __call__(self, request: RecordedRequest) -> dict[str, Any]:
        answer = super().__call__(request)
        assert isinstance(answer, dict)
        if request.tool_name == "record_verdicts":
            answer = {**answer, "verdicts": [r for r in answer["verdicts"]
                                             if r["id"] < JUDGE_ANSWERS]}
        return answer


@dataclass(frozen=True)
class Finished:
    asked: dict[str, int]  # requests per tool
    proposals: list[Any]
    funnel: Any


def prepare(tmp: Path, env: dict[str, str]) -> None:
    config = Path(env["LEARN_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    # No pacing: the fake answers at once, and at the default 50 a minute two runs
    # of 19 calls spent 20 s of a test waiting for the bucket.
    (config / "config.toml").write_text(f"[models]\nname_batch = {NAME_BATCH}\n"
                                        "[backend]\nrequests_per_minute = 100000\n")


def run_to_the_end(home: Path, env: dict[str, str], oracle: GoldOracle, root: Path) -> Finished:
    stage = Answers(oracle)
    with FakeAnthropicServer(responder=stage) as fake:
        done = subprocess.run([sys.executable, "-m", "learn", *JSON_RUN], cwd=home,
                              env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # The corpus lives under a temporary folder, named in each proposal's projects.
    result = json.loads(done.stdout.replace(str(root), "<root>"))
    return Finished(dict(stage.seen), result["proposals"], result["funnel"])


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Finished:
    tmp = tmp_path_factory.mktemp("uninterrupted")
    home, env, oracle = demo_world(tmp)
    prepare(tmp, env)
    return run_to_the_end(home, env, oracle, tmp)


@dataclass(frozen=True)
class Point:
    """Where the run is stopped: the fake holds `hold`'s request number `answered + 1`."""

    hold: str
    answered: int


AFTER_FIRST_NAMING_ANSWER = Point("assign_labels", 1)
AFTER_THE_COVERAGE_ANSWER = Point("record_verdicts", 0)  # coverage answered, judging asked
AFTER_FIRST_JUDGE_ANSWER = Point("record_verdicts", 1)


def stopped_then_finished(world: World, point: Point,
                          sig: signal.Signals) -> tuple[Stage, Finished]:
    home, env, oracle = world
    root = home.parents[1]
    prepare(root, env)
    stage = Answers(oracle, hold=point.hold, answer_first=point.answered)
    with FakeAnthropicServer(responder=stage) as fake:
        proc = start(home, env, fake.base_url)
        wait_until(lambda: stage.count(point.hold) > point.answered, proc,
                   f"{point.answered} {point.hold} answer(s) and the next asked")
        if sig == signal.SIGINT:
            interrupt(proc)
        else:
            os.killpg(proc.pid, sig)
            proc.communicate(timeout=30)
            assert proc.returncode == -sig
        stage.release.set()
    return stage, run_to_the_end(home, env, oracle, root)


SIGNALS = pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])


@SIGNALS
def test_naming_answers_received_before_a_stop_are_not_asked_again(
        world: World, uninterrupted: Finished,
        sig: signal.Signals) -> None:
    first, again = stopped_then_finished(world, AFTER_FIRST_NAMING_ANSWER, sig)
    assert uninterrupted.asked["assign_labels"] == 8
    assert first.count("assign_labels") == 2  # one answered, one held
    assert again.asked.get("record_candidates", 0) == 0
    assert again.asked["assign_labels"] == uninterrupted.asked["assign_labels"] - 1
    assert again.proposals == uninterrupted.proposals
    assert again.funnel == uninterrupted.funnel


@SIGNALS
def test_a_coverage_answer_received_before_a_stop_is_not_asked_again(
        world: World, uninterrupted: Finished,
        sig: signal.Signals) -> None:
    first, again = stopped_then_finished(world, AFTER_THE_COVERAGE_ANSWER, sig)
    assert uninterrupted.asked["check_coverage"] == 1
    assert first.count("check_coverage") == 1
    assert again.asked.get("assign_labels", 0) == 0
    assert again.asked.get("check_coverage", 0) == 0
    assert again.asked["record_verdicts"] == uninterrupted.asked["record_verdicts"]
    assert again.proposals == uninterrupted.proposals
    assert again.funnel == uninterrupted.funnel


@SIGNALS
def test_judge_verdicts_received_before_a_stop_are_not_asked_again(
        world: World, uninterrupted: Finished,
        sig: signal.Signals) -> None:
    first, again = stopped_then_finished(world, AFTER_FIRST_JUDGE_ANSWER, sig)
    assert uninterrupted.asked["record_verdicts"] == 2  # 4 verdicts, then the other 3
    assert first.count("record_verdicts") == 2
    assert again.asked.get("assign_labels", 0) == 0
    assert again.asked.get("check_coverage", 0) == 0
    assert again.asked["record_verdicts"] == 1  # the 3 the first answer left out
    assert again.proposals == uninterrupted.proposals
    assert again.funnel == uninterrupted.funnel


# -- the coverage answers' keeping, in process ----------------------------------------

def test_a_kept_coverage_answer_answers_the_same_request_and_no_other() -> None:
    from _reduce_helpers import ScriptedBackend, TopicEmbedder, failing
    from test_reduce_coverage import CORPUS, PROPOSALS, answer_by_text

    from learn.reduce.coverage import check_coverage
    from learn.reduce.memory import InMemoryAnswerMemory

    kept = InMemoryAnswerMemory()
    asked = ScriptedBackend(answer_by_text)
    first = check_coverage(PROPOSALS, CORPUS, backend=asked, model="m", embedder=TopicEmbedder(),
                           answers=kept)
    assert len(asked.requests) == first.calls == 1 and len(kept.rows) == 1

    # The same request: the kept answer, no call (a backend that fails would say so).
    again = check_coverage(PROPOSALS, CORPUS, backend=ScriptedBackend(failing), model="m",
                           embedder=TopicEmbedder(), answers=kept)
    assert not again.failed and again.calls == 0
    assert again.proposals == first.proposals and [p.status for p in again.proposals] == [
        "restated", "has-skill", "new", "new"]

    # Another model configuration, or other items: asked.
    other = ScriptedBackend(answer_by_text)
    check_coverage(PROPOSALS, CORPUS, backend=other, model="m2", embedder=TopicEmbedder(),
                   answers=kept)
    check_coverage(PROPOSALS[:2], CORPUS, backend=other, model="m", embedder=TopicEmbedder(),
                   answers=kept)
    assert len(other.requests) == 2 and len(kept.rows) == 3


def test_a_failed_coverage_call_keeps_nothing() -> None:
    from _reduce_helpers import ScriptedBackend, TopicEmbedder, failing
    from test_reduce_coverage import CORPUS, PROPOSALS

    from learn.reduce.coverage import check_coverage
    from learn.reduce.memory import InMemoryAnswerMemory

    kept = InMemoryAnswerMemory()
    result = check_coverage(PROPOSALS, CORPUS, backend=ScriptedBackend(failing), model="m",
                            embedder=TopicEmbedder(), answers=kept)
    assert result.failed and kept.rows == {}


def test_the_request_key_changes_with_the_model_the_prompt_the_tool_and_the_items() -> None:
    import dataclasses

    from learn.models.base import ModelRequest
    from learn.reduce.answers import request_key
    from learn.reduce.coverage import CHECK_COVERAGE

    base = ModelRequest(step="coverage", model="m", system="prompt v3", tool=CHECK_COVERAGE,
                        user="ITEMS:\n0. [directive] use bun", max_tokens=296)
    variants = [dataclasses.replace(base, model="m2"), dataclasses.replace(base, system="prompt v4"),
                dataclasses.replace(base, user="ITEMS:\n0. [directive] use npm"),
                dataclasses.replace(base, max_tokens=336),
                dataclasses.replace(base, tool=dataclasses.replace(CHECK_COVERAGE, input_schema={}))]
    keys = {request_key(r) for r in variants}
    assert len(keys) == len(variants) and request_key(base) not in keys
    assert request_key(dataclasses.replace(base)) == request_key(base)


def test_a_kept_answer_is_committed_at_once_and_read_by_the_next_process(tmp_path: Path) -> None:
    from learn.reduce.stored import StoreAnswerMemory
    from learn.store import open_store

    target = tmp_path / "learn.db"
    store = open_store(target)
    try:
        StoreAnswerMemory(store).put("k1", "coverage", [{"id": 0, "verdict": "new"}])
        # Another process (another connection) sees it while this one is still open:
        # nothing waits for the run's end.
        reader = subprocess.run(
            [sys.executable, "-c", "import sys, json\nfrom learn.store import open_store\n"
             "with open_store(sys.argv[1]) as s: print(json.dumps(s.answers.get('k1')))",
             str(target)], capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
        assert reader.returncode == 0, reader.stderr
        assert json.loads(reader.stdout) == [{"id": 0, "verdict": "new"}]
        assert StoreAnswerMemory(store).get("k2") is None
    finally:
        store.close()


def test_answers_older_than_the_keeping_time_go_when_the_next_is_kept(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from learn.store import open_store
    from learn.store.answer_table import KEEP_DAYS

    now = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    with open_store(tmp_path / "learn.db") as store:
        store.answers.put("old", "coverage", [{"id": 0, "verdict": "new"}],
                          now=now - timedelta(days=KEEP_DAYS + 1))
        store.answers.put("recent", "coverage", [{"id": 0, "verdict": "rule"}],
                          now=now - timedelta(days=KEEP_DAYS - 1))
        assert store.answers.get("old") is not None  # nothing goes until an answer is kept
        store.answers.put("new", "coverage", [], now=now)
        assert store.answers.get("old") is None
        assert store.answers.get("recent") == [{"id": 0, "verdict": "rule"}]
        assert store.answers.get("new") == []
