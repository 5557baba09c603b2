"""What the reduce stage needs from the store, as small protocols.

The sqlite-backed implementations live in `learn.store`; `learn.reduce.memory`
has in-memory ones for tests and for runs without a database. Vectors are rows
of the run's embedder (float32, L2-normalised); distances are cosine distances
(1 - cosine similarity), so 0 is identical and 2 is opposite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from learn.records.proposal import Proposal, Verdict

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]


class LabelIndex(Protocol):
    """Labels on record, searchable by vector. Labels are namespaced by kind:
    a directive's label is never offered to a request."""

    def nearest(self, vector: Vector, kind: str, k: int) -> list[tuple[str, float]]:
        """Up to `k` distinct labels of `kind` nearest `vector`, as (label, distance), nearest first."""
        ...

    def add(self, label: str, kind: str, vector: Vector) -> None:
        """Record that an occurrence with this vector was given `label` (may be called once per example)."""
        ...


class VerdictMemory(Protocol):
    """Judge verdicts on record, keyed by (dedup_key, role, prompt_version), with vector evidence."""

    def get(self, dedup_key: str, role: str, prompt_version: int) -> Verdict | None: ...

    def nearest_verdict(
        self,
        vector: Vector,
        canonical_key: str | None,
        *,
        role: str,
        prompt_version: int,
        max_distance: float,
        kind: str | None = None,
    ) -> Verdict | None:
        """A verdict whose canonical_key equals `canonical_key`, else the nearest one
        whose evidence vector is within `max_distance`; None when neither exists.
        Only verdicts of the same (role, prompt_version) count, and with `kind`
        only those whose dedup_key starts with "<kind>:" (dedup keys are
        `Proposal.key`): a directive's verdict must not decide a request."""
        ...

    def record(
        self, dedup_key: str, role: str, prompt_version: int, verdict: Verdict, vector: Vector
    ) -> None: ...


class AnswerMemory(Protocol):
    """Model answers on record by the exact request they answered
    (learn.reduce.answers.request_key: step, model, prompt, tool and items), as the
    answer's rows: the same request is not paid for twice."""

    def get(self, key: str) -> list[Any] | None: ...

    def put(self, key: str, step: str, rows: Sequence[Any]) -> None:
        """Kept the moment it is called: a run killed after it keeps the answer."""
        ...


@dataclass(frozen=True, slots=True)
class ShownRecord:
    shown_at: str  # ISO 8601: when the item was last shown to the user
    last_seen: str | None = None  # its last_seen at that time
    covered: bool = False  # coverage status was not "new" when shown
    # Declined by the person: held back until it reaches this many distinct
    # sessions (learn.store.proposals.reoffer_at), whatever was said since.
    reoffer_at_sessions: int | None = None


class ShownState(Protocol):
    """What was shown before (suppression), keyed by `Proposal.key` ("kind:label"), in
    the projects the proposal's quotes were said in (none known: wherever it was shown)."""

    def get(self, key: str, projects: Sequence[str] = (), *,
            point: Proposal | None = None) -> ShownRecord | None:
        """`point`: the proposal itself, when known, so a point declined under another
        key is held back too (learn.store.proposals.same_point)."""
        ...
