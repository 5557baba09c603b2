"""What a run's model calls cost, failed ones included.

Per-step accounting added up only the answers that were used, so a run whose
calls all failed reported `model_calls: 0` although every one was sent and
most were billed (issue 11). The meter wraps the backend once, at the edge,
and counts every call that reaches it: an answer by its usage, a failure by
the usage it carries (an unusable answer is billed) or as one call. An answer
cut at max_tokens that the caller could not use is told back (`unusable`) and
counted as failed: cut answers showed as 42 calls with 0 failed though none
was usable (audit61 F6).

`on_usage` hears of every change as it happens, so the run can keep its books
on disk as it goes (learn.store.run_usage): a run killed mid-way still counts
the calls it paid for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ModelResponse
from learn.models.call import failure_cost
from learn.records.proposal import RunUsage


class UsageMeter:
    """A `Backend` that forwards to `inner` and adds up the usage of every call (thread-safe)."""

    def __init__(self, inner: Backend, *, on_usage: Callable[[], None] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        # Called (outside the meter's lock, in the calling thread) after each change.
        self.on_usage = on_usage
        self._lock = threading.Lock()
        self._usage = CallUsage()
        self._failed = 0

    @property
    def usage(self) -> CallUsage:
        with self._lock:
            return self._usage

    @property
    def failed_calls(self) -> int:
        with self._lock:
            return self._failed

    def run_usage(self) -> RunUsage:
        """The totals as a run's books hold them (the session counts left at 0):
        `input_tokens` is every input token billed, cached reads and writes included."""
        with self._lock:
            used, failed = self._usage, self._failed
        return RunUsage(
            model_calls=used.calls, failed_calls=failed,
            input_tokens=used.input_tokens + used.cache_read_tokens + used.cache_write_tokens,
            output_tokens=used.output_tokens, cost_usd=used.cost_usd,
        )

    def add(self, usage: CallUsage) -> None:
        """Usage paid outside `call` (a Message Batch's results)."""
        if usage == CallUsage():
            return
        with self._lock:
            self._usage = self._usage + usage
        self._changed()

    def unusable(self) -> None:
        """An answer `call` booked as answered was not used (learn.models.call: cut
        at max_tokens): it was paid for and gave nothing, so it is a failed call."""
        with self._lock:
            self._failed += 1
        self._changed()

    def call(self, request: ModelRequest) -> ModelResponse:
        try:
            response = self.inner.call(request)
        except ModelError as exc:
            cost = failure_cost(exc)
            with self._lock:
                self._usage = self._usage + cost
                self._failed += 1
            self._changed()
            raise
        with self._lock:
            self._usage = self._usage + response.usage
        self._changed()
        return response

    def _changed(self) -> None:
        if self.on_usage is not None:
            self.on_usage()
