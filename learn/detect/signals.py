"""MiningSignal: one neutral fact a detector found, before any app policy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NewType

from learn.detect.confidence import CandidateSignal

SourceKind = NewType("SourceKind", str)

# The common categories the detectors emit; an app may define its own.
TRANSCRIPT_MESSAGE = SourceKind("transcript_message")
PLAN_REVIEW = SourceKind("plan_review")
INTERRUPT_REJECTION = SourceKind("interrupt_rejection")
REVIEW_COMMENT = SourceKind("review_comment")
QUESTION_ANSWER = SourceKind("question_answer")

SOURCE_KINDS: tuple[SourceKind, ...] = (
    TRANSCRIPT_MESSAGE,
    PLAN_REVIEW,
    INTERRUPT_REJECTION,
    REVIEW_COMMENT,
    QUESTION_ANSWER,
)


@dataclass(frozen=True, slots=True)
class MiningSignal:
    """A neutral fact mined from a transcript, ready for an app to map to a candidate.

    `event_index` addresses the events sequence `mine()` was given, so a caller
    that already holds the parse can look the originating event up directly.
    """

    kind: SourceKind
    detector: str
    session_id: str
    event_index: int
    event_uuid: str
    occurred_at: datetime
    text: str
    cc_version: str | None
    trigger_index: int | None
    signal: CandidateSignal
    lower_bound: int | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        return self.signal.confidence

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "detector": self.detector,
            "session_id": self.session_id,
            "event_index": self.event_index,
            "event_uuid": self.event_uuid,
            "occurred_at": self.occurred_at.isoformat(),
            "text": self.text,
            "cc_version": self.cc_version,
            "trigger_index": self.trigger_index,
            "signal": self.signal.to_json(),
            "lower_bound": self.lower_bound,
            "evidence": dict(self.evidence),
        }
