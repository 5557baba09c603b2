"""One retry policy for every HTTP model backend.

Backends translate their transport's failures into `TransientError` (worth
another attempt) or `ModelError` (final); this module decides how long to wait
and when to give up. The SDKs' own retries are switched off so the two layers
never multiply: two SDK retries under five tenacity attempts would be fifteen
requests for one chunk, and the SDK's waits cannot be seen or shortened in tests.

Waits honour the server first (`retry-after-ms`, then `retry-after`): a 429's
retry-after is the only number that says when capacity is back, and guessing
shorter just earns another 429. Without one, exponential backoff with jitter,
so four mining workers that failed together do not retry together.

A call is retried for as long as its time budget lasts (`budget_seconds`, ten
minutes by default), not a fixed number of times: against a server failing half
of all calls, five attempts gave a session up in about one run in three (issue
21: p = 1/32 per call, over the ~12 calls of a small run), and a proposal's
count came out one short. An overload lasts minutes, not attempts.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    wait_exponential_jitter,
)

from learn.models.base import ModelError

T = TypeVar("T")

# 408 timeout, 409 lock contention, 429 rate limit, 5xx server trouble (529 is
# Anthropic's "overloaded"). Everything else in 4xx is our request's fault and
# will fail the same way every time.
_RETRYABLE_4XX = frozenset({408, 409, 429})


def is_retryable_status(status: int, headers: Mapping[str, str] | None = None) -> bool:
    """Whether a reply with this status is worth another attempt.

    The API's `x-should-retry` header overrides the status code when present:
    the server knows better than a status table whether this request can succeed.
    """
    if headers is not None:
        hint = headers.get("x-should-retry")
        if hint == "true":
            return True
        if hint == "false":
            return False
    return status in _RETRYABLE_4XX or status >= 500


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait according to the reply's headers, or None when it does not say.

    `retry-after-ms` (float milliseconds) wins over `retry-after`, which is
    either seconds or an HTTP date. Garbage is ignored rather than trusted.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


class TransientError(Exception):
    """A failure another attempt may fix: rate limit, overload, 5xx, connection, timeout."""

    def __init__(self, what: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.status = status
        self.retry_after = retry_after

    def describe(self) -> str:
        return f"HTTP {self.status} {self.what}" if self.status is not None else self.what


# How long one call may keep retrying transient failures, waits included.
DEFAULT_BUDGET_SECONDS = 600.0
# A server saying "retry now" (retry-after 0) is believed this many times in a
# row; after that the backoff applies, or a time budget would be ten minutes of
# back-to-back requests to a server that keeps failing.
ZERO_RETRY_AFTER_TRUSTED = 3


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    budget_seconds: float = DEFAULT_BUDGET_SECONDS
    # An extra cap on attempts (tests, callers that must fail fast); None: the budget alone.
    max_attempts: int | None = None
    initial_backoff: float = 1.0
    max_backoff: float = 60.0
    # A server asking for more than this is treated as asking for this: a
    # mining run should fail visibly rather than sit silent for an hour.
    max_retry_after: float = 300.0
    jitter: float = 1.0
    # Injectable so tests can record the waits instead of sleeping through them.
    sleep: Callable[[float], None] = field(default=time.sleep)

    def spent(self, state: RetryCallState) -> float:
        """Seconds this call has used: wall time, or the waits when `sleep` does not
        really sleep (a test's recorder), so a fake clock still runs the budget out."""
        return max(float(state.seconds_since_start or 0.0), float(state.idle_for))

    def should_stop(self, state: RetryCallState) -> bool:
        if self.max_attempts is not None and state.attempt_number >= max(1, self.max_attempts):
            return True
        return self.spent(state) >= self.budget_seconds

    def wait_for(self, state: RetryCallState) -> float:
        outcome = state.outcome
        exc = outcome.exception() if outcome is not None else None
        trust = (isinstance(exc, TransientError) and exc.retry_after is not None
                 and (exc.retry_after > 0 or state.attempt_number <= ZERO_RETRY_AFTER_TRUSTED))
        if trust:
            assert isinstance(exc, TransientError) and exc.retry_after is not None
            wait = min(exc.retry_after, self.max_retry_after)
        else:
            backoff = wait_exponential_jitter(
                multiplier=self.initial_backoff, max=self.max_backoff, jitter=self.jitter
            )
            wait = float(backoff(state))
        # Never sleep past the budget: the last attempt is made at its end.
        return max(0.0, min(wait, self.budget_seconds - self.spent(state)))


class RetriesExhausted(ModelError):
    """Transient failures until the budget ran out; `last` is the final one."""

    def __init__(self, message: str, last: TransientError) -> None:
        super().__init__(message)
        self.last = last


def run_with_retries(attempt: Callable[[], T], policy: RetryPolicy, *, what: str) -> T:
    """Run `attempt` until it returns, raises something final, or the budget runs out.

    `attempt` raises `TransientError` for failures worth retrying; anything
    else propagates at once. Exhaustion is a `RetriesExhausted` (a `ModelError`)
    naming the last failure (status included), e.g. "anthropic: gave up after
    14 attempts: HTTP 529 overloaded (retried for 600 s)".
    """
    state: dict[str, float] = {"attempts": 0, "spent": 0.0}

    def stop(rs: RetryCallState) -> bool:
        state["attempts"], state["spent"] = rs.attempt_number, policy.spent(rs)
        return policy.should_stop(rs)

    retrying = Retrying(
        stop=stop,
        wait=policy.wait_for,
        retry=retry_if_exception_type(TransientError),
        sleep=policy.sleep,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except TransientError as exc:
        n = int(state["attempts"]) or 1
        raise RetriesExhausted(
            f"{what}: gave up after {n} attempt{'s' if n != 1 else ''}: {exc.describe()} "
            f"(retried for {state['spent']:.0f} s)", exc,
        ) from exc
