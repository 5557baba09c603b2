"""Confidence: how much a mined fact can be trusted, and the reasons why.

A detector finds a shape (a denial, an interrupt, a plan rejection); whether the
text it found is worth learning from is a separate, scored question. The score
moves in whole bands (±0.25) so every value a user sees is one of five, and each
move leaves a short reason code, so a score is always explainable by reading the
reasons left to right: ``(embedded_text, substantive)`` is 0.5 + 0.25 = 0.75.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NewType

from learn.detect.wording import HEDGE_RE
from learn.textunits import TOKEN_RUN
from learn.textunits import word_count as count_words

Confidence = NewType("Confidence", float)

NONE = Confidence(0.0)
LOW = Confidence(0.25)
MEDIUM = Confidence(0.5)
HIGH = Confidence(0.75)
VERY_HIGH = Confidence(0.95)
# Anything at or below this is noise: a bare marker with nothing typed after it.
NOISE_FLOOR = LOW
CONFIDENCE_STEP = 0.25

BANDS: dict[str, Confidence] = {
    "none": NONE,
    "low": LOW,
    "medium": MEDIUM,
    "high": HIGH,
    "very_high": VERY_HIGH,
}

# Reason codes, spelled once.
REASON_SUBSTANTIVE = "substantive"
REASON_HEDGED = "hedged"
REASON_SHORT = "short_followup"
REASON_PROXIMATE = "trigger_proximate"
REASON_STRUCTURAL = "structural_only"

# "maybe try the other adapter" is an idea offered, not a rule given: one band
# down. In every language `wording` knows (English, Chinese, Japanese, Korean,
# German, Spanish, Portuguese, Russian).
HEDGE_PATTERN = HEDGE_RE


def clamp(value: float) -> Confidence:
    return Confidence(min(1.0, max(0.0, value)))


@dataclass(frozen=True, slots=True)
class CandidateSignal:
    """A confidence verdict on a mined fact, with the reasons that produced it."""

    confidence: Confidence
    reasons: tuple[str, ...] = ()
    durable: bool = True

    def bump(self, reason: str) -> CandidateSignal:
        return CandidateSignal(
            clamp(self.confidence + CONFIDENCE_STEP), (*self.reasons, reason), self.durable
        )

    def demote(self, reason: str) -> CandidateSignal:
        return CandidateSignal(
            clamp(self.confidence - CONFIDENCE_STEP), (*self.reasons, reason), self.durable
        )

    def to_json(self) -> dict[str, object]:
        return {
            "confidence": self.confidence,
            "reasons": list(self.reasons),
            "durable": self.durable,
        }


def firm(reason: str) -> CandidateSignal:
    """The seed of a calibrated detector: the shape alone is worth MEDIUM."""
    return CandidateSignal(MEDIUM, (reason,))


def weak(reason: str) -> CandidateSignal:
    return CandidateSignal(LOW, (reason,))


def noise(reason: str) -> CandidateSignal:
    return CandidateSignal(NONE, (reason,))


def word_count(text: str) -> int:
    """Whitespace-separated words, with unspaced scripts (Chinese, Japanese)
    counted two characters a word: `split()` made a Chinese reason one word,
    never "substantive" (issue 19). Latin text counts exactly as `split()`."""
    return count_words(text, TOKEN_RUN)


# --- stages -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Base:
    """Set the score to a band, replacing whatever came before."""

    band: Confidence
    reason: str


@dataclass(frozen=True, slots=True)
class BumpIfSubstantive:
    """More than `min_words` words and not structural noise: the user said something."""

    min_words: int = 2
    reason: str = REASON_SUBSTANTIVE


@dataclass(frozen=True, slots=True)
class DemoteIfHedged:
    pattern: str = HEDGE_PATTERN.pattern
    reason: str = REASON_HEDGED


@dataclass(frozen=True, slots=True)
class DemoteIfShort:
    """At most `max_words` words: "no stop" is a reaction, rarely a rule."""

    max_words: int = 2
    reason: str = REASON_SHORT


@dataclass(frozen=True, slots=True)
class BumpIfProximate:
    """The message came right after the agent acted (index - trigger <= max_distance)."""

    max_distance: int = 2
    reason: str = REASON_PROXIMATE


@dataclass(frozen=True, slots=True)
class NoiseIfStructural:
    """Harness scaffolding or an agent relay: short-circuit to NONE."""

    reason: str = REASON_STRUCTURAL


Stage = (
    Base | BumpIfSubstantive | DemoteIfHedged | DemoteIfShort | BumpIfProximate | NoiseIfStructural
)


@dataclass(frozen=True, slots=True)
class ConfidenceSpec:
    """An ordered list of stages, applied left to right from a starting signal."""

    stages: tuple[Stage, ...]


CALIBRATED_SPEC = ConfidenceSpec((BumpIfSubstantive(), DemoteIfHedged()))
USER_MESSAGE_SPEC = ConfidenceSpec(
    (NoiseIfStructural(), Base(MEDIUM, "user_message"), DemoteIfShort(), BumpIfProximate())
)


def _compiled(pattern: str, cache: dict[str, re.Pattern[str]] = {}) -> re.Pattern[str]:  # noqa: B006
    # Stages are frozen values with the pattern as text (so they serialize);
    # compiling once per distinct pattern keeps scoring O(text).
    compiled = cache.get(pattern)
    if compiled is None:
        compiled = cache[pattern] = re.compile(pattern, re.IGNORECASE)
    return compiled


def score(
    spec: ConfidenceSpec,
    text: str,
    *,
    start: CandidateSignal | None = None,
    index: int | None = None,
    trigger_index: int | None = None,
    is_structural: Callable[[str], bool] = lambda _text: False,
) -> CandidateSignal:
    """Run `spec`'s stages over `text`, starting from `start` (NONE, no reasons, by default)."""
    signal = start if start is not None else CandidateSignal(NONE)
    for stage in spec.stages:
        if isinstance(stage, NoiseIfStructural):
            if is_structural(text):
                return CandidateSignal(NONE, (stage.reason,), signal.durable)
        elif isinstance(stage, Base):
            signal = CandidateSignal(stage.band, (*signal.reasons, stage.reason), signal.durable)
        elif isinstance(stage, BumpIfSubstantive):
            if word_count(text) > stage.min_words and not is_structural(text):
                signal = signal.bump(stage.reason)
        elif isinstance(stage, DemoteIfHedged):
            if _compiled(stage.pattern).search(text):
                signal = signal.demote(stage.reason)
        elif isinstance(stage, DemoteIfShort):
            if word_count(text) <= stage.max_words:
                signal = signal.demote(stage.reason)
        elif isinstance(stage, BumpIfProximate) and (
            index is not None
            and trigger_index is not None
            and 0 <= index - trigger_index <= stage.max_distance
        ):
            signal = signal.bump(stage.reason)
    return signal


def stage_to_json(stage: Stage) -> dict[str, object]:
    if isinstance(stage, Base):
        return {"stage": "base", "band": stage.band, "reason": stage.reason}
    if isinstance(stage, BumpIfSubstantive):
        return {
            "stage": "bump_if_substantive",
            "min_words": stage.min_words,
            "reason": stage.reason,
        }
    if isinstance(stage, DemoteIfHedged):
        return {"stage": "demote_if_hedged", "pattern": stage.pattern, "reason": stage.reason}
    if isinstance(stage, DemoteIfShort):
        return {"stage": "demote_if_short", "max_words": stage.max_words, "reason": stage.reason}
    if isinstance(stage, BumpIfProximate):
        return {
            "stage": "bump_if_proximate",
            "max_distance": stage.max_distance,
            "reason": stage.reason,
        }
    return {"stage": "noise_if_structural", "reason": stage.reason}


def confidence_spec_to_json(spec: ConfidenceSpec) -> list[dict[str, object]]:
    return [stage_to_json(stage) for stage in spec.stages]
