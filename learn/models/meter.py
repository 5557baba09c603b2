"""What a run's model calls cost, failed ones included.

Per-step accounting added up only the answers that were used, so a run whose
calls all failed reported `model_calls: 0` although every one was sent and
most were billed (issue 11). The meter wraps the backend once, at the edge,
and counts every call that reaches it: an answer by its usage, a failure by
the usage it carries (an unusable answer is billed) or as one call.
"""

from __future__ import annotations

import threading

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ModelResponse
from learn.models.call import failure_cost


class UsageMeter:
    """A `Backend` that forwards to `inner` and adds up the usage of every call (thread-safe)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
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

    def add(self, usage: CallUsage) -> None:
        """Usage paid outside `call` (a Message Batch's results)."""
        with self._lock:
            self._usage = self._usage + usage

    def call(self, request: ModelRequest) -> ModelResponse:
        try:
            response = self.inner.call(request)
        except ModelError as exc:
            cost = failure_cost(exc)
            with self._lock:
                self._usage = self._usage + cost
                self._failed += 1
            raise
        with self._lock:
            self._usage = self._usage + response.usage
        return response
