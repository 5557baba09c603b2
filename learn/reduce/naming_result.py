"""What naming returns: one label per candidate, the books of how it went, and
what the store may remember (only labels a model made)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from learn.models.base import CallUsage

if TYPE_CHECKING:
    from learn.reduce.protocols import LabelIndex, Vector

# What the name cache keeps for a text a whole answer declined to name: no label
# (a fallback one would be taught), but no second question either.
DECLINED = ""


@dataclass(frozen=True, slots=True)
class NamingStats:
    candidates: int = 0
    unique_texts: int = 0
    calls: int = 0
    failed_calls: int = 0
    truncated_calls: int = 0
    fallbacks: int = 0  # candidates whose label did not come from the model
    labels: int = 0  # distinct (kind, label)
    known_reused: int = 0  # distinct labels that were already in the index
    labels_merged: int = 0  # drifted labels folded into another (learn/reduce/drift.py)
    # The namer overruled (learn/reduce/regroup.py): lone labels rejoined, lumped quotes moved.
    labels_rejoined: int = 0
    quotes_moved: int = 0
    lumps_asked: int = 0  # quotes far from their label-mates, asked again alone
    reused_texts: int = 0  # unique texts labelled by an earlier run, not asked again
    # Candidates whose naming call failed: grouped only with near-identical wording.
    unnamed_failed: int = 0
    usage: CallUsage = field(default_factory=CallUsage)

    @property
    def labels_per_candidate(self) -> float:
        return self.labels / self.candidates if self.candidates else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "candidates": self.candidates,
            "unique_texts": self.unique_texts,
            "calls": self.calls,
            "failed_calls": self.failed_calls,
            "truncated_calls": self.truncated_calls,
            "fallbacks": self.fallbacks,
            "labels": self.labels,
            "known_reused": self.known_reused,
            "labels_merged": self.labels_merged,
            "labels_rejoined": self.labels_rejoined,
            "quotes_moved": self.quotes_moved,
            "lumps_asked": self.lumps_asked,
            "reused_texts": self.reused_texts,
            "unnamed_failed": self.unnamed_failed,
            "labels_per_candidate": round(self.labels_per_candidate, 4),
        }


@dataclass(frozen=True, slots=True)
class NamingResult:
    labels: tuple[str, ...]  # one per input candidate, same order
    stats: NamingStats
    failures: tuple[str, ...] = ()
    # (kind, label, vector) per distinct quote the model named: what `remember`
    # writes to the index (never a fallback label).
    examples: tuple[tuple[str, str, Vector], ...] = ()
    # (kind, text, label) per distinct candidate text a model named (this run or,
    # via `labelled`, an earlier one), or (kind, text, DECLINED) for one a whole
    # answer declined to name: what the store's name cache keeps (never a
    # fallback label, never one from a failed or cut-off call).
    named: tuple[tuple[str, str, str], ...] = ()

    def remember(self, index: LabelIndex) -> None:
        """Record this run's labels so the next run can reuse them."""
        for kind, label, vector in self.examples:
            index.add(label, kind, vector)
