"""Item 14 of issue 10: every detector reads a user text as the session view does."""

from __future__ import annotations

import json

from fixtures.detect.make_fixtures import DENIAL, NOTE, SAID, STOP, Session

from learn.detect import MiningSignal, MiningSpec, mine
from learn.detect.detectors import has_rejecting_words
from learn.detect.usertext import SessionIndex, is_human_message
from learn.transcripts.models import TranscriptEvent
from learn.transcripts.parser import parse_events_from_bytes

IDE = "<ide_opened_file>The user opened the file src/db.py in the IDE.</ide_opened_file>"
PLAN_HANDOFF = ("Implement the following plan:\n\n# Plan\n1. Move the cache into the service.\n"
                "2. Drop the redis client.\n")


def _events(s: Session) -> list[TranscriptEvent]:
    buf = "".join(json.dumps(line) + "\n" for line in s.lines).encode()
    return list(parse_events_from_bytes(buf))


def _mine(s: Session, *detectors: str) -> list[MiningSignal]:
    spec = MiningSpec(detectors=frozenset(detectors))  # type: ignore[arg-type]
    return list(mine(_events(s), spec))


def test_ide_context_after_a_bare_denial_is_not_the_reply() -> None:
    s = Session("u1000000-0000-4000-8000-000000000001")
    s.user("tidy the db module")
    s.assistant(None, [("tu1", "Edit", {"file_path": "src/db.py"})])
    s.result("tu1", DENIAL + STOP, is_error=True, denial_kind="user-rejected")
    s.user([{"type": "text", "text": IDE}])  # type: ignore[arg-type]
    s.user([{"type": "text", "text": IDE}, {"type": "text", "text": "keep the public names"}])  # type: ignore[arg-type]
    [signal] = _mine(s, "denial")
    assert signal.text == "keep the public names"
    assert signal.signal.reasons == ("bare_marker",)


def test_a_message_holding_only_ide_context_is_no_transcript_message() -> None:
    s = Session("u2000000-0000-4000-8000-000000000002")
    s.user([{"type": "text", "text": IDE}])  # type: ignore[arg-type]
    s.user("use the adapter, not raw sql")
    texts = [x.text for x in _mine(s, "transcript_message")]
    assert texts == ["use the adapter, not raw sql"]


def test_plan_reentry_quotes_what_was_typed_not_the_handed_off_plan() -> None:
    s = Session("u3000000-0000-4000-8000-000000000003")
    s.user("cache the api")
    s.permission_mode("acceptEdits")
    s.assistant("Editing.", [("tu_e", "Edit", {"file_path": "app.py"})])
    s.result("tu_e", "The file app.py has been updated.")
    s.permission_mode("plan")
    s.user(PLAN_HANDOFF)  # not typed: skipped as the re-entry's reason
    s.user("you broke the public API, plan it again")
    [signal] = _mine(s, "plan_reentry")
    assert signal.text == "you broke the public API, plan it again"


def test_a_declined_plan_that_only_approves_is_noise() -> None:
    s = Session("u4000000-0000-4000-8000-000000000004")
    s.user("plan the cache")
    s.assistant("Plan.", [("tu_p", "ExitPlanMode", {"plan": "1. lru"})])
    s.result("tu_p", DENIAL + SAID + "this plan is solid and ready" + NOTE, is_error=True,
             denial_kind="user-rejected")
    s.assistant("Plan.", [("tu_q", "ExitPlanMode", {"plan": "2. lru"})])
    s.result("tu_q", DENIAL + SAID + "don't add redis, use the in-process cache" + NOTE,
             is_error=True, denial_kind="user-rejected")
    approval, rejection = _mine(s, "exit_plan_rejection")
    assert approval.signal.confidence == 0.0
    assert approval.signal.reasons[-1] == "approving_words"
    assert rejection.signal.confidence >= 0.75


def test_rejecting_words() -> None:
    assert not has_rejecting_words("this plan is solid and ready")
    assert not has_rejecting_words("looks great, ship it")
    assert has_rejecting_words("no, keep the old endpoint")
    assert has_rejecting_words("use sqlite instead")


def test_pasted_agent_output_is_not_read_as_the_persons_words() -> None:
    s = Session("u5000000-0000-4000-8000-000000000005")
    s.user("is the migration done?")
    s.assistant("The migration ran cleanly and every invoice has a region.")
    s.user("The migration ran cleanly and every invoice has a region.\nit did not, rerun it")
    index = SessionIndex(_events(s))
    assert [index.text(i) for i, _ in index.users] == ["is the migration done?", "it did not, rerun it"]


def test_is_human_message_reads_the_typed_text() -> None:
    s = Session("u6000000-0000-4000-8000-000000000006")
    s.user([{"type": "text", "text": IDE}])  # type: ignore[arg-type]
    s.user("run ruff")
    first, second = _events(s)
    assert not is_human_message(first)
    assert is_human_message(second)
