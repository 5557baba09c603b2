"""An account's rate limits as the fake Anthropic server enforces and advertises them.

Each limited resource is a token bucket the size of its per-minute limit,
refilled continuously (the way Anthropic describes its limiter). A request is
admitted when one request and its input tokens fit, else answered 429 with
`retry-after`; every reply carries the `anthropic-ratelimit-*` headers.
`window` is the refill period: 60 s is the real thing, a shorter one scales
time down for tests (the headers still say "limit", which clients read as per
minute, so a client going by the headers alone is slower than allowed, never
faster).
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Bucket:
    limit: float
    window: float
    level: float
    last: float

    def refill(self, now: float) -> None:
        self.level = min(self.limit, self.level + (now - self.last) * self.limit / self.window)
        self.last = now

    def until(self, cost: float) -> float:
        need = min(cost, self.limit)
        return 0.0 if self.level >= need else (need - self.level) * self.window / self.limit

    def headers(self, name: str, wall: float) -> dict[str, str]:
        full_in = max(0.0, (self.limit - self.level) * self.window / self.limit)
        reset = dt.datetime.fromtimestamp(wall + full_in, tz=dt.UTC)
        return {
            f"anthropic-ratelimit-{name}-limit": str(int(self.limit)),
            f"anthropic-ratelimit-{name}-remaining": str(max(0, math.floor(self.level))),
            f"anthropic-ratelimit-{name}-reset": reset.isoformat().replace("+00:00", "Z"),
        }


@dataclass
class FakeAccountLimits:
    """Per-minute limits (None: unlimited) the fake enforces; `rejected` counts its 429s."""

    requests: float | None = None
    input_tokens: float | None = None
    output_tokens: float | None = None
    window: float = 60.0
    clock: Callable[[], float] = time.monotonic
    rejected: int = 0
    admitted: int = 0
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        for name, limit in (("requests", self.requests), ("input-tokens", self.input_tokens),
                            ("output-tokens", self.output_tokens)):
            if limit is not None:
                self._buckets[name] = _Bucket(float(limit), self.window, float(limit), self.clock())

    def admit(self, input_tokens: int, output_tokens: int) -> tuple[bool, dict[str, str]]:
        """Charge one request (or refuse it); the headers to send with the answer."""
        with self._lock:
            now = self.clock()
            costs = {"requests": 1.0, "input-tokens": float(input_tokens), "output-tokens": 1.0}
            for bucket in self._buckets.values():
                bucket.refill(now)
            wait = max((b.until(costs[n]) for n, b in self._buckets.items()), default=0.0)
            ok = wait <= 0.0
            if ok:
                self.admitted += 1
                for name, bucket in self._buckets.items():
                    # Output is charged what the answer writes, known once it is written.
                    bucket.level -= output_tokens if name == "output-tokens" else costs[name]
            else:
                self.rejected += 1
            headers: dict[str, str] = {}
            wall = time.time()
            for name, bucket in self._buckets.items():
                headers.update(bucket.headers(name, wall))
            if not ok:
                headers["retry-after"] = str(max(1, math.ceil(wait)))
            return ok, headers
