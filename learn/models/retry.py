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
    stop_after_attempt,
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


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 5
    initial_backoff: float = 1.0
    max_backoff: float = 60.0
    # A server asking for more than this is treated as asking for this: a
    # mining run should fail visibly rather than sit silent for an hour.
    max_retry_after: float = 300.0
    jitter: float = 1.0
    # Injectable so tests can record the waits instead of sleeping through them.
    sleep: Callable[[float], None] = field(default=time.sleep)

    def wait_for(self, state: RetryCallState) -> float:
        outcome = state.outcome
        exc = outcome.exception() if outcome is not None else None
        if isinstance(exc, TransientError) and exc.retry_after is not None:
            return min(exc.retry_after, self.max_retry_after)
        backoff = wait_exponential_jitter(
            initial=self.initial_backoff, max=self.max_backoff, jitter=self.jitter
        )
        return float(backoff(state))


def run_with_retries(attempt: Callable[[], T], policy: RetryPolicy, *, what: str) -> T:
    """Run `attempt` until it returns, raises something final, or the attempts run out.

    `attempt` raises `TransientError` for failures worth retrying; anything
    else propagates at once. Exhaustion is a `ModelError` naming the last
    failure (status included), e.g. "anthropic: gave up after 5 attempts: HTTP 529 overloaded".
    """
    retrying = Retrying(
        stop=stop_after_attempt(max(1, policy.max_attempts)),
        wait=policy.wait_for,
        retry=retry_if_exception_type(TransientError),
        sleep=policy.sleep,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except TransientError as exc:
        raise ModelError(
            f"{what}: gave up after {max(1, policy.max_attempts)} attempts: {exc.describe()}"
        ) from exc
