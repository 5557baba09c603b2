"""A Message Batches call ends at its deadline, as a direct call does (retry.within).

The SDK's timeout is per read: a server sending a byte every 50 ms never trips a
0.3 s timeout, and a status poll's ~450-byte reply took over 20 s, a results stream
longer. Each case is the real anthropic SDK against the fake batch server on
127.0.0.1 (tests/fakes/anthropic_batches.py) trickling one route's reply."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fakes.anthropic_batches import FakeBatchServer

from learn.models import batches
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.ratelimit import RateLimiter
from learn.models.retry import DEADLINE_GRACE_SECONDS, RetryPolicy

TIMEOUT = 0.3
PACE = 0.05  # seconds a byte: every read well inside TIMEOUT
# One attempt cut at its deadline: the timeout, the grace `within` allows, and room
# for the SDK's own work on a loaded machine.
CUT = TIMEOUT + DEADLINE_GRACE_SECONDS + 1.0
TOOL = ToolSpec("record_candidates", "Record.", {
    "type": "object", "properties": {"candidates": {"type": "array"}}, "required": ["candidates"]})
REQUESTS = {f"s{i}": ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL,
                                  f"USER: use bun {i}", max_tokens=256) for i in range(3)}


@pytest.fixture(scope="module", autouse=True)
def _sdk_loaded() -> None:
    # The SDK's import (2-3 s) is paid at a backend's first call, inside the time a
    # test measures: paid here instead.
    import anthropic  # noqa: F401


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBatchServer]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    with FakeBatchServer(responder=lambda r: {"candidates": []}) as server:
        yield server


def _backend(fake: FakeBatchServer, *, budget: float) -> AnthropicBackend:
    # Waits are recorded, not slept; the budget runs on the wall clock of the attempts.
    return AnthropicBackend(api_key="test-key", base_url=fake.base_url, timeout=TIMEOUT,
                            limiter=RateLimiter(None, None),
                            retry=RetryPolicy(budget_seconds=budget, sleep=lambda s: None))


def _entries() -> list[dict[str, object]]:
    return [batches.request_entry(cid, request) for cid, request in REQUESTS.items()]


def _calls(fake: FakeBatchServer, route: str) -> int:
    return sum(1 for r in fake.requests if fake.route(r) == route)


def _call(backend: AnthropicBackend, route: str, batch_id: str) -> object:
    if route == "create":
        return batches.submit(backend, _entries())
    if route == "poll":
        return batches.status(backend, batch_id)
    return batches.results(backend, batch_id, REQUESTS)


@pytest.mark.parametrize("route", ["create", "poll", "results"])
def test_a_trickled_batch_reply_is_cut_at_its_deadline_and_asked_again(
        fake: FakeBatchServer, route: str) -> None:
    batch_id = batches.submit(_backend(fake, budget=60.0), _entries())
    before = _calls(fake, route)
    fake.trickle(route, PACE, times=2)
    started = time.monotonic()
    got = _call(_backend(fake, budget=60.0), route, batch_id)
    took = time.monotonic() - started
    # Two attempts cut, the third answered: what it answered is used.
    assert _calls(fake, route) - before == 3
    assert took < 2 * CUT, took
    if route == "create":
        assert isinstance(got, str) and got.startswith("msgbatch_")
    elif route == "poll":
        assert isinstance(got, batches.BatchStatus) and got.ended
    else:
        assert isinstance(got, list) and sorted(r.custom_id for r in got) == sorted(REQUESTS)
        assert all(r.response is not None for r in got)


def test_a_batch_call_trickled_every_time_gives_up_with_the_budget_in_one_line(
        fake: FakeBatchServer) -> None:
    batch_id = batches.submit(_backend(fake, budget=60.0), _entries())
    fake.trickle("poll", PACE, times=20)
    started = time.monotonic()
    with pytest.raises(ModelError) as info:
        batches.status(_backend(fake, budget=2.0), batch_id)
    took = time.monotonic() - started
    line = str(info.value)
    assert line.startswith("anthropic batches status: gave up after "), line
    assert "request timed out" in line and "\n" not in line, line
    assert took < 2.0 + CUT, took
