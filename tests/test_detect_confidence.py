"""Confidence bands, stages, and the pinned examples."""

from __future__ import annotations

from learn.detect import (
    CALIBRATED_SPEC,
    HIGH,
    LOW,
    MEDIUM,
    NOISE_FLOOR,
    NONE,
    USER_MESSAGE_SPEC,
    VERY_HIGH,
    Base,
    CandidateSignal,
    ConfidenceSpec,
    MiningSpec,
    firm,
    mining_spec_to_json,
    score,
)
from learn.detect.structural import is_structural


def calibrated(text: str, seed: str = "embedded_text") -> CandidateSignal:
    return score(CALIBRATED_SPEC, text, start=firm(seed), is_structural=is_structural)


def test_bands() -> None:
    assert (NONE, LOW, MEDIUM, HIGH, VERY_HIGH) == (0.0, 0.25, 0.5, 0.75, 0.95)
    assert NOISE_FLOOR == LOW


def test_pinned_denial_reason_substantive() -> None:
    signal = calibrated("use the storage adapter instead")
    assert signal.confidence == 0.75
    assert signal.reasons == ("embedded_text", "substantive")


def test_pinned_bare_no() -> None:
    signal = calibrated("no")
    assert signal.confidence == 0.5
    assert signal.reasons == ("embedded_text",)


def test_pinned_hedged() -> None:
    signal = calibrated("maybe try the other adapter")
    assert signal.confidence == 0.5
    assert signal.reasons == ("embedded_text", "substantive", "hedged")


def test_pinned_user_message_short_proximate() -> None:
    signal = score(USER_MESSAGE_SPEC, "no stop", index=5, trigger_index=4)
    assert signal.confidence == 0.5
    assert signal.reasons == ("user_message", "short_followup", "trigger_proximate")


def test_user_message_far_from_trigger_is_not_bumped() -> None:
    signal = score(USER_MESSAGE_SPEC, "no stop", index=9, trigger_index=4)
    assert signal.confidence == 0.25
    assert "trigger_proximate" not in signal.reasons


def test_structural_short_circuits_to_none() -> None:
    text = "<command-name>/clear</command-name>"
    signal = score(USER_MESSAGE_SPEC, text, index=1, trigger_index=0, is_structural=is_structural)
    assert signal == CandidateSignal(NONE, ("structural_only",))


def test_structural_text_is_not_substantive() -> None:
    text = "<system-reminder>remember to run the linter before you commit</system-reminder>"
    assert calibrated(text).reasons == ("embedded_text",)


def test_clamped_steps() -> None:
    spec = ConfidenceSpec((Base(HIGH, "x"),))
    top = score(spec, "a b c d").bump("y").bump("z")
    assert top.confidence == 1.0
    bottom = CandidateSignal(NONE).demote("q")
    assert bottom.confidence == 0.0


def test_spec_json_is_stable_and_complete() -> None:
    data = mining_spec_to_json(MiningSpec())
    assert data == mining_spec_to_json(MiningSpec())
    assert data["reentry_lookback"] == 40
    assert data["detectors"][0] == "transcript_message"
    assert len(data["detectors"]) == 7
    assert "ExitPlanMode" in data["plan_tools"]
    assert "AskUserQuestion" in data["denial_excluded_tools"]
    assert [s["stage"] for s in data["user_message"]] == [
        "noise_if_structural",
        "base",
        "demote_if_short",
        "bump_if_proximate",
    ]
