"""No wait, the server's or a request's own, outlasts the run's retry budget.

Measured before: a 429 with `retry-after: 3600` paused every worker for the hour
(a run with `retry_seconds = 15` still stuck after 300 s); a hung endpoint with
`retry_seconds = 20` held a run 204 s (the 180 s timeout, then the budget); a 500
was told as "waiting for the API: HTTP 500 …, 35s of 10m" though a 500 is given up
after four in a row, never waited out for the budget.

The limiter runs on a fake clock (its `sleep` advances it) and the policy's waits
are recorded, so nothing here sleeps for what the server asks.
"""

from __future__ import annotations

import time

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.openai_server import FakeOpenAIServer

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.openai_backend import OpenAIBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import MAX_SAME_FAILURES, RetryPolicy, TransientError, run_with_retries

TOOL = ToolSpec("record_candidates", "Record.", {"type": "object", "properties": {}})
ASKED = (r"the endpoint asked to wait 3600 s, more than the 1[0-5] s left of the retry budget "
         r"\(\[backend\] retry_seconds\)")


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, "USER: hi", max_tokens=256)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


def _limiter(clock: FakeClock) -> RateLimiter:
    return RateLimiter(None, 4, clock=clock, sleep=clock.sleep)


def test_a_retry_after_past_the_budget_fails_the_call_now_and_the_next_is_not_sent() -> None:
    clock = FakeClock()
    limiter = _limiter(clock)
    waits: list[float] = []
    with FakeAnthropicServer() as fake:
        fake.enqueue_status(429, headers={"retry-after": "3600"})  # then it would answer
        backend = AnthropicBackend(api_key="test-key", base_url=fake.base_url, limiter=limiter,
                                   retry=RetryPolicy(budget_seconds=15.0, sleep=waits.append))
        with pytest.raises(ModelError, match=r"gave up after 1 attempt: HTTP 429 .*" + ASKED):
            backend.call(_request())
        assert waits == [] and limiter.paused_until <= clock.now  # nobody held for the hour
        with pytest.raises(ModelError, match="not sent: HTTP 429 .*" + ASKED):
            backend.call(_request())
        assert len(fake.requests) == 1


def test_openai_retry_after_past_the_budget_fails_the_call_now() -> None:
    clock = FakeClock()
    limiter = _limiter(clock)
    waits: list[float] = []
    with FakeOpenAIServer() as fake:
        fake.enqueue_status(429, headers={"retry-after": "3600"})
        backend = OpenAIBackend(fake.base_url + "/v1", "local-model", limiter=limiter,
                                retry=RetryPolicy(budget_seconds=15.0, sleep=waits.append),
                                remember=False, only="tools")
        with pytest.raises(ModelError, match=ASKED):
            backend.call(_request())
        assert waits == [] and limiter.paused_until <= clock.now
        assert len(fake.requests) == 1


def test_a_shared_pause_is_cut_to_the_policys_cap_and_the_budget_left() -> None:
    clock = FakeClock()
    limiter = _limiter(clock)
    with FakeAnthropicServer() as fake:
        fake.enqueue_status(429, headers={"retry-after": "500"})  # within a 1000 s budget
        backend = AnthropicBackend(
            api_key="test-key", base_url=fake.base_url, limiter=limiter,
            retry=RetryPolicy(budget_seconds=1000.0, max_retry_after=300.0, sleep=lambda s: None))
        assert backend.call(_request()).tool_input is not None
        # The pause was 300 s (the cap), not the 500 asked: the retry went out at +300.
        assert clock.now == pytest.approx(1300.0, abs=1.0)
        assert len(fake.requests) == 2
    policy = RetryPolicy(budget_seconds=100.0)
    assert policy.pause_for(40.0) == 40.0
    assert policy.pause_for(100.0) == 100.0
    assert policy.pause_for(101.0) is None


def test_a_hung_endpoint_ends_the_call_near_a_budget_shorter_than_the_timeout() -> None:
    with FakeAnthropicServer() as fake:
        fake.enqueue_stall(30.0)
        backend = AnthropicBackend(api_key="test-key", base_url=fake.base_url, timeout=20.0,
                                   limiter=RateLimiter(None, None),
                                   retry=RetryPolicy(budget_seconds=1.5, sleep=lambda s: None))
        started = time.monotonic()
        with pytest.raises(ModelError, match="timed out"):
            backend.call(_request())
        took = time.monotonic() - started
    # The request was given the 1.5 s budget, not its 20 s timeout, and its own time
    # spent the budget: no second attempt.
    assert took < 5.0
    assert len(fake.requests) == 1


def test_a_500_is_told_as_retried_a_few_times_not_waited_out_for_the_budget() -> None:
    told: list[str] = []

    def attempt() -> None:
        raise TransientError("api_error: Internal server error", status=500)

    policy = RetryPolicy(budget_seconds=600.0, sleep=lambda s: None)
    policy.outage.reporter = lambda notice: told.append(notice.line())
    with pytest.raises(ModelError, match="the same failure each time"):
        run_with_retries(attempt, policy, what="t")
    assert told == [f"retrying the API: HTTP 500 api_error: Internal server error; a call gives up "
                    f"after {MAX_SAME_FAILURES} such failures in a row; Ctrl-C keeps what is finished"]
