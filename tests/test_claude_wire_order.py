"""The wire Structs declare their fields in the order Claude Code writes the keys
(`claude/wire.py`), and a tool result's usual content shapes are flattened without a
join (`claude/events._user`): neither may change an event. A line whose keys come in
any other order decodes to the same events, and every shape of a tool result's
content flattens as the join did."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from learn.transcripts import AssistantEvent, SystemEvent, ToolResultBlock, UserEvent, parse
from learn.transcripts.claude.wire import AssistantW, Env, SystemW, UserW

ENVELOPE: dict[str, Any] = {
    "parentUuid": "p0", "isSidechain": False, "userType": "external", "cwd": "/w",
    "sessionId": "s1", "version": "2.1.0", "gitBranch": "main", "entrypoint": "cli",
    "slug": "a-slug", "agentId": "ag", "isMeta": True, "isCompactSummary": False,
    "isVisibleInTranscriptOnly": True,
    "forkedFrom": {"sessionId": "s0", "messageUuid": "m0"},
}
LINES: list[dict[str, Any]] = [
    {**ENVELOPE, "type": "user", "promptId": "pr", "promptSource": "typed",
     "queuePriority": "now", "imagePasteIds": [1, 2], "sourceToolUseID": "t0",
     "sourceToolAssistantUUID": "a0", "mcpMeta": {"k": 1}, "permissionMode": "plan",
     "interruptedMessageId": "msg0", "origin": {"kind": "human"},
     "toolDenialKind": "permission-rule",
     "toolUseResult": {"isAsync": True, "answers": {"q": "a"}, "stdout": "x"},
     "message": {"role": "user", "content": [
         {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "no"},
         {"type": "text", "text": "and this"}]},
     "uuid": "u1", "timestamp": "2026-01-09T05:23:34Z"},
    {**ENVELOPE, "type": "assistant", "requestId": "rq",
     "attributionPlugin": "pl", "attributionSkill": "sk", "attributionMcpServer": "ms",
     "attributionMcpTool": "mt", "isApiErrorMessage": True, "error": {"type": "overloaded"},
     "apiErrorStatus": 529, "errorDetails": {"d": 1},
     "message": {"id": "msg1", "type": "message", "role": "assistant", "model": "m",
                 "content": [{"type": "thinking", "thinking": "hm", "signature": "x"},
                             {"type": "text", "text": "ok"},
                             {"type": "tool_use", "id": "t2", "name": "Read",
                              "input": {"file_path": "/w/a"}}],
                 "stop_reason": "tool_use",
                 "usage": {"input_tokens": 3, "output_tokens": 4}},
     "uuid": "u2", "timestamp": "2026-01-09T05:23:35Z"},
    {**ENVELOPE, "type": "system", "subtype": "informational", "level": "info",
     "content": "note", "uuid": "u3", "timestamp": "2026-01-09T05:23:36Z"},
]


def _events(lines: list[dict[str, Any]]) -> list[object]:
    return list(parse(b"\n".join(msgspec.json.encode(line) for line in lines)).events)


def test_every_field_is_read_whatever_the_order_of_the_keys() -> None:
    written = _events(LINES)
    assert [type(e) for e in written] == [UserEvent, AssistantEvent, SystemEvent]
    user = written[0]
    assert isinstance(user, UserEvent)
    assert (user.meta.slug, user.meta.agent_id, user.meta.copied_from) == ("a-slug", "ag", "s0")
    assert (user.prompt_id, user.source_tool_assistant_uuid, user.origin_kind) == (
        "pr", "a0", "human")
    assert user.blocks[0] == ToolResultBlock(
        "t1", "no", True, True, {"isAsync": True, "answers": {"q": "a"}}, "permission-rule")
    assert user.text == "and this"
    assistant = written[1]
    assert isinstance(assistant, AssistantEvent)
    assert (assistant.message_id, assistant.request_id, assistant.stop_reason) == (
        "msg1", "rq", "tool_use")
    rng = random.Random(32)
    for _ in range(20):
        shuffled = []
        for line in LINES:
            items = list(line.items())
            rng.shuffle(items)
            message = dict(items).get("message")
            if isinstance(message, dict):
                inner = list(message.items())
                rng.shuffle(inner)
                items = [(k, dict(inner) if k == "message" else v) for k, v in items]
            shuffled.append(dict(items))
        assert _events(shuffled) == written


@pytest.mark.parametrize("wire", [UserW, AssistantW, SystemW])
def test_uuid_and_timestamp_lead_and_message_ends(wire: type[Env]) -> None:
    # The order the lookup relies on: after a subclass's last field it wraps round to
    # uuid, which Claude Code writes after `message` (wire.py).
    fields = wire.__struct_fields__
    assert fields[:2] == ("uuid", "timestamp")
    if wire is not SystemW:
        assert fields[-1] == "message"


@pytest.mark.parametrize(("content", "flat"), [
    ("plain", "plain"),
    (None, ""),
    ([{"type": "text", "text": "one"}], "one"),
    ([{"type": "text", "text": 7}], ""),
    ([{"type": "image", "source": {}}], ""),
    ([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}], "ab"),
    ([], ""),
])
def test_a_tool_results_content_flattens_as_before(content: Any, flat: str) -> None:
    line = {**ENVELOPE, "type": "user", "uuid": "u1", "timestamp": "2026-01-09T05:23:34Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": content}]}}
    (event,) = _events([line])
    assert isinstance(event, UserEvent)
    block = event.blocks[0]
    assert isinstance(block, ToolResultBlock) and block.content == flat
