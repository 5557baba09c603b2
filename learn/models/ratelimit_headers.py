"""What an Anthropic reply's `anthropic-ratelimit-*` headers say about the account's limits.

Every Messages reply (a 429 included) carries, per limited resource, the
bucket size (`-limit`), what is left of it (`-remaining`) and when it will be
full again (`-reset`, RFC 3339). Reading them is what lets one limiter run a
high-tier account at its real limit and hold a low-tier one under it, instead
of a fixed 50 requests/minute for everybody (measured on issue 13: 300
sessions took six minutes on an account allowing 4,000/minute).
Pure: headers in, numbers out; `RateLimiter.observe` acts on them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

_PREFIX = "anthropic-ratelimit-"


@dataclass(frozen=True, slots=True)
class Bucket:
    """One limited resource: its size per minute, what is left, seconds until full."""

    limit: float
    remaining: float | None = None
    reset_in: float | None = None


@dataclass(frozen=True, slots=True)
class Limits:
    requests: Bucket | None = None
    input_tokens: Bucket | None = None
    output_tokens: Bucket | None = None

    @property
    def empty(self) -> bool:
        return self.requests is None and self.input_tokens is None and self.output_tokens is None


def parse_limits(headers: Mapping[str, str], *, now: float) -> Limits:
    """The request, input-token and output-token buckets the headers describe.

    `now` is the wall-clock time (`time.time()`) the reset timestamps are
    measured against. A resource whose `-limit` is missing or garbage is
    left out rather than guessed: a wrong limit is worse than the default.
    """
    return Limits(
        requests=_bucket(headers, "requests", now),
        input_tokens=_bucket(headers, "input-tokens", now),
        output_tokens=_bucket(headers, "output-tokens", now),
    )


def _bucket(headers: Mapping[str, str], name: str, now: float) -> Bucket | None:
    limit = _number(headers.get(f"{_PREFIX}{name}-limit"))
    if limit is None or limit <= 0:
        return None
    remaining = _number(headers.get(f"{_PREFIX}{name}-remaining"))
    reset = _timestamp(headers.get(f"{_PREFIX}{name}-reset"))
    reset_in = None if reset is None else max(0.0, reset - now)
    return Bucket(limit, None if remaining is None else max(0.0, remaining), reset_in)


def _number(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        return None


def _timestamp(raw: str | None) -> float | None:
    if not raw:
        return None
    try:
        when = dt.datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()


def estimate_tokens(chars: int, tokens_per_char: float) -> int:
    """A request's input tokens before it is sent, from its size in characters."""
    return max(1, int(chars * tokens_per_char + 0.999))
