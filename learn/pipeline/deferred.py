"""A backend made at its first call, for a run whose plan needs none.

A warm `learn run` (every session's answer cached, nothing new to ask) made no
model call, yet refused to start without ANTHROPIC_API_KEY: the backend and its
preflight were built before anything was read. The scheduled digest and Claude
Code's /learn run in shells that often hold no key, and got an error in place of
a digest that needed no model (the real-transcript check, 16 Codex sessions).

So when the key is what is missing and the run's plan (learn.mining.plan, as
`learn plan` computes it) has sessions but nothing to mine and no batch to
collect, `learn run` hands the pipeline this wrapper instead: the backend, its
preflight included, is made when a stage first calls it. A run that needs no
call never makes it; one that does (a verdict still missing, a file that changed
after the plan) gets the preflight's one line as the failure of that call, and
every later call fails the same way without being sent (as after a key refused
mid-run: `KeyRefused`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from learn.models.base import Backend, KeyRefused, ModelRequest, ModelResponse


class BackendNotReady(KeyRefused):
    """The backend could not be made when a call needed it (no key, no `claude`, an
    endpoint that does not answer): the preflight's line. A `KeyRefused`, so the miner
    stops the run at it and the other stages send nothing after it."""


class DeferredBackend:
    """`Backend` whose real backend is `make()`'s, called at the first `call`."""

    def __init__(self, name: str, make: Callable[[], Backend]) -> None:
        self.name = name
        self._make = make
        self._lock = threading.Lock()
        self._made: Backend | None = None
        self._failed: BackendNotReady | None = None

    @property
    def inner(self) -> Backend | None:
        """The backend once made (learn.models.base follows wrappers through `inner`:
        an interrupted run aborts its calls, a batch finds its API); None before."""
        return self._made

    @property
    def made(self) -> bool:
        return self._made is not None

    def call(self, request: ModelRequest) -> ModelResponse:
        return self._backend().call(request)

    def _backend(self) -> Backend:
        with self._lock:  # the miner's workers call at once: one preflight, one backend
            if self._made is not None:
                return self._made
            if self._failed is not None:
                raise BackendNotReady(f"not sent: {self._failed}", sent=False)
            try:
                self._made = self._make()
            except BackendNotReady as exc:
                self._failed = exc
                raise
            return self._made
