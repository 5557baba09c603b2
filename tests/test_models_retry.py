"""Retry policy and the shared rate limiter, on fake clocks (no sleeping)."""

from __future__ import annotations

import threading
import time

import pytest

from learn.models.base import ModelError
from learn.models.ratelimit import RateLimiter
from learn.models.retry import (
    RetryPolicy,
    TransientError,
    is_retryable_status,
    parse_retry_after,
    run_with_retries,
)


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0"}) == 0.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "junk", "retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "-5"}) == 0.0
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    date = "Wed, 21 Oct 2026 07:28:10 GMT"
    import email.utils

    at = email.utils.parsedate_to_datetime(date).timestamp()
    assert parse_retry_after({"retry-after": date}, now=at - 12) == pytest.approx(12.0)


def test_retryable_statuses() -> None:
    assert all(is_retryable_status(s) for s in (408, 409, 429, 500, 502, 503, 529))
    assert not any(is_retryable_status(s) for s in (400, 401, 403, 404, 413, 422))
    assert not is_retryable_status(500, {"x-should-retry": "false"})
    assert is_retryable_status(400, {"x-should-retry": "true"})


def test_retries_transient_then_returns() -> None:
    waits: list[float] = []
    outcomes: list[Exception | str] = [TransientError("overloaded", status=529), "ok"]

    def attempt() -> str:
        item = outcomes.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    assert run_with_retries(attempt, RetryPolicy(sleep=waits.append), what="t") == "ok"
    assert len(waits) == 1 and 0 < waits[0] <= 2.0  # first backoff: ~1 s + jitter


def test_backoff_grows_and_is_capped() -> None:
    waits: list[float] = []

    def attempt() -> None:
        raise TransientError("overloaded", status=529)

    policy = RetryPolicy(max_attempts=8, initial_backoff=1.0, max_backoff=10.0, jitter=0.0, sleep=waits.append)
    with pytest.raises(ModelError, match="gave up after 8 attempts: HTTP 529 overloaded"):
        run_with_retries(attempt, policy, what="t")
    assert waits == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


def test_retries_last_the_time_budget_not_a_count() -> None:
    """Twenty failures in a row are still retried inside a 10-minute budget (five
    attempts gave a session up in about one run in three against a flaky server)."""
    waits: list[float] = []
    failures = [TransientError("overloaded", status=529)] * 20

    def attempt() -> str:
        if failures:
            failures.pop()
            raise TransientError("overloaded", status=529, retry_after=1.0)
        return "ok"

    policy = RetryPolicy(budget_seconds=600.0, sleep=waits.append)
    assert run_with_retries(attempt, policy, what="t") == "ok"
    assert len(waits) == 20


def test_the_budget_ends_the_retries_and_no_wait_overshoots_it() -> None:
    waits: list[float] = []

    def attempt() -> None:
        raise TransientError("overloaded", status=529)

    policy = RetryPolicy(budget_seconds=100.0, initial_backoff=1.0, max_backoff=30.0, jitter=0.0,
                         sleep=waits.append)
    with pytest.raises(ModelError, match=r"gave up after \d+ attempts: HTTP 529 overloaded \(retried for 100 s\)"):
        run_with_retries(attempt, policy, what="t")
    assert waits[:5] == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert sum(waits) == pytest.approx(100.0)  # the last wait is cut to what the budget has left
    assert max(waits) <= 30.0


def test_a_retry_after_longer_than_the_budget_left_fails_the_call_at_once() -> None:
    waits: list[float] = []

    def attempt() -> None:
        raise TransientError("rate", status=429, retry_after=50.0)

    with pytest.raises(ModelError, match="HTTP 429 rate: the endpoint asked to wait 50 s, "
                       r"more than the 20 s left of the retry budget \(\[backend\] retry_seconds\)"):
        run_with_retries(attempt, RetryPolicy(budget_seconds=120.0, sleep=waits.append), what="t")
    assert waits == [50.0, 50.0]  # not 20 s more for a request the server said it would refuse


def test_server_retry_after_is_honoured_and_capped() -> None:
    waits: list[float] = []
    errors = [TransientError("rate", status=429, retry_after=4.0), TransientError("rate", status=429, retry_after=1e6)]

    def attempt() -> str:
        if errors:
            raise errors.pop(0)
        return "ok"

    policy = RetryPolicy(budget_seconds=2e6, max_retry_after=300.0, sleep=waits.append)
    run_with_retries(attempt, policy, what="t")
    assert waits == [4.0, 300.0]


def test_final_errors_are_not_retried() -> None:
    calls = []

    def attempt() -> None:
        calls.append(1)
        raise ModelError("bad request")

    with pytest.raises(ModelError, match="bad request"):
        run_with_retries(attempt, RetryPolicy(sleep=lambda s: None), what="t")
    assert len(calls) == 1


def test_token_bucket_spaces_requests_at_the_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(60, None, burst=2, clock=clock, sleep=clock.sleep)
    for _ in range(5):
        with limiter.slot():
            pass
    # Two go at once (burst), then one per second at 60/min.
    assert sum(clock.slept) == pytest.approx(3.0)
    assert clock.now == pytest.approx(1003.0)


def test_pause_holds_every_worker_until_it_ends() -> None:
    clock = FakeClock()
    limiter = RateLimiter(None, None, clock=clock, sleep=clock.sleep)
    limiter.pause(20)
    limiter.pause(5)  # a shorter pause never shortens a longer one
    limiter.acquire()
    assert clock.now == pytest.approx(1020.0)
    limiter.release()


def test_in_flight_cap_blocks_until_release() -> None:
    limiter = RateLimiter(None, 2)
    limiter.acquire()
    limiter.acquire()
    got_third = threading.Event()

    def third() -> None:
        limiter.acquire()
        got_third.set()

    worker = threading.Thread(target=third, daemon=True)
    worker.start()
    assert not got_third.wait(0.1)
    assert limiter.in_flight == 2
    limiter.release()
    assert got_third.wait(2.0)
    worker.join(2.0)
    assert limiter.in_flight == 2


def test_many_threads_never_exceed_the_cap() -> None:
    limiter = RateLimiter(None, 3)
    peak = [0]
    lock = threading.Lock()

    def work() -> None:
        for _ in range(20):
            with limiter.slot():
                with lock:
                    peak[0] = max(peak[0], limiter.in_flight)
                time.sleep(0.0005)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert peak[0] == 3
    assert limiter.in_flight == 0


def test_invalid_limits_are_rejected() -> None:
    with pytest.raises(ValueError):
        RateLimiter(0, 1)
    with pytest.raises(ValueError):
        RateLimiter(10, 0)


def test_a_server_that_keeps_saying_retry_now_is_backed_off_from_after_three_tries() -> None:
    waits: list[float] = []

    def attempt() -> None:
        raise TransientError("overloaded", status=529, retry_after=0.0)

    policy = RetryPolicy(budget_seconds=60.0, initial_backoff=1.0, jitter=0.0, sleep=waits.append)
    with pytest.raises(ModelError, match="HTTP 529 overloaded"):
        run_with_retries(attempt, policy, what="t")
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert waits[3:6] == [8.0, 16.0, 32.0]  # the backoff of attempts 4, 5, 6
    assert len(waits) < 10


def test_the_same_failure_again_and_again_gives_up_in_seconds_not_the_budget() -> None:
    """A 500 on every naming call held a run for the whole 600 s per call."""
    waits: list[float] = []
    calls: list[int] = []

    def attempt() -> None:
        calls.append(1)
        raise TransientError("api_error: Internal server error", status=500)

    policy = RetryPolicy(initial_backoff=1.0, jitter=0.0, sleep=waits.append)
    with pytest.raises(ModelError, match=r"gave up after 4 attempts: HTTP 500 api_error: Internal "
                                         r"server error \(the same failure each time\)"):
        run_with_retries(attempt, policy, what="t")
    assert len(calls) == 4 and waits == [1.0, 2.0, 4.0]
    # The next call failing the same way does not retry at all...
    with pytest.raises(ModelError, match=r"gave up after 1 attempt: .* \(as the call before it\)"):
        run_with_retries(attempt, policy, what="t")
    assert len(calls) == 5 and len(waits) == 3
    # ...until something answers again.
    assert run_with_retries(lambda: "ok", policy, what="t") == "ok"
    with pytest.raises(ModelError, match="gave up after 4 attempts"):
        run_with_retries(attempt, policy, what="t")


def test_mixed_failures_keep_retrying_like_a_flaky_server() -> None:
    waits: list[float] = []
    faults = [TransientError("boom", status=500), TransientError("connection error to x"),
              TransientError("boom", status=500), TransientError("request timed out"),
              TransientError("boom", status=500), TransientError("connection error to x")]

    def attempt() -> str:
        if faults:
            raise faults.pop(0)
        return "ok"

    assert run_with_retries(attempt, RetryPolicy(sleep=waits.append), what="t") == "ok"
    assert len(waits) == 6


def test_the_budget_is_the_backends_not_each_calls() -> None:
    """The API overloaded for the whole budget: the next call gives up at once instead of
    waiting ten more minutes (30 minutes for 11 sessions that way)."""
    waits: list[float] = []

    def overloaded() -> None:
        raise TransientError("overloaded", status=529, retry_after=20.0)

    policy = RetryPolicy(budget_seconds=100.0, sleep=waits.append)
    with pytest.raises(ModelError, match="retried for 100 s"):
        run_with_retries(overloaded, policy, what="t")
    assert sum(waits) == pytest.approx(100.0)
    before = len(waits)
    with pytest.raises(ModelError, match="gave up after 1 attempt"):
        run_with_retries(overloaded, policy, what="t")
    assert len(waits) == before
    # An answer ends the outage: the budget is whole again.
    assert run_with_retries(lambda: "ok", policy, what="t") == "ok"
    assert policy.outage.elapsed() == 0.0


def test_a_wait_is_told_with_how_long_of_the_budget() -> None:
    told: list[str] = []
    faults = [TransientError("overloaded_error: Overloaded", status=529, retry_after=40.0)] * 3

    def attempt() -> str:
        if faults:
            raise faults.pop()
        return "ok"

    policy = RetryPolicy(budget_seconds=600.0, sleep=lambda s: None)
    policy.outage.reporter = lambda notice: told.append(notice.line())
    assert run_with_retries(attempt, policy, what="t") == "ok"
    assert told and told[0].startswith("waiting for the API: HTTP 529 overloaded_error: Overloaded, ")
    assert told[0].endswith(" of 10m; Ctrl-C keeps what is finished")


def test_abort_wakes_a_waiting_call_at_once() -> None:
    policy = RetryPolicy()  # really sleeps, on the outage's event
    started = threading.Event()

    def attempt() -> None:
        started.set()
        raise TransientError("overloaded", status=529, retry_after=120.0)

    failed: list[BaseException] = []

    def run() -> None:
        try:
            run_with_retries(attempt, policy, what="t")
        except ModelError as exc:
            failed.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(10)
    begun = time.monotonic()
    policy.outage.abort()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - begun < 2
    assert failed and "interrupted" in str(failed[0])
