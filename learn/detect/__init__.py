"""Deterministic mining: feedback signals found without a model.

`mine(events, spec)` runs the seven detectors over already-parsed events and
yields neutral `MiningSignal`s with a confidence and the reasons for it;
`candidates_from_signals` makes them durable (`FeedbackCandidate`, keyed by
`dedup_key`, with a `ContextWindow`); `signals_to_candidates` feeds the typed
reasons to the reduce stage; `sample_windows` draws negatives.
"""

from __future__ import annotations

from learn.detect.candidates import FeedbackCandidate, candidates_from_signals, signal_key
from learn.detect.confidence import (
    CALIBRATED_SPEC,
    CONFIDENCE_STEP,
    HIGH,
    LOW,
    MEDIUM,
    NOISE_FLOOR,
    NONE,
    USER_MESSAGE_SPEC,
    VERY_HIGH,
    Base,
    BumpIfProximate,
    BumpIfSubstantive,
    CandidateSignal,
    Confidence,
    ConfidenceSpec,
    DemoteIfHedged,
    DemoteIfShort,
    NoiseIfStructural,
    Stage,
    firm,
    noise,
    score,
    weak,
)
from learn.detect.context import (
    ContextWindow,
    EventRef,
    Fidelity,
    TurnRef,
    capture_window,
)
from learn.detect.dedup import DedupKey, dedup_key
from learn.detect.detectors import is_human_message, mine
from learn.detect.hydrate import hydrate
from learn.detect.sampling import sample_windows
from learn.detect.signals import (
    INTERRUPT_REJECTION,
    PLAN_REVIEW,
    QUESTION_ANSWER,
    REVIEW_COMMENT,
    TRANSCRIPT_MESSAGE,
    MiningSignal,
    SourceKind,
)
from learn.detect.spec import (
    ALL_DETECTORS,
    DETECTOR_ORDER,
    REENTRY_LOOKBACK,
    CallableReviewFormat,
    DetectorName,
    MiningSpec,
    Provenance,
    ProvenanceSpec,
    RegexReviewFormat,
    ReviewComment,
    ReviewFormat,
    ReviewSpec,
    mining_spec_to_json,
)
from learn.detect.to_candidates import signals_to_candidates

# The protocol strings are facts about Claude Code's output, owned by the parser.
from learn.transcripts.claude.literals import (
    ANSWERED_PREFIX,
    ANSWERED_TRAILER,
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
    DENIAL_PREFIX,
    USER_SAID_MARKER,
    USER_SAID_TRAILER,
    embedded_reason,
    is_bare_interrupt,
)

__all__ = [
    "ALL_DETECTORS",
    "ANSWERED_PREFIX",
    "ANSWERED_TRAILER",
    "CALIBRATED_SPEC",
    "CONFIDENCE_STEP",
    "DENIAL_KIND_PERMISSION_RULE",
    "DENIAL_KIND_USER_REJECTED",
    "DENIAL_PREFIX",
    "DETECTOR_ORDER",
    "HIGH",
    "INTERRUPT_REJECTION",
    "LOW",
    "MEDIUM",
    "NOISE_FLOOR",
    "NONE",
    "PLAN_REVIEW",
    "QUESTION_ANSWER",
    "REENTRY_LOOKBACK",
    "REVIEW_COMMENT",
    "TRANSCRIPT_MESSAGE",
    "USER_MESSAGE_SPEC",
    "USER_SAID_MARKER",
    "USER_SAID_TRAILER",
    "VERY_HIGH",
    "Base",
    "BumpIfProximate",
    "BumpIfSubstantive",
    "CallableReviewFormat",
    "CandidateSignal",
    "Confidence",
    "ConfidenceSpec",
    "ContextWindow",
    "DedupKey",
    "DemoteIfHedged",
    "DemoteIfShort",
    "DetectorName",
    "EventRef",
    "FeedbackCandidate",
    "Fidelity",
    "MiningSignal",
    "MiningSpec",
    "NoiseIfStructural",
    "Provenance",
    "ProvenanceSpec",
    "RegexReviewFormat",
    "ReviewComment",
    "ReviewFormat",
    "ReviewSpec",
    "SourceKind",
    "Stage",
    "TurnRef",
    "candidates_from_signals",
    "capture_window",
    "dedup_key",
    "embedded_reason",
    "firm",
    "hydrate",
    "is_bare_interrupt",
    "is_human_message",
    "mine",
    "mining_spec_to_json",
    "noise",
    "sample_windows",
    "score",
    "signal_key",
    "signals_to_candidates",
    "weak",
]
