"""FeedbackCandidate keys and windows; signals -> MinedCandidates."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from learn.detect import (
    CandidateSignal,
    MiningSignal,
    candidates_from_signals,
    dedup_key,
    mine,
    signal_key,
    signals_to_candidates,
)
from learn.detect.to_candidates import is_typed_reason
from learn.records.candidate import MinedCandidate
from learn.transcripts.models import TranscriptEvent
from learn.transcripts.parser import parse_events_from_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "detect"


def events(name: str) -> list[TranscriptEvent]:
    return list(parse_events_from_bytes((FIXTURES / name).read_bytes()))


def test_same_pushback_recorded_twice_collapses_to_one_key() -> None:
    evs = events("repeated.jsonl")
    denials = [s for s in mine(evs) if s.detector == "denial"]
    assert len(denials) == 2
    assert denials[0].event_uuid != denials[1].event_uuid
    assert signal_key(denials[0]) == signal_key(denials[1])
    assert signal_key(denials[0]) == dedup_key(
        denials[0].session_id, "interrupt_rejection", "keep the readme under 100 lines please"
    )
    candidates = candidates_from_signals(denials, evs)
    assert len(candidates) == 1
    candidate = candidates[0]
    assert candidate.ref.event_uuid == denials[0].event_uuid
    assert candidate.window.anchor == candidate.ref
    assert candidate.payload is not None and candidate.payload["tool"] == "Write"


def test_candidates_drop_noise_below_the_floor() -> None:
    evs = events("interrupts.jsonl")
    signals = list(mine(evs))
    kept = candidates_from_signals(signals, evs)
    assert all(c.signal.confidence >= 0.25 for c in kept)
    assert not any(c.text.startswith("<teammate-message") for c in kept)


def _signal(
    detector: str,
    text: str,
    reasons: tuple[str, ...],
    conf: float,
    kind: str = "interrupt_rejection",
    **evidence: object,
) -> MiningSignal:
    return MiningSignal(
        kind=kind,  # type: ignore[arg-type]
        detector=detector,
        session_id="s",
        event_index=0,
        event_uuid="u",
        occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
        text=text,
        cc_version=None,
        trigger_index=None,
        signal=CandidateSignal(conf, reasons),  # type: ignore[arg-type]
        evidence=evidence,
    )


def test_review_comment_key_includes_location() -> None:
    a = _signal(
        "review_comment",
        "rename",
        ("format_match",),
        0.5,
        "review_comment",
        file="a.py",
        line_start=1,
        line_end=None,
    )
    b = _signal(
        "review_comment",
        "rename",
        ("format_match",),
        0.5,
        "review_comment",
        file="b.py",
        line_start=1,
        line_end=None,
    )
    assert signal_key(a) != signal_key(b)


def test_signals_to_candidates_takes_typed_reasons_at_high_and_marks_the_rest_for_offline() -> None:
    evs = events("denials.jsonl") + events("plan.jsonl") + events("questions.jsonl")
    found = signals_to_candidates(mine(evs))
    said = [c for c in found if not is_typed_reason(c)]
    # The person's plain words rated at the threshold: kept for offline runs only.
    assert [(c.source, c.text) for c in said] == [
        ("said:transcript_message", "add caching to the api"),
        ("said:transcript_message", "wait, you changed the public API, plan this again"),
        ("said:transcript_message", "also keep the old endpoint"),
        ("said:transcript_message", "set up the project")]
    dated = [c for c in found if is_typed_reason(c)]
    # Each carries the time its event was typed (issue 18: quotes dated when typed).
    assert all(c.at and c.at.startswith("2026-") for c in dated)
    got = [replace(c, at=None) for c in dated]
    # Detector order: exit_plan_rejection runs before denial.
    assert got == [
        MinedCandidate(
            kind="directive",
            text="don't add redis, use the in-process LRU cache",
            source="exit_plan_rejection",
        ),
        MinedCandidate(kind="directive", text="use the storage adapter instead", source="denial"),
        MinedCandidate(
            kind="directive",
            text="always use pytest with -x and no coverage",
            source="ask_user_question",
        ),
        MinedCandidate(
            kind="directive",
            text="keep subject lines under 50 characters",
            source="ask_user_question",
        ),
        MinedCandidate(
            kind="directive",
            text="keep the migrations, squash them into one instead",
            source="ask_user_question",
        ),
    ]


def test_signals_to_candidates_marks_messages_and_followups_and_drops_picks() -> None:
    signals = [
        _signal(
            "transcript_message",
            "always use uv please",
            ("user_message",),
            0.75,
            "transcript_message",
        ),
        _signal("denial", "never force push to main", ("bare_marker",), 0.75),
        _signal(
            "ask_user_question", "pytest (Recommended)", ("option_pick",), 0.75, "question_answer"
        ),
        _signal(
            "plan_reentry", "plan it again please now", ("reentry_after_edit",), 0.75, "plan_review"
        ),
        _signal("denial", "use the adapter instead here", ("embedded_text", "substantive"), 0.75),
        _signal("denial", "use the adapter instead here", ("embedded_text", "substantive"), 0.75),
    ]
    got = signals_to_candidates(signals)
    assert [(c.text, c.source) for c in got if is_typed_reason(c)] == [
        ("use the adapter instead here", "denial")]
    # Offline only: a message, a bare denial's follow-up, a plan re-entry; never an
    # option picked from AskUserQuestion (the agent's words).
    assert [(c.text, c.source) for c in got if not is_typed_reason(c)] == [
        ("always use uv please", "said:transcript_message"),
        ("never force push to main", "said:denial"),
        ("plan it again please now", "said:plan_reentry")]
    assert signals_to_candidates(signals, min_confidence=0.95) == []
