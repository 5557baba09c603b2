"""The seven detectors over authored fixture transcripts, traps included."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.detect import (
    ALL_DETECTORS,
    DETECTOR_ORDER,
    MiningSignal,
    MiningSpec,
    RegexReviewFormat,
    ReviewSpec,
    mine,
)
from learn.transcripts.models import TranscriptEvent, UserEvent
from learn.transcripts.parser import parse_events_from_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "detect"

DASH_FORMAT = RegexReviewFormat(
    "dash",
    r"^- (?P<file>[\w./-]+):(?P<start>\d+)(?:-(?P<end>\d+))?: (?P<comment>.+)$",
    comment_groups=("comment",),
    file_group="file",
    line_start_group="start",
    line_end_group="end",
)


def events(name: str) -> list[TranscriptEvent]:
    return list(parse_events_from_bytes((FIXTURES / name).read_bytes()))


def run(name: str, *detectors: str, spec: MiningSpec | None = None) -> list[MiningSignal]:
    spec = spec or MiningSpec()
    if detectors:
        spec = MiningSpec(detectors=frozenset(detectors), review=spec.review)  # type: ignore[arg-type]
    return list(mine(events(name), spec))


def summary(signals: list[MiningSignal]) -> list[tuple[str, float, tuple[str, ...]]]:
    return [(s.text, s.signal.confidence, s.signal.reasons) for s in signals]


def test_event_index_addresses_the_given_events() -> None:
    evs = events("denials.jsonl")
    for signal in mine(evs, MiningSpec()):
        event = evs[signal.event_index]
        assert isinstance(event, UserEvent)
        assert event.meta.uuid == signal.event_uuid
        assert event.meta.timestamp == signal.occurred_at
        assert signal.session_id == event.meta.session_id
        assert signal.cc_version == "2.1.3"


def test_signals_come_in_detector_order() -> None:
    spec = MiningSpec(review=ReviewSpec(formats=(DASH_FORMAT,)))
    for name in ("denials.jsonl", "interrupts.jsonl", "plan.jsonl", "questions.jsonl"):
        order = [DETECTOR_ORDER.index(s.detector) for s in mine(events(name), spec)]
        assert order == sorted(order)


def test_denial_detector() -> None:
    signals = run("denials.jsonl", "denial")
    assert summary(signals) == [
        ("use the storage adapter instead", 0.75, ("embedded_text", "substantive")),
        ("never delete the build dir, run make clean instead", 0.25, ("bare_marker",)),
        ("no", 0.5, ("embedded_text",)),
        (
            "maybe try writing it to a temp file first",
            0.5,
            ("embedded_text", "substantive", "hedged"),
        ),
    ]
    first = signals[0]
    assert first.kind == "interrupt_rejection"
    assert first.evidence["tool"] == "Edit"
    assert first.evidence["file_path"] == "src/db.py"
    # The bare rejection's text is the follow-up the person typed, not the marker.
    assert signals[1].evidence["marker_index"] == signals[1].lower_bound


def test_permission_rule_denial_is_a_hook_not_a_person() -> None:
    texts = [s.text for s in run("denials.jsonl")]
    assert all("force pushes" not in t for t in texts)


def test_denial_skips_question_and_plan_tools() -> None:
    assert run("questions.jsonl", "denial") == []
    assert run("plan.jsonl", "denial") == []


def test_exit_plan_rejection() -> None:
    signals = run("plan.jsonl", "exit_plan_rejection")
    assert summary(signals) == [
        ("don't add redis, use the in-process LRU cache", 0.75, ("embedded_text", "substantive"))
    ]
    assert signals[0].kind == "plan_review"
    assert signals[0].evidence["tool"] == "ExitPlanMode"


def test_plan_reentry_fires_once_per_transition() -> None:
    evs = events("plan.jsonl")
    signals = list(mine(evs, MiningSpec(detectors=frozenset({"plan_reentry"}))))
    assert [s.text for s in signals] == ["wait, you changed the public API, plan this again"]
    signal = signals[0]
    assert signal.signal.reasons == ("reentry_after_edit", "substantive")
    assert signal.lower_bound is not None
    edit = evs[signal.lower_bound]
    assert any(getattr(b, "name", None) == "Edit" for b in getattr(edit, "blocks", ()))


def test_plan_reentry_respects_lookback() -> None:
    spec = MiningSpec(detectors=frozenset({"plan_reentry"}), reentry_lookback=2)
    assert list(mine(events("plan.jsonl"), spec)) == []


def test_interrupt_detector() -> None:
    signals = run("interrupts.jsonl", "interrupt")
    # The tool-result marker and its echo as user text are one interrupt.
    assert summary(signals) == [
        ("use pytest -x, not the whole suite", 0.25, ("bare_marker",)),
        (
            "<command-name>/clear</command-name>\n<command-message>clear</command-message>",
            0.0,
            ("structural_only",),
        ),
    ]
    assert signals[0].evidence["tool"] == "Bash"


def test_quoted_interrupt_marker_mid_message_is_not_an_interrupt() -> None:
    quoted = 'why did the log say "[Request interrupted by user]" twice?'
    assert all(s.text != quoted for s in run("interrupts.jsonl", "interrupt"))
    messages = run("interrupts.jsonl", "transcript_message")
    assert quoted in [s.text for s in messages]


def test_transcript_message() -> None:
    signals = run("interrupts.jsonl", "transcript_message")
    texts = [s.text for s in signals]
    # Bare markers are not messages.
    assert all(not t.startswith("[Request interrupted") for t in texts)
    by_text = {s.text: s for s in signals}
    pinned = by_text["no stop"]
    assert pinned.signal.confidence == 0.5
    assert pinned.signal.reasons == ("user_message", "short_followup", "trigger_proximate")
    assert pinned.trigger_index == pinned.event_index - 1


def test_relay_message_is_not_the_user() -> None:
    signals = run("interrupts.jsonl", "transcript_message")
    relay = next(s for s in signals if s.text.startswith("<teammate-message"))
    assert relay.signal.confidence == 0.0
    assert relay.signal.reasons == ("structural_only",)
    assert relay.evidence["provenance"] == "claude"


def test_ask_user_question_structured_banner_and_typed_instead() -> None:
    signals = run("questions.jsonl", "ask_user_question")
    assert summary(signals) == [
        ("uv (Recommended)", 0.25, ("option_pick",)),
        ("always use pytest with -x and no coverage", 0.75, ("freeform_answer", "substantive")),
        ("keep subject lines under 50 characters", 0.75, ("freeform_answer", "substantive")),
        (
            "keep the migrations, squash them into one instead",
            0.75,
            ("freeform_answer", "substantive"),
        ),
    ]
    pick, freeform, noted, typed = signals
    assert pick.evidence["recommended_pick"] is True
    assert pick.evidence["picked_labels"] == ["uv (Recommended)"]
    assert freeform.evidence["option_pick"] is False
    assert freeform.evidence["header"] == "Tests"
    # The older banner: an option pick with notes; the notes are what was typed.
    assert noted.evidence["picked_labels"] == ["conventional"]
    assert noted.evidence["notes"] == "keep subject lines under 50 characters"
    assert typed.evidence["question"] == "Delete the old migrations?"
    assert all(s.kind == "question_answer" for s in signals)


def test_review_comment_is_off_until_formats_are_configured() -> None:
    assert run("review.jsonl", "review_comment") == []


def test_review_comment_surfaces_and_provenance() -> None:
    spec = MiningSpec(review=ReviewSpec(formats=(DASH_FORMAT,)))
    signals = run("review.jsonl", "review_comment", spec=spec)
    got = [
        (
            s.text,
            s.evidence["file"],
            s.evidence["line_start"],
            s.evidence["line_end"],
            s.evidence["provenance"],
        )
        for s in signals
    ]
    assert got == [
        ("rename this to load_config", "src/a.py", 10, 12, "typed"),
        ("drop the print", "src/b.py", 3, None, "typed"),
        ("missing test for the empty case", "src/c.py", 5, None, "surfaced"),
    ]
    everything = MiningSpec(
        review=ReviewSpec(formats=(DASH_FORMAT,), surfaces=frozenset({"claude"}))
    )
    claude = run("review.jsonl", "review_comment", spec=everything)
    assert [(s.text, s.evidence["provenance"]) for s in claude] == [
        ("the subagent thinks this is slow", "claude")
    ]


def test_bad_review_pattern_fails_when_the_spec_is_built() -> None:
    with pytest.raises(ValueError, match="bad pattern"):
        MiningSpec(review=ReviewSpec(formats=(RegexReviewFormat("x", "(", ("c",)),)))


def test_unknown_detector_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown detectors"):
        MiningSpec(detectors=frozenset({"telepathy"}))  # type: ignore[arg-type]
    assert len(ALL_DETECTORS) == 7


def test_disabled_detectors_do_not_run() -> None:
    spec = MiningSpec(detectors=frozenset({"denial"}))
    assert {s.detector for s in mine(events("denials.jsonl"), spec)} == {"denial"}


def test_mine_accepts_any_iterable_and_empty_input() -> None:
    assert list(mine(iter(events("plan.jsonl")))) == list(mine(events("plan.jsonl")))
    assert list(mine([])) == []


def _line(n: int, kind: str, message: dict[str, object], **extra: object) -> dict[str, object]:
    return {
        "type": kind,
        "uuid": f"odd-{n}",
        "sessionId": "odd",
        "timestamp": f"2026-11-02T09:00:{n:02d}Z",
        "message": message,
        **extra,
    }


def _result(n: int, tool_use_id: str, content: str, **extra: object) -> dict[str, object]:
    block = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": True,
    }
    return _line(n, "user", {"role": "user", "content": [block]}, **extra)


def test_odd_payloads_do_not_crash_or_invent_signals() -> None:
    from learn.transcripts.parser import parse_events

    ask = {"type": "tool_use", "id": "q", "name": "AskUserQuestion", "input": {"questions": 3}}
    evs = parse_events(
        _line(1, "assistant", {"role": "assistant", "model": "m", "content": [ask]}),
        _result(2, "q", "x", toolUseResult={"answers": "not a mapping"}),
        _result(3, "q", "x", toolUseResult={"answers": {"q?": 5, "r?": ["a", "b"]}}),
        _result(4, "q", "Your questions have been answered: nothing parseable"),
        # A rejection whose tool_use is out of reach (compacted away).
        _result(
            5,
            "gone",
            "The user doesn't want to proceed with this tool use. The tool use "
            "was rejected. To tell you how to proceed, the user said:\nuse the fixture "
            "builder instead",
            toolDenialKind="user-rejected",
        ),
        _line(6, "user", {"role": "user", "content": "   "}),
    )
    signals = list(mine(evs))
    assert [(s.detector, s.text) for s in signals] == [
        ("denial", "use the fixture builder instead"),
        ("ask_user_question", "a, b"),
    ]
    assert signals[0].evidence["tool"] is None
