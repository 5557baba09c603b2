"""A rate limiter shared by every thread that calls one model endpoint.

Mining runs several sessions at once in threads against one backend. Retrying
each thread on its own is not enough: when one worker gets a 429 with
`retry-after: 20`, the other three do not know and spend the next 20 seconds
collecting 429s of their own, each of which costs an attempt. So a 429's
retry-after pauses everybody (`pause`), a token bucket keeps the steady rate
under the account's requests-per-minute, and an in-flight cap bounds how many
requests are open at once (for `claude` subprocesses it also bounds memory:
each one is a full Node process).

An adaptive limiter (the Anthropic backend's) also learns the account's real
limits from each reply's `anthropic-ratelimit-*` headers (`observe`): the
request bucket takes the advertised size and refill, and its level follows the
server's `remaining`, so a 4,000/minute account is not held to 50 and a
50/minute one stops before the server would answer 429. Input and output
tokens get buckets of their own: a request is charged its estimated input
tokens (characters x a tokens-per-character ratio corrected from each reply's
usage) before it goes out.

A reply's `remaining` is the server's count when it admitted that request, and
replies arrive out of order: a worker descheduled between the server's answer
and `observe` can bring an older count after a newer one was applied. Taken as
the newest, it hands back what the requests admitted after it spent: 11 of 400
runs of the input-token test (10,000/minute, 4 workers) got a 429, each time
one released request's worth over. So a reply's count is lowered by every
request that may have been admitted after it: the others still in flight and
the ones released since it was sent (`Sent` remembers where that tally stood).
Some of those were admitted before it and are counted twice; that errs towards
waiting, and the next reply's fresh count replaces it.

The in-flight cap and a ceiling on the rate are settings (`[backend] in_flight`,
`requests_per_minute`; `limiter_for` builds a run's limiter from them): a
llama.cpp server with one slot wants 1 request open, not 4; a proxy or a
low-tier account allowing 20 a minute wants them 3 s apart, not 50 a minute in
bursts of 4; a high-tier account wants more than 4 open. A ceiling holds on
every backend, also once the headers advertise more, and its bucket holds one
request: 20 a minute is one every 3 s, so no 60 s window sees a 21st.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from learn.models.ratelimit_headers import Bucket, Limits, estimate_tokens

# Anthropic's lowest tier allows 50 requests per minute; staying under it by
# default costs a fast account little and saves a slow one a storm of 429s.
DEFAULT_REQUESTS_PER_MINUTE = 50.0
DEFAULT_MAX_IN_FLIGHT = 4
# Before any reply says otherwise: about 1 token per 3 characters of JSON
# request, on the high side so a first estimate errs towards waiting.
INITIAL_TOKENS_PER_CHAR = 1 / 3
# How fast the ratio follows the replies' usage (weight of the newest reply).
_RATIO_WEIGHT = 0.3


@dataclass(frozen=True, slots=True)
class Sent:
    """One admitted request: what it was charged and the release tally when it went out."""

    input_tokens: int = 0
    released: int = 0
    released_input: int = 0


class _Budget:
    """A token bucket in some unit (requests or tokens), refilled `rate` per second."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.level = capacity
        self.last = now

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.last) * self.rate)
        self.last = now

    def wait_for(self, cost: float) -> float:
        """Seconds until `cost` fits (a cost above the bucket size waits for a full bucket)."""
        need = min(cost, self.capacity)
        return 0.0 if self.level >= need else (need - self.level) / self.rate

    def follow(self, bucket: Bucket, pending: float, now: float) -> None:
        """Take the server's size and level; `pending` is what we sent that it has not counted."""
        self.refill(now)
        self.capacity = bucket.limit
        self.rate = bucket.limit / 60.0  # every -limit header is per minute
        if bucket.remaining is not None:
            self.level = min(self.capacity, max(bucket.remaining - pending, -self.capacity))


class RateLimiter:
    """Thread-safe token bucket (requests/minute) + in-flight cap + shared pause.

    `requests_per_minute=None` or `max_in_flight=None` switches that limit off.
    `ceiling` (requests per minute) is never exceeded, whatever `requests_per_minute`
    or an adaptive limiter's headers say, nor is the bucket size it starts with.
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
        adaptive: bool = False,
        ceiling: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError("requests_per_minute must be positive")
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        if ceiling is not None and ceiling <= 0:
            raise ValueError("ceiling must be positive")
        if ceiling is not None:
            requests_per_minute = ceiling if requests_per_minute is None else min(requests_per_minute, ceiling)
        self._rate = None if requests_per_minute is None else requests_per_minute / 60.0
        # Bucket size: how many requests may go out back to back after a quiet spell.
        self._capacity = float(burst if burst is not None else (max_in_flight or 4))
        self._ceiling = None if ceiling is None else (ceiling / 60.0, self._capacity)
        self._tokens = self._capacity
        self._max_in_flight = max_in_flight
        self._in_flight = 0
        self._paused_until = 0.0
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._cond = threading.Condition()
        self._adaptive = adaptive
        self._input: _Budget | None = None
        self._output: _Budget | None = None
        self._in_flight_input = 0
        self._tokens_per_char = INITIAL_TOKENS_PER_CHAR
        # Output tokens a call is charged before it goes out: the last reply's.
        self._output_per_call = 0.0
        # Requests released so far and their charged input tokens (see `Sent`).
        self._released = 0
        self._released_input = 0

    @property
    def adaptive(self) -> bool:
        return self._adaptive

    @property
    def requests_per_minute(self) -> float | None:
        with self._cond:
            return None if self._rate is None else round(self._rate * 60.0, 6)

    @property
    def input_tokens_per_minute(self) -> float | None:
        with self._cond:
            return None if self._input is None else round(self._input.rate * 60.0, 6)

    def estimate_input_tokens(self, chars: int) -> int:
        """A request's input tokens from its size, by the ratio the replies taught so far."""
        with self._cond:
            return estimate_tokens(chars, self._tokens_per_char)

    def observe(
        self, limits: Limits, *, sent_tokens: int = 0, chars: int = 0, used_tokens: int | None = None,
        sent: Sent | None = None,
    ) -> None:
        """Learn from one reply, before its slot is released (it still counts as in flight).

        `sent_tokens` is what `acquire` charged for the request, `used_tokens`
        the input tokens the reply's usage says the limit counted, `chars` the
        request's size: together they correct the estimate for the next ones.
        `sent` is what `acquire` returned for the request: without it, a reply
        overtaken by a newer one is taken as the newest.
        A non-adaptive limiter only learns the ratio.
        """
        with self._cond:
            now = self._clock()
            if sent is not None:
                sent_tokens = sent.input_tokens
            # Released since this request went out: possibly admitted after it,
            # so not in its `remaining` (module docstring).
            later = 0 if sent is None else self._released - sent.released
            later_input = 0 if sent is None else self._released_input - sent.released_input
            if used_tokens is not None and chars > 0:
                seen = used_tokens / chars
                self._tokens_per_char += _RATIO_WEIGHT * (seen - self._tokens_per_char)
            if not self._adaptive:
                return
            if limits.requests is not None:
                self._refill(now)
                self._capacity = limits.requests.limit
                self._rate = limits.requests.limit / 60.0
                if self._ceiling is not None:
                    self._rate = min(self._rate, self._ceiling[0])
                    self._capacity = min(self._capacity, self._ceiling[1])
                if limits.requests.remaining is not None:
                    # The others in flight may not have reached the server yet.
                    pending = self._in_flight - 1 + later
                    self._tokens = min(self._capacity, limits.requests.remaining - pending)
            if limits.input_tokens is not None:
                if self._input is None:
                    self._input = _Budget(limits.input_tokens.limit, limits.input_tokens.limit / 60.0, now)
                pending_in = self._in_flight_input - sent_tokens + later_input
                self._input.follow(limits.input_tokens, pending_in, now)
            elif self._input is not None and used_tokens is not None:
                self._input.level += sent_tokens - used_tokens
            if limits.output_tokens is not None:
                if self._output is None:
                    self._output = _Budget(limits.output_tokens.limit, limits.output_tokens.limit / 60.0, now)
                pending_out = self._output_per_call * (max(0, self._in_flight - 1) + later)
                self._output.follow(limits.output_tokens, pending_out, now)
            self._cond.notify_all()

    def note_output(self, output_tokens: int) -> None:
        """A reply's output tokens: what the next call is expected to write."""
        with self._cond:
            self._output_per_call = float(output_tokens)

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

    def acquire(self, input_tokens: int = 0) -> Sent:
        """Block until a request may go out; pair with `release` (or use `slot`).

        `input_tokens` is the request's estimated input, charged to the input
        budget once the headers have said there is one. The `Sent` goes to
        `observe` with the request's reply.
        """
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
                    wait = 0.0 if self._rate is None else max(0.0, (1.0 - self._tokens) / self._rate)
                    for budget, cost in ((self._input, input_tokens), (self._output, self._output_per_call)):
                        if budget is not None:
                            budget.refill(now)
                            wait = max(wait, budget.wait_for(cost))
                    # Float dust: a wait of 1e-10 s added to a clock near 1e3 moves it not at all.
                    if wait <= 1e-6:
                        if self._rate is not None:
                            self._tokens -= 1.0
                        if self._input is not None:
                            self._input.level -= input_tokens
                        if self._output is not None:
                            self._output.level -= self._output_per_call
                        self._in_flight += 1
                        self._in_flight_input += input_tokens
                        return Sent(input_tokens, self._released, self._released_input)
            # Sleep outside the lock so release() and pause() are never blocked by a waiter.
            self._sleep(wait)

    def release(self, input_tokens: int = 0) -> None:
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            self._in_flight_input = max(0, self._in_flight_input - input_tokens)
            self._released += 1
            self._released_input += input_tokens
            self._cond.notify()

    @contextmanager
    def slot(self, input_tokens: int = 0) -> Iterator[Sent]:
        sent = self.acquire(input_tokens)
        try:
            yield sent
        finally:
            self.release(input_tokens)

    def _refill(self, now: float) -> None:
        if self._rate is not None:
            self._tokens = min(self._capacity, self._tokens + (now - self._last) * self._rate)
        self._last = now


def limiter_for(
    backend: str,
    *,
    in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    requests_per_minute: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> RateLimiter:
    """The limiter a run's `backend` gets from `[backend] in_flight` and `requests_per_minute`.

    Unset, the rate is anthropic's 50 a minute in bursts of 4 until the headers say
    (module docstring), and none on the others. Set, it is a ceiling on every
    backend, one request at a time out of the bucket, and on anthropic also the
    starting rate: the user's figure is what we know before any reply, where the
    50 was a guess (a gateway that sends no headers would otherwise keep 50 a
    minute however high it was set). The headers can then only lower it.
    """
    if requests_per_minute is not None:
        return RateLimiter(requests_per_minute, in_flight, burst=1, ceiling=requests_per_minute,
                           adaptive=backend == "anthropic", clock=clock, sleep=sleep)
    if backend == "anthropic":
        return RateLimiter(DEFAULT_REQUESTS_PER_MINUTE, in_flight, burst=DEFAULT_MAX_IN_FLIGHT,
                           adaptive=True, clock=clock, sleep=sleep)
    return RateLimiter(None, in_flight, clock=clock, sleep=sleep)
