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

An overload (429, 503, 529) is waited out for as long as the backend's time
budget lasts (`budget_seconds`, ten minutes by default), not a fixed number of
times: against a server failing half of all calls, five attempts gave a session
up in about one run in three (p = 1/32 per call, over the ~12 calls of a small
run), and a proposal's count came out one short. An overload lasts minutes, not
attempts. The budget is the backend's (Outage), shared by its calls, and the
wait is told to the person. Anything else that fails the same way again and
again (a 500 on one request, a connection that is refused) gives up in seconds,
so the stage falls back instead of holding the run.

The budget bounds every wait, the server's too. A 429 asking for `retry-after:
3600` paused every worker for the hour whatever the budget (a run with
`retry_seconds = 15` was still stuck after 300 s), and a request's own timeout
came on top of the budget (a hung endpoint with `retry_seconds = 20` held the
run 204 s: 180 s of timeout, then the budget). So a server asking for longer
than the budget has left fails the call at once, saying so, and the calls after
it until then are not sent (`Outage.refuse`); a shared pause is never longer
than the budget left (`RetryPolicy.pause_for`); a request is given at most what
is left of the budget (`RetryPolicy.attempt_timeout`), and a failed request's
own time counts against it.

The budget is wall-clock time, the outage's, shared by every worker. It was the
sum of every worker's backoff sleeps (kept so that tests whose `sleep` only
records still ran the budget out), and with four mining workers sleeping at once
that sum ran four times faster than the clock: an all-529 endpoint was given up
after 191 s of a 600 s budget while the person was told "8m24s of 10m" about
2.5 minutes in (audit61 F1). Time now comes from one clock (`Outage.now`): the
real monotonic clock, or a test's that its fake `sleep` advances
(`RetryPolicy.clock`). Only a test's `sleep` that records and advances no clock
still has its waits counted (`Outage.note_wait`): no real sleep is.
"""

from __future__ import annotations

import email.utils
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    wait_exponential_jitter,
)

from learn.models.base import KeyRefused, ModelError

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


# How endpoints say a request is too large for the model: the Messages API ("prompt
# is too long: 210000 tokens > 200000 maximum", request_too_large), OpenAI and vLLM
# ("maximum context length is 8192 tokens", context_length_exceeded), llama.cpp's
# server ("the request exceeds the available context size").
_TOO_LONG = re.compile(
    r"prompt is too long|context[ _-]?(?:length|size|window)|too many (?:input )?tokens"
    r"|request[ _]too[ _]large|exceeds? the (?:available |maximum )?context",
    re.IGNORECASE,
)


def is_too_long(status: int, text: str) -> bool:
    """Whether a refusal says the request is too large for the model (never worth
    sending again as it is: learn.models.base.PromptTooLong)."""
    return status == 413 or (status == 400 and _TOO_LONG.search(text) is not None)


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

    def __init__(self, what: str, *, status: int | None = None, retry_after: float | None = None,
                 fix: str = "") -> None:
        super().__init__(what)
        self.what = what
        self.status = status
        self.retry_after = retry_after
        # What to do when retrying did not help ("" when waiting is all there is).
        self.fix = fix

    def describe(self) -> str:
        return f"HTTP {self.status} {self.what}" if self.status is not None else self.what

    @property
    def overload(self) -> bool:
        """Rate limited or overloaded: waited out within the budget."""
        return self.status in OVERLOAD_STATUSES


# How long a backend may keep retrying transient failures, waits included: a
# budget shared by its calls (see Outage), not one per call.
DEFAULT_BUDGET_SECONDS = 600.0
# A server saying "retry now" (retry-after 0) is believed this many times in a
# row; after that the backoff applies, or a time budget would be ten minutes of
# back-to-back requests to a server that keeps failing.
ZERO_RETRY_AFTER_TRUSTED = 3
# Rate limit and overload: capacity comes back, so these wait within the budget.
OVERLOAD_STATUSES = frozenset({429, 503, 529})
# Any other transient failure (a 500, a dropped or refused connection, a timeout)
# seen this many times in a row, identical, ends the call: ~7 s of backoff, not
# the budget. A request the server always fails on held a run for the whole
# 600 s per naming call; against a server failing half of all calls with a mix
# of 500/529/429/drops (tests/test_batch_faults.py) four identical failures in a
# row are rarer than one call in a thousand.
MAX_SAME_FAILURES = 4
# A request waits at most what is left of the budget, but never less than this:
# a hung endpoint (every request timing out at the backend's 180 s) ran four
# attempts to 12 minutes of a 10-minute budget, and the person was told "12m08s
# of 10m". With the budget spent, each later call still makes one attempt this
# short rather than none: an endpoint that came back (a fast error, a small
# answer) is used, and a hung one costs a run a second a call, not a timeout.
MIN_ATTEMPT_SECONDS = 1.0
# The first wait worth telling a person about, and how often to say it again.
REPORT_AFTER_SECONDS = 2.0
REPORT_EVERY_SECONDS = 15.0
# How long a request may run past its timeout before `within` gives up on it: the
# HTTP client's own timeout, which says more, fires first when the server is silent.
DEADLINE_GRACE_SECONDS = 1.0
TIMED_OUT = "request timed out"


@dataclass(frozen=True, slots=True)
class WaitNotice:
    """What a waiting call tells the person: why, for how long so far, out of what.

    Only an overload is waited out within the budget; any other failure (a 500, a
    dropped connection) is retried a few times and given up (`gives_up_after`),
    and the line says that, not a budget it will never use.
    """

    why: str  # "HTTP 529 overloaded_error: Overloaded"
    waited: float  # seconds the backend has been failing
    budget: float
    # None: an overload, waited out within the budget; n: a call gives up after n in a row.
    gives_up_after: int | None = None

    def line(self) -> str:
        if self.gives_up_after is not None:
            return (f"retrying the API: {self.why}; a call gives up after {self.gives_up_after} "
                    "such failures in a row; Ctrl-C keeps what is finished")
        return (f"waiting for the API: {self.why}, {_clock(self.waited)} of {_clock(self.budget)}; "
                "Ctrl-C keeps what is finished")


def _clock(seconds: float) -> str:
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    if not minutes:
        return f"{secs}s"
    return f"{minutes}m{secs:02d}s" if secs else f"{minutes}m"


class Interrupted(ModelError):
    """The run was interrupted (abort) while a call waited to retry."""


class Outage:
    """One backend's failures since its last answer, shared by all of its calls.

    The budget is the run's, not each call's: when the API has failed for ten
    minutes, every call gives up then, instead of each waiting ten more (an
    unreachable API took 30 minutes for 11 sessions that way). A call that gave
    up on a failure that is not an overload is remembered (`gave_up_on`): the
    next call failing the same way does not retry at all until something
    answers again. A server that asked for longer than the budget had left is
    taken at its word (`refuse`): calls until then fail without a request.
    `abort()` wakes every waiting call at once (Ctrl-C).

    Every time here is read from `clock`: time.monotonic, or a test's.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self.clock = clock
        self._since: float | None = None
        # Waits that passed no time on the clock since the outage began
        # (note_wait): only a test's sleep that records them.
        self._unseen = 0.0
        self._answered_at = float("-inf")
        self._last_report = float("-inf")
        self.gave_up_on: str | None = None
        self._refused: tuple[float, str, TransientError] | None = None
        self._stopped: KeyRefused | None = None
        self.reporter: Callable[[WaitNotice], None] | None = None
        self._aborted = threading.Event()

    def now(self) -> float:
        """The outage's clock: what every duration here is measured on."""
        return self.clock()

    def failed(self, started: float | None = None) -> None:
        """A request failed; `started` (`now()`) is when it went out: its own time
        counts as failing, back to the last answer at most."""
        with self._lock:
            now = self.clock()
            if self._since is None:
                begun = now if started is None else min(now, max(started, self._answered_at))
                self._since, self._unseen = begun, 0.0

    def answered(self) -> None:
        with self._lock:
            self._since, self._unseen, self.gave_up_on = None, 0.0, None
            self._answered_at = self.clock()
            self._refused = None
            self._last_report = float("-inf")

    def refuse(self, seconds: float, message: str, last: TransientError) -> None:
        """The server asked for `seconds` more than the budget has: calls fail at once until then."""
        with self._lock:
            until = self.clock() + seconds
            if self._refused is None or until > self._refused[0]:
                self._refused = (until, message, last)

    def stop(self, why: KeyRefused) -> None:
        """The key was refused: no call is sent again by this backend (KeyRefused)."""
        with self._lock:
            if self._stopped is None:
                self._stopped = why

    @property
    def stopped(self) -> KeyRefused | None:
        """The refusal that stopped every call (`stop`), or None."""
        with self._lock:
            return self._stopped

    def refused(self) -> tuple[str, TransientError] | None:
        """Why calls are not sent now (`refuse`), or None."""
        with self._lock:
            if self._refused is None or self.clock() >= self._refused[0]:
                return None
            return self._refused[1], self._refused[2]

    def elapsed(self) -> float:
        """Seconds the backend has been failing, on the clock: the same for every
        worker, however many of them wait at once (or the waits a test's recording
        sleep passed unseen, when longer: `note_wait`)."""
        with self._lock:
            if self._since is None:
                return 0.0
            return max(self.clock() - self._since, self._unseen)

    def note_wait(self, seconds: float) -> None:
        """A wait that passed no time on the clock (a test's sleep that only records):
        counted, so the budget still runs out on such waits. Never a real sleep: all
        workers' real sleeps added up ran the budget out 4x faster than the clock."""
        with self._lock:
            self._unseen += max(0.0, seconds)

    def report(self, why: str, budget: float, gives_up_after: int | None = None) -> None:
        """Tell the person, at most every REPORT_EVERY_SECONDS, once a wait is long enough."""
        reporter = self.reporter
        if reporter is None:
            return
        waited = self.elapsed()
        with self._lock:
            now = self.clock()
            if now - self._last_report < REPORT_EVERY_SECONDS:
                return
            self._last_report = now
        reporter(WaitNotice(why, waited, budget, gives_up_after))

    def abort(self) -> None:
        self._aborted.set()

    @property
    def aborted(self) -> bool:
        return self._aborted.is_set()

    def sleep(self, seconds: float) -> None:
        """Wait, or return at once when the run is interrupted."""
        if self._aborted.wait(max(0.0, seconds)):
            raise Interrupted("the run was interrupted while waiting to retry")


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
    # Injectable so tests can record the waits instead of sleeping through them;
    # None: the outage's own sleep, which Ctrl-C (abort) cuts short.
    sleep: Callable[[float], None] | None = None
    # Shared by every call made under this policy (one per backend).
    outage: Outage = field(default_factory=Outage)
    # The clock the budget runs on, given with the `sleep` that advances it (a
    # test's); None: the outage's (time.monotonic). A `sleep` given without a
    # clock only records: its waits are counted instead (`do_sleep`).
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.clock is not None:
            self.outage.clock = self.clock

    def spent(self, state: RetryCallState) -> float:
        """Seconds used against the budget: this call's, or the backend's failing
        time when longer (the outage's clock: wall time, shared by every worker)."""
        own = max(float(state.seconds_since_start or 0.0), float(state.idle_for))
        return max(own, self.outage.elapsed())

    def should_stop(self, state: RetryCallState) -> bool:
        if self.outage.aborted:
            return True
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
        wait = max(0.0, min(wait, self.budget_seconds - self.spent(state)))
        if isinstance(exc, TransientError) and self.spent(state) + wait >= REPORT_AFTER_SECONDS:
            self.outage.report(exc.describe(), self.budget_seconds,
                               None if exc.overload else MAX_SAME_FAILURES)
        return wait

    def left(self) -> float:
        """Seconds of the run's budget not yet spent failing (the whole budget while healthy)."""
        return self.budget_seconds - self.outage.elapsed()

    def pause_for(self, retry_after: float) -> float | None:
        """How long a server's `retry-after` may hold every worker (the rate limiter's
        pause): what it asks, cut to `max_retry_after`; None when it asks for more
        than the budget has left, and the call fails instead (run_with_retries)."""
        left = self.left()
        if retry_after > left:
            return None
        return min(retry_after, self.max_retry_after, left)

    def attempt_timeout(self, timeout: float) -> float:
        """How long the next request may take: `timeout`, but never more than what is
        left of the budget when it starts (at least MIN_ATTEMPT_SECONDS). A healthy
        backend has its whole budget left, so with the defaults (600 s, a timeout of
        180 s or 600 s) its requests keep their whole timeout; a budget set below
        the timeout bounds a request too, so a run ends near its budget even when
        the first request never answers."""
        return min(timeout, max(MIN_ATTEMPT_SECONDS, self.left()))

    def do_sleep(self, seconds: float) -> None:
        if self.sleep is None:  # a real sleep: the clock sees it pass
            self.outage.sleep(seconds)
            return
        if self.outage.aborted:
            raise Interrupted("the run was interrupted while waiting to retry")
        if self.clock is None:
            # A recorder, and no clock it advances: the wait passes no time, so it
            # is counted as the outage's (Outage.note_wait).
            self.outage.note_wait(seconds)
        self.sleep(seconds)


def within(seconds: float, exchange: Callable[[], T], *, endpoint: str = "") -> T:
    """`exchange()`, or a TransientError once it has run `seconds` (plus a grace),
    naming `endpoint` (shown without credentials) when given.

    The HTTP clients' timeout is per read: a server that trickled a reply a byte a
    quarter-second held a call with a 1 s timeout and a 3 s budget for 35 s, and a
    real answer's size at that pace is hours (tests/test_network_audit.py). So the
    whole exchange, headers and body, runs in a thread this call stops waiting for,
    as the preflight's request does; the thread is left to end with its socket.
    """
    done = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = exchange()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc
        finally:
            done.set()

    from learn.waiting import wait_for

    threading.Thread(target=run, name="learn-request", daemon=True).start()
    # In slices: a Ctrl-C that reached the request's thread is raised in a caller on
    # the main thread within a slice, not at the deadline (learn.waiting).
    if not wait_for(done, max(0.0, seconds) + DEADLINE_GRACE_SECONDS):
        waiting = f" waiting for {endpoint}" if endpoint else ""
        raise TransientError(f"{TIMED_OUT}{waiting} (no whole reply in time)")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


class RetriesExhausted(ModelError):
    """Transient failures until the budget ran out; `last` is the final one."""

    def __init__(self, message: str, last: TransientError) -> None:
        super().__init__(message)
        self.last = last


def run_with_retries(attempt: Callable[[], T], policy: RetryPolicy, *, what: str) -> T:
    """Run `attempt` until it returns, raises something final, or gives up.

    `attempt` raises `TransientError` for failures worth retrying; anything
    else propagates at once. Overload and rate limits (429, 503, 529) wait
    within the backend's budget (its Outage), saying so; any other transient
    failure seen MAX_SAME_FAILURES times in a row, identical, gives up early,
    and once a call gave up that way the next one failing the same way does
    not retry. A server asking to wait longer than the budget has left
    (`retry-after`) ends the call at once, and the backend's calls until then
    are not sent (Outage.refuse). Giving up is a `RetriesExhausted` (a
    `ModelError`) naming the last failure, e.g. "anthropic: gave up after 14
    attempts: HTTP 529 overloaded (retried for 600 s)".
    """
    outage = policy.outage
    state: dict[str, Any] = {"attempts": 0, "spent": 0.0, "same": 0, "last": None, "why": "budget"}

    def stop(rs: RetryCallState) -> bool:
        state["attempts"], state["spent"] = rs.attempt_number, policy.spent(rs)
        exc = rs.outcome.exception() if rs.outcome is not None else None
        left = policy.budget_seconds - state["spent"]
        if isinstance(exc, TransientError) and exc.retry_after is not None and 0 < left < exc.retry_after:
            state["why"], state["left"] = "asked", left
            return True
        if isinstance(exc, TransientError) and not exc.overload:
            said = exc.describe()
            state["same"] = state["same"] + 1 if said == state["last"] else 1
            state["last"] = said
            if state["same"] >= MAX_SAME_FAILURES or outage.gave_up_on == said:
                state["why"] = "same"
                return True
        else:
            state["same"], state["last"] = 0, None
        return policy.should_stop(rs)

    def attempt_and_book() -> T:
        stopped = outage.stopped
        if stopped is not None:  # the key was refused: nothing is sent again
            raise KeyRefused(f"{what}: not sent: {stopped}", status=stopped.status, sent=False)
        refused = outage.refused()
        if refused is not None:  # final: not retried, not booked as a failure
            said, last = refused
            raise RetriesExhausted(f"{what}: not sent: {said}", last)
        started = outage.now()
        try:
            value = attempt()
        except TransientError:
            outage.failed(started)
            raise
        except KeyRefused as exc:
            outage.stop(exc)
            raise
        outage.answered()
        return value

    retrying = Retrying(
        stop=stop,
        wait=policy.wait_for,
        retry=retry_if_exception_type(TransientError),
        sleep=policy.do_sleep,
        reraise=True,
    )
    try:
        return retrying(attempt_and_book)
    except TransientError as exc:
        n = int(state["attempts"]) or 1
        tries = f"{n} attempt{'s' if n != 1 else ''}"
        if outage.aborted:
            raise Interrupted(f"{what}: interrupted after {tries}: {exc.describe()}") from exc
        fix = f"; fix: {exc.fix}" if exc.fix else ""
        if state["why"] == "asked" and exc.retry_after is not None:
            said = (f"{exc.describe()}: the endpoint asked to wait {exc.retry_after:.0f} s, more than "
                    f"the {state['left']:.0f} s left of the retry budget ([backend] retry_seconds)")
            outage.refuse(exc.retry_after, said, exc)
            raise RetriesExhausted(f"{what}: gave up after {tries}: {said}", exc) from exc
        if state["why"] == "same":
            outage.gave_up_on = exc.describe()
            how = "the same failure each time" if n > 1 else "as the call before it"
            raise RetriesExhausted(f"{what}: gave up after {tries}: {exc.describe()} ({how}){fix}",
                                   exc) from exc
        raise RetriesExhausted(
            f"{what}: gave up after {tries}: {exc.describe()} ({_why_no_more(n, state['spent'], policy)})"
            f"{fix}", exc,
        ) from exc


def _why_no_more(attempts: int, spent: float, policy: RetryPolicy) -> str:
    """Why a call that failed transiently was not tried again, in true words: one attempt
    that used the whole budget read "gave up after 1 attempt … (retried for 31 s)"."""
    if policy.max_attempts is not None and attempts >= policy.max_attempts:
        return f"at most {policy.max_attempts} attempt{'s' if policy.max_attempts != 1 else ''}"
    if attempts > 1:
        return f"retried for {spent:.0f} s"
    return (f"not retried: the API had failed for {spent:.0f} s, the whole "
            f"{policy.budget_seconds:.0f} s retry budget ([backend] retry_seconds)")
