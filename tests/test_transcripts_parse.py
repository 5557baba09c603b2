"""One fixture line per Claude Code entry shape, parsed and checked field by field."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from learn.transcripts import (
    ApiError,
    AssistantEvent,
    AsyncHookResponse,
    AttachmentEvent,
    Attribution,
    CacheCreation,
    CompactBoundary,
    EventList,
    FallbackBlock,
    HookAdditionalContext,
    HookBlockingError,
    HookCancelled,
    HookInfo,
    HookNonBlockingError,
    HookSuccess,
    ModeEvent,
    ModelRefusalFallback,
    OtherAttachment,
    OtherBlock,
    OtherEvent,
    OtherSystemDetail,
    PreservedMessages,
    PreservedSegment,
    Question,
    QueuedCommand,
    ServerToolUse,
    StopHookSummary,
    SystemEvent,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    TurnDuration,
    Usage,
    UserEvent,
    parse,
    parse_event,
    parse_events,
    thinking_chars,
    tool_uses,
)
from learn.transcripts.claude.literals import (
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
    denial_reason,
    is_interrupt_text,
)

SHAPES = Path(__file__).parent / "fixtures" / "shapes" / "claude_shapes.jsonl"


@pytest.fixture(scope="module")
def events() -> dict[str, object]:
    transcript = parse(SHAPES)
    assert transcript.provider == "claude"
    assert transcript.skipped == {}
    assert transcript.skipped_lines == 0
    by_key: dict[str, object] = {}
    for i, event in enumerate(transcript.events):
        meta = getattr(event, "meta", None)
        by_key[meta.uuid if meta is not None else f"#{i}"] = event
    return by_key


def test_every_line_becomes_an_event() -> None:
    transcript = parse(SHAPES)
    lines = [ln for ln in SHAPES.read_bytes().split(b"\n") if ln.strip()]
    assert len(transcript.events) == len(lines)
    assert transcript.path == SHAPES
    assert transcript.mtime == SHAPES.stat().st_mtime
    assert transcript.size_bytes == SHAPES.stat().st_size


def test_user_prompt_envelope(events: dict[str, object]) -> None:
    e = events["u1"]
    assert isinstance(e, UserEvent)
    m = e.meta
    assert m.uuid == "u1" and m.parent_uuid is None and m.session_id == "sess-0001"
    assert m.timestamp == datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    assert (m.cwd, m.git_branch, m.cc_version, m.entrypoint) == ("/home/u/proj", "main", "2.1.3", "cli")
    assert (m.user_type, m.slug) == ("external", "quiet-river")
    assert not (m.is_sidechain or m.is_meta or m.is_compact_summary or m.is_visible_in_transcript_only)
    assert e.text == "please use uv, never pip"
    assert e.blocks == (TextBlock("please use uv, never pip"),)
    assert (e.prompt_id, e.prompt_source, e.permission_mode, e.origin_kind) == (
        "p-1", "typed", "default", "human")
    assert not e.interrupted and not e.is_agent_injected


def test_assistant_blocks_usage_attribution(events: dict[str, object]) -> None:
    e = events["a1"]
    assert isinstance(e, AssistantEvent)
    assert e.meta.parent_uuid == "u1"
    assert e.model == "claude-opus-4-5" and e.stop_reason == "tool_use"
    assert e.request_id == "req_1" and e.message_id == "msg_1"
    assert e.attribution == Attribution(skill="python-dev")
    assert e.api_error is None
    assert e.text == "I'll edit the file."
    assert e.blocks[0] == ThinkingBlock("Let me think.")
    assert e.blocks[1] == TextBlock("I'll edit the file.")
    tool = e.blocks[2]
    assert isinstance(tool, ToolUseBlock)
    assert (tool.id, tool.name, tool.file_path) == ("toolu_1", "Edit", "/home/u/proj/a.py")
    assert tool.input["new_string"] == "b"
    assert tool.questions is None
    assert e.usage == Usage(10, 20, 30, 40, CacheCreation(15, 25), "standard", "us", ServerToolUse(1, 2))
    assert tool_uses(e) == (tool,)
    assert thinking_chars(e) == len("Let me think.")


def test_legacy_denial_banner_is_user_rejected(events: dict[str, object]) -> None:
    e = events["u2"]
    assert isinstance(e, UserEvent)
    assert e.text == ""
    assert e.source_tool_assistant_uuid == "a1"
    (block,) = e.blocks
    assert isinstance(block, ToolResultBlock)
    assert block.is_error and block.denial_kind == DENIAL_KIND_USER_REJECTED
    assert block.tool_use_result == "User rejected tool use"
    assert not block.is_async
    assert denial_reason(block.content) == "don't touch a.py, edit b.py"


def test_record_level_denial_kind_and_list_content(events: dict[str, object]) -> None:
    e = events["u3"]
    assert isinstance(e, UserEvent)
    (block,) = e.blocks
    assert isinstance(block, ToolResultBlock)
    assert block.content == "Blocked by hook: no rm -rf"
    assert block.denial_kind == DENIAL_KIND_PERMISSION_RULE
    assert block.is_async is True
    # The keys learn reads; the rest of the tool's outcome is skipped, not decoded.
    assert block.tool_use_result == {"isAsync": True}
    assert e.source_tool_use_id == "toolu_9"


def test_interrupts(events: dict[str, object]) -> None:
    marker = events["u4"]
    by_id = events["u5"]
    assert isinstance(marker, UserEvent) and isinstance(by_id, UserEvent)
    assert marker.interrupted and marker.interrupted_message_id is None
    assert by_id.interrupted and by_id.interrupted_message_id == "msg_1"
    assert by_id.text == "stop, wrong file"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[Request interrupted by user]", True),
        ("  \n[Request interrupted by user for tool use]", True),
        ("[Request Interrupted by user]", True),
        ("he said [Request interrupted by user] earlier", False),
        ("[request interrupted by user]", False),
        ("", False),
    ],
)
def test_interrupt_marker_is_anchored(text: str, expected: bool) -> None:
    assert is_interrupt_text(text) is expected
    event = parse_event(_user_line("ix", text))
    assert isinstance(event, UserEvent)
    assert event.interrupted is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<teammate-message from="x">hi</teammate-message>', True),
        ("<scheduled-task>nightly</scheduled-task>", True),
        ("# Augment Agent\nstuff", True),
        ("[Role Reminder] be terse", True),
        ("Another Claude session sent a message: hi", True),
        ("<agent-message>x</agent-message>", True),
        ("<cross-session-message>x", True),
        ("please review the <agent-message> tag handling", False),
        ("use uv", False),
    ],
)
def test_agent_injection(text: str, expected: bool) -> None:
    event = parse_event(_user_line("ai", text))
    assert isinstance(event, UserEvent)
    assert event.is_agent_injected is expected


def test_meta_compact_sidechain_flags(events: dict[str, object]) -> None:
    e = events["u7"]
    assert isinstance(e, UserEvent)
    m = e.meta
    assert m.is_meta and m.is_compact_summary and m.is_visible_in_transcript_only and m.is_sidechain
    assert m.agent_id == "agent-7"


def test_unknown_user_block_and_paste_ids(events: dict[str, object]) -> None:
    e = events["u8"]
    assert isinstance(e, UserEvent)
    assert e.text == "look at this"
    assert e.blocks[0] == TextBlock("look at this")
    other = e.blocks[1]
    assert isinstance(other, OtherBlock) and other.type == "image"
    assert other.raw["source"]["data"] == "AAAA"
    assert e.image_paste_ids == (1, 2)
    assert e.queue_priority == "next" and e.mcp_meta == {"k": "v"}


def test_fallback_other_block_questions_api_error(events: dict[str, object]) -> None:
    e = events["a2"]
    assert isinstance(e, AssistantEvent)
    assert e.model == "<synthetic>" and e.usage is None and e.stop_reason is None
    assert e.blocks[0] == FallbackBlock("claude-opus-4-5", "claude-sonnet-4-5")
    assert e.blocks[1] == OtherBlock("redacted_thinking", {"type": "redacted_thinking", "data": "xyz"})
    ask = e.blocks[2]
    assert isinstance(ask, ToolUseBlock)
    assert ask.questions == (Question("Which DB?", "DB", False, ("sqlite", "postgres")),)
    assert e.api_error == ApiError("rate_limit", 429, "slow down")
    assert e.forked_from == "msg_0"
    assert e.attribution is None


def test_system_details(events: dict[str, object]) -> None:
    s1, s2, s3, s4, s5 = (events[k] for k in ("s1", "s2", "s3", "s4", "s5"))
    assert isinstance(s1, SystemEvent) and s1.subtype == "stop_hook_summary"
    assert s1.level == "suggestion"
    assert s1.detail == StopHookSummary(
        hook_count=2,
        hook_infos=(HookInfo("ruff check", 120), HookInfo("pytest", None)),
        hook_errors=("boom",),
        hook_additional_context=("ctx",),
        prevented_continuation=True,
        stop_reason="hook said no",
        has_output=True,
        tool_use_id="toolu_1",
    )
    assert isinstance(s2, SystemEvent) and s2.content == "Conversation compacted"
    assert s2.meta.parent_uuid is None
    assert s2.detail == CompactBoundary(
        trigger="auto", pre_tokens=150000, post_tokens=9000, duration_ms=5000,
        cumulative_dropped_tokens=141000, pre_compact_discovered_tools=("Read", "Edit"),
        preserved_segment=PreservedSegment("u1", "u2", "u3"),
        preserved_messages=PreservedMessages("u2", ("u2", "u3"), ("u1", "u2", "u3")),
        logical_parent_uuid="s1", precomputed=False,
    )
    assert isinstance(s3, SystemEvent)
    assert s3.detail == TurnDuration(3000, 4, 0, 1)
    assert isinstance(s4, SystemEvent)
    assert s4.detail == ModelRefusalFallback(
        "cyber", "nope", "refusal", "down", "claude-opus-4-5", "claude-sonnet-4-5", ("a2",), "u8")
    assert isinstance(s5, SystemEvent) and isinstance(s5.detail, OtherSystemDetail)
    assert s5.detail.raw["subtype"] == "local_command"
    assert s5.detail.raw["uuid"] == "s5"
    assert s5.content == "<command-name>/clear</command-name>"


def test_mode_events() -> None:
    modes = [e for e in parse(SHAPES).events if isinstance(e, ModeEvent)]
    assert modes == [
        ModeEvent("sess-0001", "mode", "plan"),
        ModeEvent("sess-0001", "permission-mode", "acceptEdits"),
    ]


def test_attachments(events: dict[str, object]) -> None:
    details = {k: events[k] for k in ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")}
    for event in details.values():
        assert isinstance(event, AttachmentEvent)
        assert event.meta.parent_uuid == "s5"
    t = {k: v.detail for k, v in details.items()}  # type: ignore[attr-defined]
    assert t["t1"] == HookSuccess("PostToolUse:Bash", "PostToolUse", "toolu_1", "echo ok", "ok ctx",
                                  "ok", "", 0, 12)
    assert t["t2"] == HookBlockingError("PreToolUse:Bash", "PreToolUse", "toolu_2",
                                        {"blockingError": "no", "command": "guard.sh"})
    assert t["t3"] == HookNonBlockingError("Stop", "Stop", None, "lint.sh", "", "err", 1, 40)
    assert t["t4"] == HookCancelled("Stop", "Stop", None, "slow.sh", 60000, True, 60000)
    assert t["t5"] == HookAdditionalContext("SessionStart", "SessionStart", None,
                                            ("line one", "line two"))
    assert t["t6"] == AsyncHookResponse("PostToolUse", "PostToolUse", "p-9", "done", "", 0,
                                        {"ok": True})
    assert t["t7"] == QueuedCommand("also run the tests", "prompt", "human")
    assert isinstance(t["t8"], OtherAttachment)
    assert t["t8"].raw["attachment"]["skillCount"] == 1
    assert details["t8"].attachment_type == "skill_listing"  # type: ignore[attr-defined]


def test_other_entry_types_keep_raw() -> None:
    others = [e for e in parse(SHAPES).events if isinstance(e, OtherEvent)]
    assert [o.type for o in others] == [
        "summary", "file-history-snapshot", "queue-operation", "ai-title", "last-prompt", "progress"]
    assert others[0].raw == {"type": "summary", "summary": "Fixing DB", "leafUuid": "a2"}
    assert others[2].raw["content"] == "queued text"


def test_round_trip_through_parse_events_matches_file() -> None:
    mappings = [json.loads(ln) for ln in SHAPES.read_text().splitlines() if ln.strip()]
    assert parse_events(*mappings) == list(parse(SHAPES).events)


def test_parse_event_rejects_malformed() -> None:
    with pytest.raises(ValueError, match="invalid"):
        parse_event({"type": "user", "message": {"content": "x"}})
    with pytest.raises(ValueError):
        parse_event({"no": "type"})


def test_models_are_immutable_with_structural_equality() -> None:
    a = parse_event(_user_line("x", "hello"))
    b = parse_event(_user_line("x", "hello"))
    assert isinstance(a, UserEvent)
    assert a == b and a is not b
    assert a != parse_event(_user_line("x", "hello!"))
    with pytest.raises(AttributeError):
        a.text = "changed"  # type: ignore[misc]


def test_eventlist_sequence_protocol() -> None:
    events = parse(SHAPES).events
    as_list = list(events)
    assert isinstance(events, EventList)
    assert events == as_list and events == tuple(as_list) and as_list == events
    assert events[0] == as_list[0] and events[-1] == as_list[-1]
    assert events[2:5] == as_list[2:5] and isinstance(events[2:5], list)
    assert list(reversed(events)) == as_list[::-1]
    assert as_list[3] in events
    assert events.index(as_list[3]) == 3 and events.count(as_list[3]) == 1
    copy = events.copy()
    assert copy == as_list and copy is not as_list
    copy.pop()
    assert len(events) == len(as_list)
    assert events != as_list[:-1]
    with pytest.raises(IndexError):
        events[len(as_list)]
    with pytest.raises(TypeError):
        hash(events)


def _user_line(uuid: str, text: str) -> dict[str, object]:
    return {
        "type": "user", "uuid": uuid, "parentUuid": None, "sessionId": "s",
        "timestamp": "2026-01-05T10:00:00Z", "message": {"role": "user", "content": text},
    }
