"""Deterministic signals -> MinedCandidates for the reduce stage.

With a model, only text the person typed as a reaction to a specific agent
action becomes a directive here: a denial reason, a plan-rejection reason, a
free-form answer. Those are verified by construction (the text is what the user
typed, cut out of the protocol banner). Plain messages are the model's to judge:
every message a person sends is not a directive.

Offline there is no model, and the detectors' rating is all there is: every
signal at or above the threshold (`[mining] min_signal_confidence`) whose text
the person typed becomes a candidate too, marked SAID (its source is
"said:<detector>"), and only an offline run keeps those (learn.pipeline.read).
`learn signals` rated "we use pnpm here, not yarn" 0.75, the documented
threshold, while `run --offline` proposed only tool-denial reasons.
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
# The source of a candidate only an offline run uses (see the module doc).
SAID: str = "said:"


def is_typed_reason(candidate: MinedCandidate) -> bool:
    """A candidate every run uses (not one only offline runs keep)."""
    return not candidate.source.startswith(SAID)


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
    """Directive candidates from signals at or above `min_confidence`: typed reasons
    (source: the detector), and the person's other words (source: SAID + detector,
    for offline runs).

    One candidate per distinct text in input order: a reason the person typed
    twice in one session counts once there, as reduce counts distinct sessions
    anyway; a typed reason wins over the same words seen as a plain message.
    """
    seen: set[str] = set()
    out: list[MinedCandidate] = []
    for signal in signals:
        if signal.signal.confidence < min_confidence:
            continue
        typed = _typed_reason(signal)
        # An answer picked from AskUserQuestion's options is the agent's wording.
        if not typed and signal.detector == "ask_user_question":
            continue
        text = signal.text.strip()
        if not text or text in seen:
            continue
        seen.add(text)
        out.append(MinedCandidate(kind="directive", text=text,
                                  source=signal.detector if typed else SAID + signal.detector,
                                  at=signal.occurred_at.isoformat() if signal.occurred_at else None))
    # Typed reasons first, so a later plain sighting of the same words never wins.
    return sorted(out, key=lambda c: not is_typed_reason(c))
