"""The session view: active branch, what counts as a human turn, tool calls, failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.view._build import DENIAL, TRAILER, Chain

from learn.transcripts.claude.literals import (
    AGENT_INJECTION_PATTERNS,
    COMPACT_SUMMARY_PREFIX,
    INTERRUPT_MARKER_PATTERN,
    LOCAL_COMMAND_CAVEAT,
    MACHINE_INPUT_PATTERNS,
    TASK_NOTIFICATION_MARKER,
)
from learn.transcripts.parser import parse
from learn.transcripts.view import exclusions
from learn.transcripts.view.answers import (
    free_form_answers,
    parse_answer_banner,
)
from learn.transcripts.view.branch import (
    active_branch,
)
from learn.transcripts.view.calls import (
    summarize_call,
)
from learn.transcripts.view.exclusions import LEARN_DIGEST_MARKER, entry_exclusion, text_exclusion
from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure
from learn.transcripts.view.replay import (
    replay_fingerprints,
)
from learn.transcripts.view.serialise import (
    session_to_dict,
)
from learn.transcripts.view.session import (
    build_session,
)

FIXTURES = Path(__file__).parent / "fixtures" / "view"


def _fingerprints() -> list[str]:
    return replay_fingerprints([(FIXTURES / "review.md").read_text()])


@pytest.fixture(scope="module")
def main() -> Session:
    return build_session(parse(FIXTURES / "claude_main.jsonl"), fingerprints=_fingerprints())


def _texts(session: Session, origin: str | None = None) -> list[str]:
    return [t.text for t in session.human_turns if origin is None or t.origin == origin]


def _session(chain: Chain, **kwargs: Any) -> Session:
    buf = "".join(json.dumps(line) + "\n" for line in chain.lines).encode()
    return build_session(parse(buf), **kwargs)


# ---------------------------------------------------------------- the fixture session


def test_exactly_what_the_person_typed(main: Session) -> None:
    # The rewound-away prompt is evidence too (issue 10's principle): it was
    # typed, so it is a human turn, marked off the active branch.
    assert _texts(main, "typed") == [
        "Please add a --dry-run flag to the deploy script.",
        "make the button blue",
        "make the button red",
        # The replayed body is machinery; the argument the person gave it is typed.
        "focus on the deploy script",
        'Why did the log print "[Request interrupted by user]" twice?',
        "keep functions under 40 lines",
        "now write the changelog entry",
    ]
    assert _texts(main, "queued") == ["also bump the version"]
    [rewound] = [t for t in main.human_turns if not t.on_branch]
    assert rewound.text == "make the button blue"


def test_noise_never_becomes_a_human_turn(main: Session) -> None:
    everything = "\n".join(_texts(main)).casefold()
    for noise in [
        "<command-name>", "review the staged changes",  # command tags, isMeta + replayed bodies
        "caveat:", "local-command", "total cost",
        "<bash-", "git status", "system-reminder", "stop hook feedback", "base directory",
        "teammate", "please also fix the docs", "another claude session", "run the migration",
        "task-notification", LEARN_DIGEST_MARKER, "continued from a previous conversation",
        "subagent orchestrator", "ide_opened_file", "peer says hi", "the rm guard said no",
        "sqlite", "staging",
    ]:
        assert noise.casefold() not in everything, noise


def test_denials(main: Session) -> None:
    kinds = [(d.tool_name, d.kind, d.reason) for d in main.denials]
    assert kinds == [
        ("Edit", "user-rejected", "use pnpm, not npm. we switched last month"),
        # A permission rule is a program saying no: no reason, no human turn,
        # even though its text carries the "the user said" banner.
        ("Bash", "permission-rule", None),
    ]
    assert _texts(main, "denial") == ["use pnpm, not npm. we switched last month"]


def test_answers(main: Session) -> None:
    # A bare option pick ("SQLite", "staging") is not a turn; typed answers and notes are.
    assert _texts(main, "answer") == [
        "pytest, but keep the old unittest files running",
        "we run CI on 3.11 only",
        "only the #deploys channel",
        "never page anyone at night",
    ]


def test_timeline_interleaves_in_order(main: Session) -> None:
    kinds = [type(item).__name__ for item in main.timeline[:7]]
    assert kinds == ["HumanTurn", "ToolCall", "ToolCall", "HumanTurn", "ToolCall", "ToolFailure",
                     "ToolCall"]
    indices = [item.event_index for item in main.timeline]
    assert indices == sorted(indices)
    # The timeline is the context (active branch): every turn on it, and only those.
    on_branch = [t for t in main.human_turns if t.on_branch]
    assert len(main.timeline) == len(on_branch) + len(main.tool_calls) + len(main.failures)
    assert [i for i in main.timeline if isinstance(i, HumanTurn)] == on_branch


def test_tool_calls_and_failures(main: Session) -> None:
    summaries = [(c.name, c.summary) for c in main.tool_calls]
    assert summaries[:4] == [
        ("Bash", "ls scripts"),
        ("Edit", "/home/dev/shop/scripts/deploy.sh"),
        ("Bash", "npm test"),
        ("Bash", "rm -rf build"),
    ]
    assert ("Bash", "echo dead branch") not in summaries  # rewound
    assert summaries[4] == ("AskUserQuestion", "Which db?")
    [failure] = main.failures
    assert failure.tool_name == "Bash" and failure.tool_use_id == "toolu_test"
    assert failure.excerpt.startswith("Error: 3 tests failed")
    # Cut between words (learn.transcripts.view.calls): the long run after them is gone
    # whole, as a key would be, not cut in two.
    assert failure.excerpt.endswith("…") and len(failure.excerpt) <= 1500


def test_identity_and_counts(main: Session) -> None:
    assert main.id == "1c0ffee0-0000-4000-8000-000000000001"
    assert main.provider == "claude"
    assert main.project == "/home/dev/shop"
    assert main.started_at is not None and main.started_at.isoformat() == "2026-11-20T09:01:00+00:00"
    assert main.last_activity is not None
    assert main.last_activity.isoformat() == "2026-11-20T09:47:00+00:00"
    assert len(main.interrupts) == 1
    # The abandoned branch (3 entries) is not counted.
    assert main.turns == 39
    assert main.size_bytes == (FIXTURES / "claude_main.jsonl").stat().st_size


def test_codex_session() -> None:
    session = build_session(parse(FIXTURES / "codex_rollout.jsonl"))
    assert session.provider == "codex"
    assert session.id == "0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b"
    assert session.project == "/home/dev/shop"
    # Not the <environment_context> injection, not our digest.
    assert _texts(session) == ["run the tests with -x please", "always run ruff before pytest"]
    assert [(c.name, c.summary) for c in session.tool_calls] == [("shell", "pytest -x")]
    assert [type(i) for i in session.timeline] == [HumanTurn, ToolCall, ToolFailure, HumanTurn]


def test_session_to_dict_is_json(main: Session) -> None:
    data = json.loads(json.dumps(session_to_dict(main)))
    # 13: the rewound prompt counts as evidence (it is off the branch, not in the timeline).
    assert data["human_turns"] == 13
    assert data["off_branch_human_turns"] == 1
    assert data["human_turns_by_origin"] == {"typed": 7, "denial": 1, "answer": 4, "queued": 1,
                                             "aside": 0}
    assert [t["text"] for t in data["human_turns_detail"] if not t["on_branch"]] == [
        "make the button blue"]
    assert data["timeline"][0] == {
        "type": "human", "origin": "typed",
        "text": "Please add a --dry-run flag to the deploy script.",
        "at": "2026-11-20T09:01:00+00:00", "event_index": 1,
        "uuid": main.human_turns[0].uuid, "command": None, "on_branch": True,
    }


# ---------------------------------------------------------------- the active branch


def test_rewind_keeps_only_the_last_branch_as_context_and_every_turn_as_evidence() -> None:
    c = Chain("s", "/p")
    c.user("first", parent=False)
    fork = c.last
    c.user("abandoned one")
    c.user("abandoned two")
    c.user("kept", parent=fork)
    c.user("kept too")
    session = _session(c)
    assert [t.text for t in session.timeline if isinstance(t, HumanTurn)] == [
        "first", "kept", "kept too"]
    # The abandoned turns were typed: evidence, in the order they were typed.
    assert _texts(session) == ["first", "abandoned one", "abandoned two", "kept", "kept too"]
    assert [t.on_branch for t in session.human_turns] == [True, False, False, True, True]


def test_compaction_continues_through_logical_parent() -> None:
    c = Chain("s", "/p")
    c.user("before compaction", parent=False)
    before = c.last
    c._env("system", parent=False, subtype="compact_boundary", logicalParentUuid=before)
    c.user("This session is being continued from a previous conversation.", isCompactSummary=True)
    c.user("after compaction")
    assert _texts(_session(c)) == ["before compaction", "after compaction"]


def test_compaction_without_logical_parent_continues_before_it() -> None:
    # Older clients wrote the boundary (or only the summary) as a new root with
    # no logicalParentUuid; the conversation before it is still the context
    # (this test pinned the opposite before issue 10: 1 of 9 turns was shown).
    c = Chain("s", "/p")
    c.user("before compaction", parent=False)
    c._env("system", parent=False, subtype="compact_boundary")
    c.user("after compaction")
    session = _session(c)
    assert _texts(session) == ["before compaction", "after compaction"]
    assert all(t.on_branch for t in session.human_turns)


def test_progress_lines_inside_the_chain_do_not_break_it() -> None:
    c = Chain("s", "/p")
    c.user("start", parent=False)
    c.lines.append({"type": "progress", "uuid": "prog-1", "parentUuid": c.last, "sessionId": "s",
                    "timestamp": "2026-11-20T09:00:30Z", "data": {"type": "hook_progress"}})
    c.last = "prog-1"
    c.user("after progress")
    assert _texts(_session(c)) == ["start", "after progress"]


def test_dangling_parent_falls_back_to_file_order() -> None:
    c = Chain("s", "/p")
    c.user("one", parent=False)
    c.user("two", parent="missing-line-uuid")
    c.user("three")
    assert _texts(_session(c)) == ["one", "two", "three"]


def test_last_sidechain_entry_does_not_pick_the_branch() -> None:
    c = Chain("s", "/p")
    c.user("main", parent=False)
    c.user("subagent prompt", parent=False, isSidechain=True)
    assert _texts(_session(c)) == ["main"]


def test_flat_when_no_entry_has_a_parent() -> None:
    assert active_branch([]) == []
    c = Chain("s", "/p")
    c.user("a", parent=False)
    c.user("b", parent=False)
    # Nothing links to anything: a legacy-style file, read flat.
    assert _texts(_session(c)) == ["a", "b"]
    # Once links exist, a second root with its own chain is the active branch;
    # "a" stays evidence, off the branch.
    c.user("c")
    session = _session(c)
    assert [t.text for t in session.timeline if isinstance(t, HumanTurn)] == ["b", "c"]
    assert _texts(session) == ["a", "b", "c"]


# ---------------------------------------------------------------- exclusion rules


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("[Request interrupted by user]", "interrupt"),
        ("  [Request interrupted by user for tool use]", "interrupt"),
        ("<command-name>/pr</command-name>", "command-tags"),
        ("<command-message>pr is running…</command-message>", "command-tags"),
        ("<command-args>--draft</command-args>", "command-tags"),
        ("<local-command-stdout>ok</local-command-stdout>", "local-command-output"),
        ("<local-command-stderr>err</local-command-stderr>", "local-command-output"),
        ("<local-command-caveat>Caveat</local-command-caveat>", "local-command-output"),
        ("Caveat: The messages below were generated by the user while running local commands. x",
         "local-command-caveat"),
        ("<bash-input>ls</bash-input>", "bash-echo"),
        ("<bash-stdout>a</bash-stdout>", "bash-echo"),
        ("<bash-stderr>b</bash-stderr>", "bash-echo"),
        ("<system-reminder>x</system-reminder>", "system-reminder"),
        ("Stop hook feedback:\nfix lint", "stop-hook-feedback"),
        ("Base directory for this skill: /x", "skill-body"),
        ("This session is being continued from a previous conversation that ran out", "compaction-summary"),
        ('<teammate-message teammate_id="a">hi</teammate-message>', "agent-relay"),
        ("<scheduled-task>nightly</scheduled-task>", "agent-relay"),
        ("<agent-message>do it</agent-message>", "agent-relay"),
        ("<cross-session-message>x</cross-session-message>", "agent-relay"),
        ("Another Claude session sent a message:\nhello", "agent-relay"),
        ("<task-notification><task-id>1</task-id></task-notification>", "task-notification"),
        ("[learn-digest] Mined 4 sessions", "learn-digest"),
        ("   \n ", "empty"),
    ],
)
def test_each_text_rule(text: str, rule: str) -> None:
    assert text_exclusion(text) == rule


@pytest.mark.parametrize(
    "typed",
    [
        'I saw "[Request interrupted by user]" in the log',
        "what does <command-name> mean in the transcript?",
        "please stop printing <system-reminder> tags",
        "the caveat is that we run on 3.11",
        "use [learn-digest] as the prefix",
    ],
)
def test_quoting_a_marker_mid_message_is_still_typed(typed: str) -> None:
    assert text_exclusion(typed) is None


def _first_char(pattern: str) -> str:
    body = pattern.removeprefix(r"\A\s*").removeprefix("(?:")
    return body[1] if body[0] == "\\" else body[0]


def test_every_rule_pattern_opens_with_a_character_its_gate_lets_through() -> None:
    patterns = {
        "interrupt": [INTERRUPT_MARKER_PATTERN],
        "command-tags": [exclusions._COMMAND_TAG_RE.pattern],
        "local-command-output": [exclusions._LOCAL_COMMAND_RE.pattern],
        "bash-echo": [exclusions._BASH_ECHO_RE.pattern],
        "system-reminder": [exclusions._SYSTEM_REMINDER_RE.pattern],
        "ide-context": [exclusions._IDE_CONTEXT_RE.pattern],
        "agent-relay": list(AGENT_INJECTION_PATTERNS),
        "machine-input": list(MACHINE_INPUT_PATTERNS),
        "harness-line": [exclusions._HARNESS_LINE_RE.pattern],
    }
    prefixes = {
        "local-command-caveat": LOCAL_COMMAND_CAVEAT, "stop-hook-feedback": "Stop hook feedback:",
        "skill-body": "Base directory for this skill:", "compaction-summary": COMPACT_SUMMARY_PREFIX,
        "task-notification": TASK_NOTIFICATION_MARKER, "learn-digest": LEARN_DIGEST_MARKER,
    }
    assert set(patterns) | set(prefixes) == {name for name, _ in exclusions.TEXT_RULES}
    for name, found in patterns.items():
        for pattern in found:
            assert pattern.startswith(r"\A\s*"), pattern
            assert _first_char(pattern) in exclusions.RULE_HEAD_CHARS[name], (name, pattern)
    for name, prefix in prefixes.items():
        assert prefix[0] in exclusions.RULE_HEAD_CHARS[name], name
        assert dict(exclusions.TEXT_RULES)[name](" " + prefix + " x")


@pytest.mark.parametrize("lead", ["", "  ", "\n\t", "\u00a0", "\u3000"])
def test_the_head_gate_decides_as_every_rule_would(lead: str) -> None:
    texts = [
        "[Request interrupted by user]", "<command-name>/pr</command-name>",
        "<local-command-stdout>ok</local-command-stdout>", LOCAL_COMMAND_CAVEAT,
        "<bash-input>ls</bash-input>", "<system_instruction>x", "<ide_selection>x",
        "Stop hook feedback: x", "Base directory for this skill: /x", COMPACT_SUMMARY_PREFIX,
        "# Augment Agent", "[Role Reminder] x", "Another Claude session sent a message:\nhi",
        "A peer session sent a message: x", "The memory plugin sent a message: x",
        "<agent-message>x", "<task-notification>", "Goal check-in: x", "<webhook-payload>",
        "<channel source=x>", "[Workflow harness] x", "Activity was observed in the bound conversation",
        "Platform notice, written by the service", "<task_notification>",
        "[learn-digest] x", "Unknown skill: deploy", "fix the tests", "The tests fail",
        "Another thing", "<div>", "[link](x)", "Goal: ship it", "", "\u00a0",
    ]
    for text in texts:
        text = lead + text
        every = next((name for name, rule in exclusions.TEXT_RULES if rule(text)),
                     "empty" if not text.strip() else None)
        assert text_exclusion(text) == every, text


def test_replayed_body_rule() -> None:
    fps = _fingerprints()
    body = "Please review the staged changes for correctness, naming and missing tests before I open a PR."
    assert text_exclusion(body, fps) == "replayed-command"
    assert text_exclusion(body) is None


def test_entry_rules() -> None:
    c = Chain("s", "/p")
    c.user("x", parent=False)
    meta = _session_meta(c)
    assert entry_exclusion(meta) is None
    assert entry_exclusion(meta, is_agent_injected=True) == "agent-relay"
    assert entry_exclusion(meta, origin_kind="peer") == "not-human-origin"
    assert entry_exclusion(meta, origin_kind="human") is None
    for flag, rule in [("isMeta", "meta"), ("isCompactSummary", "compaction-summary"),
                       ("isSidechain", "sidechain")]:
        c2 = Chain("s", "/p")
        c2.user("x", parent=False, **{flag: True})
        assert entry_exclusion(_session_meta(c2)) == rule


def _session_meta(chain: Chain) -> Any:
    buf = json.dumps(chain.lines[0]).encode()
    [event] = parse(buf).events
    return event.meta  # type: ignore[union-attr]


def test_non_human_origin_prompt_is_not_typed() -> None:
    c = Chain("s", "/p")
    c.user("from a human", parent=False, origin={"kind": "human"})
    c.user("from a channel", origin={"kind": "channel"})
    assert _texts(_session(c)) == ["from a human"]


def test_reminder_spans_are_stripped_from_typed_blocks() -> None:
    c = Chain("s", "/p")
    c.user("use tabs\n<system-reminder>ctx</system-reminder>", parent=False)
    c.user("no emojis <user-prompt-submit-hook>hook said hi</user-prompt-submit-hook>")
    c.user("<user-prompt-submit-hook>only the hook</user-prompt-submit-hook>")
    assert _texts(_session(c)) == ["use tabs", "no emojis"]


def test_clarify_questions_text_is_not_a_reason() -> None:
    c = Chain("s", "/p")
    c.user("go", parent=False)
    c.tool("t1", "AskUserQuestion", {"questions": [{"question": "Q?", "options": [{"label": "a"}]}]})
    c.result("t1", DENIAL + "The user wants to clarify these questions. Ask again." + TRAILER,
             is_error=True)
    session = _session(c)
    assert _texts(session) == ["go"]
    assert [d.reason for d in session.denials] == [None]


def test_rejection_without_a_reason() -> None:
    c = Chain("s", "/p")
    c.user("go", parent=False)
    c.tool("t1", "Bash", {"command": "make"})
    c.result("t1", DENIAL + TRAILER.strip(), is_error=True, toolDenialKind="user-rejected")
    session = _session(c)
    assert [(d.kind, d.reason) for d in session.denials] == [("user-rejected", None)]
    assert _texts(session) == ["go"] and session.failures == ()


def test_interrupt_tool_result_is_not_a_failure() -> None:
    c = Chain("s", "/p")
    c.user("go", parent=False)
    c.tool("t1", "Bash", {"command": "sleep 100"})
    c.result("t1", "[Request interrupted by user for tool use]", is_error=True)
    assert _session(c).failures == ()


# ---------------------------------------------------------------- helpers


def test_answer_banner_parsing() -> None:
    content = ('Your questions have been answered: "A?"="x", "B?"="typed, with a comma" '
               "notes: a note. You can now continue with these answers in mind.")
    assert parse_answer_banner(content) == [("A?", "x", None), ("B?", "typed, with a comma", "a note")]
    assert parse_answer_banner("something else") == []


def test_multi_select_and_no_option_are_picks() -> None:
    from learn.transcripts.blocks import (
        Question,
        ToolResultBlock,
        ToolUseBlock,
    )

    call = ToolUseBlock(id="t", name="AskUserQuestion", input={"questions": [
        {"question": "Q?", "multiSelect": True, "options": [{"label": "a"}, {"label": "b"}]}]})
    assert call.questions == (Question(question="Q?", multi_select=True, labels=("a", "b")),)
    for answer, expected in [("a, b", []), ("(no option selected)", []), ("a, c", ["a, c"])]:
        result = ToolResultBlock(tool_use_id="t", tool_use_result={"answers": {"Q?": answer}})
        assert free_form_answers(result, call) == expected


@pytest.mark.parametrize(
    ("name", "tool_input", "summary"),
    [
        ("Bash", {"command": "git  status\n--short"}, "git status --short"),
        ("shell", {"command": ["bash", "-lc", "make test"]}, "make test"),
        ("shell", {"command": ["rg", "-n", "foo"]}, "rg -n foo"),
        ("exec_command", {"cmd": "ls"}, "ls"),
        ("Read", {"file_path": "/a/b.py", "limit": 10}, "/a/b.py"),
        ("Grep", {"pattern": "TODO", "head_limit": 5, "glob": {"x": 1}}, "pattern=TODO head_limit=5"),
        # One word past the value's length: gone whole, never cut in two (calls._one_line).
        ("WebFetch", {"url": "https://x/" + "y" * 100}, "url=…"),
        ("WebFetch", {"url": "https://x/a b " + "y" * 100}, "url=https://x/a b…"),
    ],
)
def test_summaries(name: str, tool_input: dict[str, Any], summary: str) -> None:
    assert summarize_call(name, tool_input) == summary


def test_subagent_transcript_has_no_human_turns() -> None:
    session = build_session(parse(FIXTURES / "claude_subagent.jsonl"))
    assert session.human_turns == () and session.tool_calls == ()
    assert session.turns == 2


# ---------------------------------------------------------------- evidence and context (issue 10)


def _on_branch(session: Session) -> list[str]:
    return [t.text for t in session.timeline if isinstance(t, HumanTurn)]


def test_a_late_tool_result_does_not_pick_the_branch() -> None:
    c = Chain("s", "/p")
    c.user("start the watcher", parent=False)
    early = c.tool("toolu_bg", "Bash", {"command": "watch make"})["uuid"]
    c.result("toolu_bg", "started")
    c.user("now fix the header")
    c.tool("toolu_e", "Edit", {"file_path": "/p/h.css"})
    c.result("toolu_e", "boom", is_error=True)
    c.result("toolu_late", "watcher exited", parent=early)  # appended late, parented early
    session = _session(c)
    assert _on_branch(session) == ["start the watcher", "now fix the header"]
    # The session's last tool failure (a child of the last conversation entry) stays in context.
    assert [f.tool_use_id for f in session.failures] == ["toolu_e"]


def test_a_compaction_summary_root_continues_before_it() -> None:
    # 1.0.x: no boundary line at all, the summary itself is a new root.
    c = Chain("s", "/p")
    c.user("one", parent=False)
    c.user("two")
    c.user("This session is being continued from a previous conversation that ran out of "
           "context.", parent=False)
    c.user("three")
    session = _session(c)
    assert _on_branch(session) == ["one", "two", "three"]


def test_queued_enqueue_is_evidence_and_merges_with_the_prompt_it_became() -> None:
    c = Chain("s", "/p")
    c.user("run the build", parent=False)
    c.tool("toolu_b", "Bash", {"command": "make"})
    queue = {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"}
    c.raw({**queue, "timestamp": "2026-11-20T09:02:30Z", "content": "use -j4"})
    c.raw({**queue, "timestamp": "2026-11-20T09:02:40Z", "content": "/compact"})
    c.raw({**queue, "timestamp": "2026-11-20T09:02:50Z", "content": "then the docs"})
    c.result("toolu_b", "built")
    c.user("then the docs")
    session = _session(c)
    assert [(t.text, t.origin, t.on_branch) for t in session.human_turns] == [
        ("run the build", "typed", True),
        ("use -j4", "queued", False),  # surfaced only inside a tool result, then removed
        ("then the docs", "typed", True),  # the enqueue copy merged into the prompt
    ]


def test_the_same_turns_under_new_uuids_count_once_and_their_calls_ran_once() -> None:
    c = Chain("s", "/p")
    for _ in range(2):
        c.user("resize the images", parent=False)
        c.tool("toolu_r", "Bash", {"command": "convert a.png"})
        c.result("toolu_r", "no such file", is_error=True)
    c.user("try with the full path")
    session = _session(c)
    assert _texts(session) == ["resize the images", "try with the full path"]
    assert [call.id for call in session.tool_calls] == ["toolu_r"]
    assert len(session.failures) == 1


def test_a_side_question_is_a_typed_turn_of_its_session() -> None:
    c = Chain("s", "/p")
    c.user("port the helpers", parent=False)
    c.user("keep the aliases")
    a = Chain("s", "/p")
    side = {"isSidechain": True, "agentId": "aside_question-0011223344556677"}
    a.user("port the helpers", parent=False, **side)  # the replayed parent turn
    a.user("<system-reminder>This is a side question from the user. You must answer this "
           "question directly.</system-reminder>\n\nwhich timezone is assumed?",
           timestamp="2026-11-20T09:01:30Z", **side)
    aside = parse("".join(json.dumps(line) + "\n" for line in a.lines).encode())
    buf = "".join(json.dumps(line) + "\n" for line in c.lines).encode()
    session = build_session(parse(buf), asides=[aside])
    assert [(t.text, t.origin, t.on_branch) for t in session.human_turns] == [
        ("port the helpers", "typed", True),
        ("which timezone is assumed?", "aside", False),
        ("keep the aliases", "typed", True),
    ]


def test_a_dequeued_prompt_is_read_from_its_line_not_its_enqueue() -> None:
    # The enqueue holds the paste placeholder, the user line the paste itself.
    c = Chain("s", "/p")
    c.user("start", parent=False)
    c.raw({"type": "queue-operation", "operation": "enqueue", "sessionId": "s",
           "timestamp": "2026-11-20T09:01:30Z", "content": "[Pasted text #1 +3 lines] fix this"})
    c.raw({"type": "queue-operation", "operation": "dequeue", "sessionId": "s",
           "timestamp": "2026-11-20T09:01:40Z"})
    c.user("line one\nline two\nline three fix this")
    assert _texts(_session(c)) == ["start", "line one\nline two\nline three fix this"]


@pytest.mark.parametrize("secret_line", [
    "psql " + "x" * 170 + " postgresql://deploy:Cut-Bash-Pw-1234567@db.example.com/app",
    "echo " + "y" * 180 + " ghp_a1B2c3D4e5F6g7H8i9J0a1B2c3D4e5F6g7H8",
])
def test_a_cut_never_leaves_part_of_a_secret(secret_line: str) -> None:
    """The view cuts a command before anything redacts it: the secret that straddles the
    cut is there whole (for the redactor) or not at all, never a piece of it."""
    from learn.transcripts.view.calls import excerpt, summarize_call

    secret = secret_line.rsplit(" ", 1)[1]
    for shown in (summarize_call("Bash", {"command": secret_line}),
                  summarize_call("mcp__db__query", {"dsn": secret, "q": "select 1"}),
                  excerpt("E " * 740 + secret + " tail")):
        # A cut keeps a secret's head and drops its tail: its head shown means it is whole.
        assert secret[:12] not in shown or secret in shown, shown[-60:]
