"""Issue 31: whose words, rule by rule — what a file says of its origin on every client
version, spec and custom prompt bodies known by their shape, other agents' output cut by
evidence, and new input no person typed.

The fidelity cases (tests/fixtures/fidelity/cases 32-35, 67-69, 74-75) check these through
the CLI; here each rule is checked on its own, with the edges the cases do not reach."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from learn.transcripts.parser import parse_events
from learn.transcripts.view.machine_signals import (
    GENERATED_OPENING,
    QUEUED_OPENING,
    SCRIPTED_BODY,
    every,
    queued_opening,
    scheduled,
    scripted_body,
)
from learn.transcripts.view.origin import OriginFacts, judge_origins
from learn.transcripts.view.prompt_bodies import filled_prompt
from learn.transcripts.view.relayed import is_generated_findings, strip_relayed
from learn.transcripts.view.typed import question_after_status, strip_pasted_output, typed_text

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


# ---------------------------------------------------------------- how a file opens


def _entry(kind: str, n: int, **extra: object) -> dict[str, object]:
    return {"type": kind, "uuid": f"u{n}", "timestamp": f"2026-11-02T09:0{n}:00Z", "sessionId": "s",
            "parentUuid": None, **extra}


def test_a_file_opening_with_a_queue_operation_had_its_prompt_handed_in() -> None:
    handed = parse_events({"type": "queue-operation", "operation": "dequeue", "sessionId": "s"},
                          _entry("user", 1, message={"role": "user", "content": "hi"}))
    typed = parse_events(_entry("user", 1, message={"role": "user", "content": "hi"}),
                         {"type": "queue-operation", "operation": "enqueue", "content": "more"})
    assert queued_opening(handed) and not queued_opening(typed)


def test_a_command_body_that_names_the_program_running_it() -> None:
    assert scripted_body("This command is called by the nightly release script.") == \
        "This command is called by the nightly release script."
    wrapped = "The story loop runs this command once per story\nand reads its output at the end."
    assert scripted_body(wrapped) == ("The story loop runs this command once per story and "
                                      "reads its output at the end.")
    assert scripted_body("Run it non-interactively: never stop for input.")
    # Said to agents in commands people run by hand too: not evidence of a program.
    assert scripted_body("Never ask the user questions; just make the change.") is None
    assert scripted_body("Run the tests, then commit with a clear message.") is None


def test_a_machines_rhythm_is_a_fixed_step_of_minutes_with_skipped_runs_allowed() -> None:
    def at(*minutes: float) -> list[datetime]:
        return [T0 + timedelta(minutes=m) for m in minutes]

    assert scheduled(at(0, 5, 10, 15)) == 300
    assert scheduled(at(0, 5, 15, 20)) == 300  # one run skipped
    assert scheduled(at(0, 5)) is None  # two starts are no rhythm
    assert scheduled(at(0, 3, 11, 12)) is None  # no fixed step
    days = [T0 + timedelta(days=d) for d in range(4)]
    assert scheduled(days) is None  # daily: a person's habit as much as a schedule
    assert every(300) == "~5 min" and every(40) == "~40 s"


# ---------------------------------------------------------------- the origin judgement


def test_no_client_named_and_a_queued_opening_is_headless_to_be_corroborated() -> None:
    alone = judge_origins([OriginFacts("a", "/p", None, opening_chars=40, signals=(QUEUED_OPENING,))])
    assert alone["a"][0] == "interactive"  # a person typing `claude -p` by hand
    assert "queue-operation" in alone["a"][1][1]
    loop = judge_origins([OriginFacts(f"s{i}", "/p", None, opening_command="/ship",
                                      signals=(QUEUED_OPENING,)) for i in range(3)])
    assert {o for o, _ in loop.values()} == {"programmatic"}


def test_a_command_body_written_for_a_script_makes_a_session_a_programs() -> None:
    facts = [OriginFacts("a", "/p", None, opening_command="/ship",
                         signals=(f"{SCRIPTED_BODY}: The runner script calls this command.",))]
    origin, evidence = judge_origins(facts)["a"]
    assert origin == "programmatic"
    assert "The runner script calls this command." in evidence[0]
    replied = [OriginFacts("a", "/p", None, opening_command="/ship", free_reply=True,
                           signals=(f"{SCRIPTED_BODY}: The runner script calls this command.",))]
    assert judge_origins(replied)["a"][0] == "interactive"  # a person ran it and talked


def test_a_generated_opening_is_a_programs_only_on_a_headless_client() -> None:
    sdk = judge_origins([OriginFacts("a", "/p", "sdk-ts", signals=(GENERATED_OPENING,))])
    cli = judge_origins([OriginFacts("a", "/p", "cli", signals=(GENERATED_OPENING,))])
    assert sdk["a"][0] == "programmatic" and "generated" in sdk["a"][1][0]
    assert cli["a"][0] == "interactive"


def test_one_prompt_opening_unanswered_sessions_on_a_schedule_is_a_programs() -> None:
    def facts(step: timedelta, *, reply: bool = False, client: str | None = None) -> list[OriginFacts]:
        return [OriginFacts(f"s{i}", "/p", client, opening_text="watch the session", free_reply=reply,
                            started_at=T0 + i * step) for i in range(4)]

    got = judge_origins(facts(timedelta(minutes=5)))
    assert {o for o, _ in got.values()} == {"programmatic"}
    assert "one every ~5 min" in got["s0"][1][0]
    for other in (facts(timedelta(days=1, hours=3)), facts(timedelta(minutes=5), reply=True),
                  facts(timedelta(minutes=5), client="cli")):
        assert {o for o, _ in judge_origins(other).values()} == {"interactive"}


# ---------------------------------------------------------------- prompt bodies by shape

SPEC = """## User Input

```text
{args}
```

You **MUST** consider the user input before proceeding (if not empty).

## Outline

1. Read the plan and the task list of the feature the branch names.
2. For every task marked done, find the code that does it and say where it is.
3. Report what is missing, most blocking first, and stop: no code changes in this step."""


def test_a_spec_kit_body_keeps_only_what_was_written_into_its_input_section() -> None:
    assert filled_prompt(SPEC.format(args="review milestone 4 only")) == ["review milestone 4 only"]
    assert filled_prompt(SPEC.format(args="")) == []
    assert filled_prompt(SPEC.format(args="$ARGUMENTS")) == []
    # A person's own short note with the heading is theirs.
    assert filled_prompt("## User Input\n\n```text\nhello\n```\n\nthanks") is None


def test_a_meta_headed_body_keeps_the_values_filled_into_its_header() -> None:
    body = ("<meta>\ndescription: Design a feature\nargument-hint: <feature-name:refunds> [-y:]\n"
            "arguments:\n   user-directive: refunds, keep the partial path\n</meta>\n\n# Design\n\n"
            "Read the requirements of refunds and write design.md.")
    assert filled_prompt(body) == ["refunds, keep the partial path"]
    unfilled = "<meta>\ndescription: Steering\nargument-hint: <feature-name:$1>\n</meta>\n\n# Steering"
    assert filled_prompt(unfilled) == []


def test_a_body_on_disk_is_still_cut_by_its_fingerprints_first() -> None:
    from learn.transcripts.view.replay import replay_fingerprints

    template = SPEC.format(args="$ARGUMENTS")
    got = typed_text(SPEC.format(args="only the search milestone"),
                     fingerprints=replay_fingerprints([template]), provider="codex")
    assert got.text == "only the search milestone" and got.reason == "replayed-command"
    shaped = typed_text(SPEC.format(args="only the search milestone"), provider="codex")
    assert shaped.text == "only the search milestone" and shaped.reason == "prompt-body"


# ---------------------------------------------------------------- other agents' output


def test_a_question_typed_after_a_status_line_is_kept_and_the_status_is_not() -> None:
    assert question_after_status("⎿  Found 3 files  which one is the stale config?") == \
        "which one is the stale config?"
    assert question_after_status("⏺ Bash(pytest -x) why does this hang?") == "why does this hang?"
    assert question_after_status("⎿ Do you want to proceed?") is None  # the tool's own prompt
    assert question_after_status("⎿  Error: exit 1. why?") is None  # too short to tell apart


def test_glyphs_inside_a_line_cut_the_paste_and_keep_the_words_before_it() -> None:
    assert strip_pasted_output("look ⏺ Update(src/a.py)\n  ⎿  Updated 2 lines\nis that right?") == \
        "look\nis that right?"
    assert strip_pasted_output("a • b ● c") == "a • b"


def test_a_short_line_typed_back_amid_the_persons_own_lines_is_theirs() -> None:
    said = ["Options:\nrename the flag to dry_run\nor drop it"]
    assert strip_pasted_output("ok\nrename the flag to dry_run\nthanks", said) == \
        "ok\nrename the flag to dry_run\nthanks"
    long_line = "The retry budget is shared across every worker in the pool, so one slow job starves the rest."
    assert strip_pasted_output(f"{long_line}\nso that is the bug", [long_line]) == "so that is the bug"


def test_priority_tagged_findings_are_a_report_and_a_persons_bug_list_is_not() -> None:
    review = ("codex says:\n- [P1] Lock released early — src/a.py:10-20\n  two orders win.\n"
              "- [P2] No backoff — src/b.py:5\n\nfix the first one")
    assert strip_relayed(review) == "codex says:\n\nfix the first one"
    own = "bugs I found:\n1. the total in `cart.py` is off\n2. `tax.py` rounds down"
    assert strip_relayed(own) == own


def test_a_chat_models_answer_is_known_by_its_voice_around_its_structure() -> None:
    answer = ("Sure! Here is a plan:\n## Steps\n- split the module\n- add tests\n\n"
              "Let me know if you want the tests too.\n\nonly the split")
    assert strip_relayed(answer) == "only the split"
    own = "## Goal\nfaster checkout\n## Constraints\n- no new deps\n- same api"
    assert strip_relayed(own) == own


def test_a_generated_fix_prompt_is_known_with_nothing_around_it() -> None:
    prompt = ("Fix the following issues. Some may already be fixed.\n\n"
              "Verify each finding against the current code.\n\n"
              "In `src/a.ts`:\n- Around lines 4-9: clamp the discount.\n\n"
              "In `src/b.ts`:\n- Around line 12: retry only on 5xx.")
    assert is_generated_findings(prompt)
    assert not is_generated_findings(f"only the first one please:\n\n{prompt}\n\nthanks")


# ---------------------------------------------------------------- input no person typed


@pytest.mark.parametrize("text", [
    "Another Claude session sent a message while you were working:\n<cross-session-message from=\"a\">x"
    "</cross-session-message>",
    "A peer session sent a message:\nmoved the tokens",
    "The Roadmap plugin sent a message while you were working:\ncard moved",
    '<cross-session-message from="uds:/x" from-name="w">do it</cross-session-message>',
    '<agent-message from="child-1">report</agent-message>',
    "Goal check-in: «tests pass» is still active. Continue toward the goal.",
    "<webhook-payload>\nnightly\n</webhook-payload>",
    '<channel source="github" event="comment">rename it</channel>',
    "[Workflow harness — computed task] The task text below was computed at runtime.",
    "Activity was observed in the bound conversation:\nan edit",
])
def test_input_no_person_typed_is_not_typed(text: str) -> None:
    assert typed_text(text).text == ""


def test_a_person_quoting_a_relay_banner_mid_sentence_is_speaking() -> None:
    text = "why did I get 'Goal check-in:' twice in the last session?"
    assert typed_text(text).text == text


def test_terminal_output_pasted_as_a_rejection_reason_is_cut_and_the_words_kept() -> None:
    from learn.transcripts.view.session import build_session

    denial = ("The user doesn't want to proceed with this tool use. The tool use was rejected. "
              "To tell you how to proceed, the user said:\n"
              "⏺ Bash(npm publish)\n  ⎿  403 Forbidden\nnever publish from a laptop, CI does it")
    events = parse_events(
        _entry("user", 1, message={"role": "user", "content": "release 2.3"}),
        _entry("assistant", 2, parentUuid="u1", message={
            "id": "m1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                         "input": {"command": "npm publish"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}),
        _entry("user", 3, parentUuid="u2", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": denial}]}),
    )
    from learn.transcripts.models import EventList, Transcript

    view = build_session(Transcript(path=None, mtime=0.0, provider="claude",
                                    events=EventList(events)))
    assert [(t.origin, t.text) for t in view.human_turns] == [
        ("typed", "release 2.3"), ("denial", "never publish from a laptop, CI does it")]


def test_requests_written_into_a_body_are_never_a_templates_skeleton() -> None:
    from pathlib import Path

    from learn.transcripts.templates.scripted import machinery
    from learn.transcripts.view.model import HumanTurn, Session

    asks = [f"Please review completion of milestone {n} in docs/plan.md: check every task in "
            "tasks.md against the code, list what still blocks the release, and propose an order"
            for n in (3, 4, 5)]

    def view(i: int, filled: bool) -> Session:
        turn = HumanTurn(asks[i], "typed", T0 + timedelta(days=i), 0, f"u{i}", filled=filled)
        return Session(id=f"s{i}", provider="codex", path=Path(f"/x/s{i}.jsonl"), project="/p",
                       started_at=turn.at, last_activity=turn.at, timeline=(turn,), human_turns=(turn,),
                       tool_calls=(), failures=(), denials=(), interrupts=(), turns=1, entrypoint="cli")

    written_in = machinery([view(i, True) for i in range(3)]).views
    assert [[t.text for t in v.human_turns] for v in written_in] == [[a] for a in asks]
    # The same texts typed bare share a skeleton (a program filling a number), as before.
    bare = machinery([view(i, False) for i in range(3)]).views
    assert all(not v.human_turns for v in bare)
