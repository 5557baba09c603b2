"""Codex rollouts lower into the shared event model."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

from learn.transcripts import (
    AssistantEvent,
    FilterSpec,
    OtherEvent,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserEvent,
    parse,
)

ROLLOUT = Path(__file__).parent / "fixtures" / "shapes" / "codex_rollout.jsonl"
SESSION = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"


def test_provider_is_sniffed_from_content(tmp_path: Path) -> None:
    renamed = tmp_path / "whatever.jsonl"
    shutil.copy(ROLLOUT, renamed)
    assert parse(renamed).provider == "codex"
    assert parse(ROLLOUT.read_bytes()).provider == "codex"


def test_user_text_comes_from_event_msg_only() -> None:
    t = parse(ROLLOUT)
    assert t.skipped == {}
    users = [e for e in t.events if isinstance(e, UserEvent) and e.text]
    assert [u.text for u in users] == ["run the tests with uv"]
    (typed,) = users
    assert typed.blocks == (TextBlock("run the tests with uv"),)
    # The injected environment context and the response_item copy of the prompt
    # are not user turns.
    injected = [e for e in t.events if isinstance(e, OtherEvent) and e.type == "response_item"
                and e.raw["payload"].get("role") == "user"]
    assert len(injected) == 2
    assert typed.meta.session_id == SESSION
    assert typed.meta.cwd == "/home/u/proj/sub"  # turn_context overrides session_meta
    assert typed.meta.cc_version == "0.50.0"


def test_tool_calls_and_results() -> None:
    t = parse(ROLLOUT)
    calls = [b for e in t.events if isinstance(e, AssistantEvent) for b in e.blocks
             if isinstance(b, ToolUseBlock)]
    assert [(c.id, c.name) for c in calls] == [
        ("call_1", "shell"), ("call_2", "apply_patch"), ("call_3", "local_shell")]
    assert calls[0].input == {"command": ["bash", "-lc", "uv run pytest"], "workdir": "/home/u/proj"}
    assert calls[1].input == {"input": "*** Begin Patch\n*** End Patch"}
    assert calls[2].input == {"type": "exec", "command": ["ls"]}
    results = {b.tool_use_id: b for e in t.events if isinstance(e, UserEvent) for b in e.blocks
               if isinstance(b, ToolResultBlock)}
    assert results["call_1"].is_error and results["call_1"].content == "1 failed"
    assert not results["call_2"].is_error
    assert results["call_3"].is_error and "cannot access" in results["call_3"].content
    model = {e.model for e in t.events if isinstance(e, AssistantEvent)}
    assert model == {"gpt-5-codex"}


def test_assistant_reply_is_not_duplicated() -> None:
    t = parse(ROLLOUT)
    replies = [e.text for e in t.events if isinstance(e, AssistantEvent) and e.text]
    assert replies == ["Tests fail in test_db."]


def test_turn_aborted_is_an_interrupt() -> None:
    t = parse(ROLLOUT)
    interrupts = [e for e in t.events if isinstance(e, UserEvent) and e.interrupted]
    assert len(interrupts) == 1 and interrupts[0].text == ""


def test_parent_chain_links_lowered_events_in_order() -> None:
    t = parse(ROLLOUT)
    conv = [e for e in t.events if isinstance(e, UserEvent | AssistantEvent)]
    assert conv[0].meta.parent_uuid is None
    for prev, cur in itertools.pairwise(conv):
        assert cur.meta.parent_uuid == prev.meta.uuid
    uuids = [e.meta.uuid for e in conv]
    assert len(set(uuids)) == len(uuids)
    # Deterministic across parses.
    assert [e.meta.uuid for e in parse(ROLLOUT).events if isinstance(e, UserEvent | AssistantEvent)] \
        == uuids


def test_bad_codex_lines_are_counted(tmp_path: Path) -> None:
    data = ROLLOUT.read_bytes() + b"{oops\n[1]\n" + json.dumps(
        {"timestamp": "nope", "type": "event_msg",
         "payload": {"type": "user_message", "message": "x"}}).encode() + b"\n" + \
        json.dumps({"type": "event_msg"}).encode() + b"\n"
    t = parse(data)
    assert t.provider == "codex"
    assert t.skipped == {"undecodable": 1, "not_object": 1, "invalid": 2}


def test_filter_drops_codex_other_events() -> None:
    t = parse(ROLLOUT, drop=FilterSpec(types=frozenset({"event_msg", "response_item"})))
    kinds = {e.type for e in t.events if isinstance(e, OtherEvent)}
    assert kinds == {"session_meta", "turn_context", "compacted"}
    assert any(isinstance(e, UserEvent) for e in t.events)


def test_blank_lines_are_silent_and_keep_line_numbers() -> None:
    raw = ROLLOUT.read_bytes()
    lines = raw.split(b"\n")
    # Whitespace-only lines between entries (vertical tab and form feed too):
    # not skips, and the synthesized "<session>:<line>" uuids still name the
    # physical line, so they shift by exactly the lines inserted.
    padded = lines[0] + b"\n \x0b\x0c\r\n\t\n" + b"\n".join(lines[1:])
    before = [e.meta.uuid for e in parse(raw).events if isinstance(e, UserEvent | AssistantEvent)]
    t = parse(padded)
    after = [e.meta.uuid for e in t.events if isinstance(e, UserEvent | AssistantEvent)]
    assert t.skipped == {}
    assert after == [f"{u.rsplit(':', 1)[0]}:{int(u.rsplit(':', 1)[1]) + 2}" for u in before]
    other = [e for e in t.events if isinstance(e, OtherEvent)]
    assert other and all(isinstance(e.raw, dict) and e.raw.get("type") for e in other)
