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


# ---------------------------------------------------------------- older and other shapes

BARE_ID = "0198aaaa-1111-7000-8000-000000000001"


def _jsonl(lines: list[dict]) -> bytes:  # type: ignore[type-arg]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _bare_rollout() -> bytes:
    """A bare-era rollout: header without type, state markers, unwrapped items, no timestamps."""
    return _jsonl([
        {"id": BARE_ID, "timestamp": "2025-08-20T10:00:00.000Z", "instructions": None,
         "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
         "text": "<environment_context>\n  <cwd>/home/u/legacy</cwd>\n</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
         "text": "<user_instructions>\nproject rules from AGENTS.md\n</user_instructions>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
         "text": "make the importer skip empty rows"}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "x"},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]})},
        {"type": "function_call_output", "call_id": "c1",
         "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}})},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
        {"record_type": "state"},
    ])


def test_bare_era_rollouts_are_read_without_session_meta() -> None:
    t = parse(_bare_rollout())
    assert t.provider == "codex" and t.skipped == {}
    users = [e for e in t.events if isinstance(e, UserEvent) and e.text and not e.meta.is_meta]
    # The prompt is the user-role message that is not the harness's context;
    # the context stays, as client-written (meta) entries.
    assert [u.text for u in users] == ["make the importer skip empty rows"]
    injected = [e for e in t.events if isinstance(e, UserEvent) and e.meta.is_meta]
    assert [e.text.split(">")[0] for e in injected] == ["<environment_context", "<user_instructions"]
    (typed,) = users
    assert typed.meta.session_id == BARE_ID
    assert typed.meta.cwd == "/home/u/legacy"  # from <environment_context>
    # No per-line timestamps: the header's stands in for them.
    assert typed.meta.timestamp.isoformat() == "2025-08-20T10:00:00+00:00"
    calls = [b for e in t.events if isinstance(e, AssistantEvent) for b in e.blocks
             if isinstance(b, ToolUseBlock)]
    assert [c.name for c in calls] == ["shell"]
    results = [b for e in t.events if isinstance(e, UserEvent) for b in e.blocks
               if isinstance(b, ToolResultBlock)]
    assert results[0].is_error and results[0].content == "1 failed"
    states = [e for e in t.events if isinstance(e, OtherEvent) and e.type == "state"]
    assert len(states) == 2


def test_flattened_records_read_as_if_wrapped() -> None:
    t = parse(_jsonl([
        {"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "id": SESSION,
         "cwd": "/home/u/flat", "cli_version": "0.120.0", "source": "cli"},
        {"timestamp": "2026-05-01T10:00:01Z", "type": "user_message", "message": "rename the module"},
        {"timestamp": "2026-05-01T10:00:02Z", "type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Renamed."}]},
    ]))
    assert t.provider == "codex" and t.skipped == {}
    [user] = [e for e in t.events if isinstance(e, UserEvent)]
    assert (user.text, user.meta.session_id, user.meta.cwd) == ("rename the module", SESSION, "/home/u/flat")
    assert [e.text for e in t.events if isinstance(e, AssistantEvent)] == ["Renamed."]


def test_zst_rollouts_decompress_in_memory(tmp_path: Path) -> None:
    import zstandard

    path = tmp_path / "rollout-2026-11-20T09-00-00-x.jsonl.zst"
    raw = ROLLOUT.read_bytes()
    half = raw.index(b"\n", len(raw) // 2) + 1
    # Two frames, as an appending writer leaves them.
    compress = zstandard.ZstdCompressor().compress
    first, second = compress(raw[:half]), compress(raw[half:])
    packed = first + second
    path.write_bytes(packed)
    t = parse(path)
    assert t.provider == "codex"
    assert t.events == parse(ROLLOUT).events
    assert path.read_bytes() == packed  # never rewritten
    # A file cut short: what decoded is read, the cut is one undecodable line.
    path.write_bytes(first + second[: len(second) // 2])
    cut = parse(path)
    assert cut.skipped == {"undecodable": 1}
    assert 0 < len(cut.events) < len(t.events)
    assert list(cut.events) == list(t.events)[: len(cut.events)]
    # Not zstd past the magic number: read as lines, the bad one counted, no exception.
    path.write_bytes(packed[:4] + b"not a frame at all")
    broken = parse(path)
    assert broken.skipped == {"undecodable": 1} and list(broken.events) == []


def test_subagent_rollouts_are_all_sidechain() -> None:
    lines = [json.loads(line) for line in ROLLOUT.read_text().splitlines() if line.strip()]
    lines[0]["payload"]["source"] = {"subagent": "review"}
    t = parse(_jsonl(lines))
    conv = [e for e in t.events if isinstance(e, UserEvent | AssistantEvent)]
    assert conv and all(e.meta.is_sidechain for e in conv)
    # The same rollout from a person's client is not.
    assert not any(e.meta.is_sidechain for e in parse(ROLLOUT).events
                   if isinstance(e, UserEvent | AssistantEvent))


def _rollout(*lines: bytes) -> bytes:
    meta = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
                       "payload": {"id": SESSION, "cwd": "/w"}}).encode()
    return b"\n".join([meta, *lines]) + b"\n"


def test_bookkeeping_lines_are_other_events_holding_the_whole_decoded_line() -> None:
    token = {"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg",
             "payload": {"type": "token_count", "info": {"total": [1, 2, {"a": None}]}}}
    state = {"record_type": "state"}
    t = parse(_rollout(json.dumps(token).encode(), json.dumps(state).encode()))
    events = list(t.events)
    assert events[1] == OtherEvent(type="event_msg", raw=token)
    assert events[2] == OtherEvent(type="state", raw=state)
    assert t.skipped == {}


def test_invalid_utf8_is_replaced_and_the_line_kept() -> None:
    reasoning = (b'{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":'
                 b'{"type":"reasoning","summary":"th\xffink"}}')
    reply = (b'{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":'
             b'{"type":"agent_message","message":"do\xfene"}}')
    t = parse(_rollout(reasoning, reply, b'["\xff"]', b'"\xff"'))
    other, assistant = list(t.events)[1:]
    assert isinstance(other, OtherEvent) and other.raw["payload"]["summary"] == "th\ufffdink"
    assert isinstance(assistant, AssistantEvent) and assistant.text == "do\ufffdne"
    # A line that is not an object with the bad bytes is undecodable, as it always was.
    assert t.skipped == {"undecodable": 2}


def test_lines_nested_too_deep_are_skipped_and_counted() -> None:
    deep = b"[" * 5000 + b"]" * 5000
    line = b'{"type":"response_item","payload":{"type":"reasoning","x":' + deep + b"}}"
    t = parse(_rollout(line))
    assert t.skipped == {"too_deep": 1} and len(t.events) == 1


def test_a_repeated_top_level_key_is_read_by_its_last_value() -> None:
    # Lines are decoded once, into dicts (codex/lines.read_line): a key written twice
    # is read by its last value, as any JSON reader keeps it. The typed decode before
    # refused a wrongly typed first `type` or `payload` and skipped the line as invalid.
    typed = (b'{"timestamp":"2026-01-01T00:00:01Z","type":5,"type":"event_msg",'
             b'"payload":[],"payload":{"type":"user_message","message":"hello"}}')
    t = parse(_rollout(typed))
    assert t.skipped == {}
    (user,) = [e for e in t.events if isinstance(e, UserEvent)]
    assert user.text == "hello"


def test_a_payload_whose_type_is_not_a_string_is_kept_and_the_file_read_on() -> None:
    # `"type": ["task_started"]` inside an event_msg: tested against a set of turn starts
    # it raised TypeError (unhashable) and the whole rollout was lost.
    odd = b"\n".join(json.dumps(
        {"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg",
         "payload": {"type": value, "message": "not a prompt"}}).encode()
        for value in (["task_started"], {"k": 1}, 7))
    after = json.dumps({"timestamp": "2026-01-01T00:00:02Z", "type": "event_msg",
                        "payload": {"type": "user_message", "message": "hello after"}}).encode()
    t = parse(_rollout(odd + b"\n" + after))
    assert t.skipped == {}
    assert [e.text for e in t.events if isinstance(e, UserEvent)] == ["hello after"]
    kept = [e for e in t.events if isinstance(e, OtherEvent) and e.type == "event_msg"]
    assert [e.raw["payload"]["type"] for e in kept][-3:] == [["task_started"], {"k": 1}, 7]
