"""Deterministic signals -> MinedCandidates for the reduce stage.

Only text the person typed as a reaction to a specific agent action becomes a
directive here: a denial reason, a plan-rejection reason, a free-form answer.
Those are verified by construction (the text is what the user typed, cut out of
the protocol banner). Plain transcript messages are not: every message a person
sends is not a directive, and deciding which are is the model's job.
"""

from __future__ import annotations

from collections.abc import Iterable

from learn.detect.confidence import HIGH
from learn.detect.signals import MiningSignal
from learn.records.candidate import MinedCandidate

# The detectors whose `text` is exactly what the person typed in reply to one
# agent action (the reason after "the user said:", a free-form answer).
TYPED_REASON_DETECTORS: frozenset[str] = frozenset(
    {"denial", "exit_plan_rejection", "ask_user_question"}
)


def _typed_reason(signal: MiningSignal) -> bool:
    if signal.detector not in TYPED_REASON_DETECTORS:
        return False
    reasons = signal.signal.reasons
    # A denial's bare-marker follow-up is the next message, not a typed reason;
    # an option pick is the agent's words chosen, not the person's.
    return bool(reasons) and reasons[0] in ("embedded_text", "freeform_answer")


def signals_to_candidates(
    signals: Iterable[MiningSignal], *, min_confidence: float = HIGH
) -> list[MinedCandidate]:
    """Directive candidates from typed reasons at or above `min_confidence`.

    One candidate per distinct (detector, text) in input order: a reason the
    person typed twice in one session counts once there, as reduce counts
    distinct sessions anyway.
    """
    seen: set[tuple[str, str]] = set()
    out: list[MinedCandidate] = []
    for signal in signals:
        if signal.signal.confidence < min_confidence or not _typed_reason(signal):
            continue
        text = signal.text.strip()
        if not text or (signal.detector, text) in seen:
            continue
        seen.add((signal.detector, text))
        out.append(MinedCandidate(kind="directive", text=text, source=signal.detector,
                                  at=signal.occurred_at.isoformat() if signal.occurred_at else None))
    return out
