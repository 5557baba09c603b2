"""A rate limiter shared by every thread that calls one model endpoint.

Mining runs several sessions at once in threads against one backend. Retrying
each thread on its own is not enough: when one worker gets a 429 with
`retry-after: 20`, the other three do not know and spend the next 20 seconds
collecting 429s of their own, each of which costs an attempt. So a 429's
retry-after pauses everybody (`pause`), a token bucket keeps the steady rate
under the account's requests-per-minute, and an in-flight cap bounds how many
requests are open at once (for `claude` subprocesses it also bounds memory:
each one is a full Node process).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Anthropic's lowest tier allows 50 requests per minute; staying under it by
# default costs a fast account little and saves a slow one a storm of 429s.
DEFAULT_REQUESTS_PER_MINUTE = 50.0
DEFAULT_MAX_IN_FLIGHT = 4


class RateLimiter:
    """Thread-safe token bucket (requests/minute) + in-flight cap + shared pause.

    `requests_per_minute=None` or `max_in_flight=None` switches that limit off.
    `clock` and `sleep` are injectable so tests run on a fake clock; a fake
    `sleep` must advance that clock, or a paused or empty bucket waits forever.
    One limiter per endpoint: threads sharing a backend instance share its limiter.
    """

    def __init__(
        self,
        requests_per_minute: float | None = DEFAULT_REQUESTS_PER_MINUTE,
        max_in_flight: int | None = DEFAULT_MAX_IN_FLIGHT,
        *,
        burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError("requests_per_minute must be positive")
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self._rate = None if requests_per_minute is None else requests_per_minute / 60.0
        # Bucket size: how many requests may go out back to back after a quiet spell.
        self._capacity = float(burst if burst is not None else (max_in_flight or 4))
        self._tokens = self._capacity
        self._max_in_flight = max_in_flight
        self._in_flight = 0
        self._paused_until = 0.0
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._cond = threading.Condition()

    @property
    def in_flight(self) -> int:
        with self._cond:
            return self._in_flight

    @property
    def paused_until(self) -> float:
        with self._cond:
            return self._paused_until

    def pause(self, seconds: float) -> None:
        """Hold every worker for `seconds` from now (extends, never shortens, a pause)."""
        with self._cond:
            self._paused_until = max(self._paused_until, self._clock() + max(0.0, seconds))

    def acquire(self) -> None:
        """Block until a request may go out; pair with `release` (or use `slot`)."""
        while True:
            with self._cond:
                now = self._clock()
                wait = 0.0
                if now < self._paused_until:
                    wait = self._paused_until - now
                elif self._max_in_flight is not None and self._in_flight >= self._max_in_flight:
                    # Woken by release(); the timeout only guards against a lost wakeup.
                    self._cond.wait(timeout=1.0)
                    continue
                else:
                    self._refill(now)
                    if self._rate is None or self._tokens >= 1.0:
                        if self._rate is not None:
                            self._tokens -= 1.0
                        self._in_flight += 1
                        return
                    wait = (1.0 - self._tokens) / self._rate
            # Sleep outside the lock so release() and pause() are never blocked by a waiter.
            self._sleep(wait)

    def release(self) -> None:
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            self._cond.notify()

    @contextmanager
    def slot(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def _refill(self, now: float) -> None:
        if self._rate is not None:
            self._tokens = min(self._capacity, self._tokens + (now - self._last) * self._rate)
        self._last = now
