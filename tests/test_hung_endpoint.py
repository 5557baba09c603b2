"""A hung endpoint holds a run no longer than the retry budget.

Measured against a server that accepts and never answers: every request timed
out at the backend's 180 s, four attempts ran to 12 minutes, and the person was
told "12m08s of 10m"; with `retry_seconds = 20` the first request's 180 s came on
top of the budget (204 s). A request now waits at most what is left of the budget
when it starts, and a failed request's own time counts against it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.openai_backend import OpenAIBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import MIN_ATTEMPT_SECONDS, RetryPolicy

TOOL = ToolSpec("record_candidates", "Record.", {"type": "object", "properties": {}})


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, "USER: hi", max_tokens=256)


@pytest.fixture
def hung() -> Iterator[str]:
    """A base URL whose server reads the request and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def _failing_for(policy: RetryPolicy, seconds: float) -> None:
    """The backend has been failing for `seconds` (its outage began then)."""
    policy.outage.failed()
    policy.outage.note_wait(seconds)  # elapsed() is the longer of wall time and the waits


def test_a_healthy_backend_keeps_its_whole_timeout_within_the_budget() -> None:
    assert RetryPolicy(budget_seconds=600.0).attempt_timeout(180.0) == 180.0


def test_a_budget_below_the_timeout_bounds_even_a_healthy_backends_request() -> None:
    # A hung endpoint with `retry_seconds = 20` held a run 204 s: the first request's
    # 180 s timeout, then the budget.
    assert RetryPolicy(budget_seconds=20.0).attempt_timeout(180.0) == 20.0
    assert RetryPolicy(budget_seconds=0.2).attempt_timeout(180.0) == MIN_ATTEMPT_SECONDS


def test_a_failing_backend_waits_only_what_is_left_of_the_budget() -> None:
    policy = RetryPolicy(budget_seconds=600.0)
    _failing_for(policy, 540.0)
    assert policy.attempt_timeout(180.0) == pytest.approx(60.0, abs=1.0)
    _failing_for(policy, 100.0)  # 640 s: past the budget, the last attempt still gets a moment
    assert policy.attempt_timeout(180.0) == MIN_ATTEMPT_SECONDS


def test_anthropic_request_to_a_hung_endpoint_ends_with_the_budget(hung: str) -> None:
    policy = RetryPolicy(budget_seconds=600.0, sleep=lambda s: None)
    _failing_for(policy, 598.0)
    backend = AnthropicBackend(api_key="test-key", base_url=hung, timeout=60.0,
                               limiter=RateLimiter(None, None), retry=policy)
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out"):
        backend.call(_request())
    # Two seconds of budget were left: the 60 s timeout would have held the call a minute.
    assert time.monotonic() - started < 20.0


def test_openai_request_to_a_hung_endpoint_ends_with_the_budget(hung: str) -> None:
    policy = RetryPolicy(budget_seconds=600.0, sleep=lambda s: None)
    _failing_for(policy, 598.0)
    backend = OpenAIBackend(hung + "/v1", "qwen3-coder", timeout=60.0,
                            limiter=RateLimiter(None, None), retry=policy)
    backend.memo.set(backend.url, "qwen3-coder", "tools")
    started = time.monotonic()
    with pytest.raises(ModelError, match="timed out"):
        backend.call(_request())
    assert time.monotonic() - started < 20.0
