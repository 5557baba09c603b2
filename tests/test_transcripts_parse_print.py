"""`claude -p --output-format json` payloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn.transcripts import (
    InitInfo,
    McpServer,
    ModelUsage,
    Plugin,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    parse_print_result,
)

FIX = Path(__file__).parent / "fixtures" / "shapes"


def test_single_result_object() -> None:
    r = parse_print_result((FIX / "print_result_single.json").read_bytes())
    assert r.session_id == "ps-1" and r.subtype == "success"
    assert r.total_cost_usd == pytest.approx(0.0123)
    assert r.num_turns == 2 and not r.is_error and r.result == "done"
    assert r.usage.input_tokens == 5 and r.usage.cache_read_input_tokens == 100
    assert r.model_usage == {"claude-sonnet-4-5": ModelUsage(5, 7, 100, 50, 0, 0.0123, 200000, 64000)}
    assert r.structured_output == {"candidates": [{"kind": "directive", "text": "use uv"}]}
    assert r.permission_denials[0]["tool_name"] == "Bash"
    assert (r.stop_reason, r.fast_mode_state) == ("end_turn", "off")
    assert r.init is None and r.messages == ()


def test_array_form_with_init_and_messages() -> None:
    r = parse_print_result((FIX / "print_result_array.json").read_bytes())
    assert r.init == InitInfo(
        mcp_servers=(McpServer("github", "connected"),),
        plugins=(Plugin("learn", "/p/learn", "local"),),
        tools=("Bash", "Read"), skills=("python-dev",), model="claude-sonnet-4-5",
    )
    first, second = r.messages
    assert first.role == "assistant" and first.id == "msg_p1" and first.uuid == "m-1"
    assert first.text == "Hello" and first.model == "claude-sonnet-4-5"
    assert first.blocks == (TextBlock("Hello"), ToolUseBlock("toolu_p", "Bash", {"command": "ls"}))
    assert first.usage == Usage(1, 2, 0, 0)
    assert second.role == "user" and second.session_id == "ps-1"
    assert second.blocks == (ToolResultBlock("toolu_p", "a.py"),)
    assert r.structured_output is not None and r.result == "done"


def test_stream_json_ndjson() -> None:
    elements = json.loads((FIX / "print_result_array.json").read_bytes())
    ndjson = b"\n".join(json.dumps(e).encode() for e in elements)
    assert parse_print_result(ndjson) == parse_print_result(
        (FIX / "print_result_array.json").read_bytes())


def test_error_result_and_legacy_cost() -> None:
    r = parse_print_result(json.dumps({
        "type": "result", "subtype": "error_max_turns", "is_error": True, "session_id": "x",
        "cost_usd": 0.5, "errors": ["too many turns"], "num_turns": 9}).encode())
    assert r.is_error and r.subtype == "error_max_turns" and r.errors == ("too many turns",)
    assert r.total_cost_usd == 0.5 and r.structured_output is None and r.result is None


@pytest.mark.parametrize("raw", [b"", b"not json", b"42", b"[]", b'[{"type":"system"}]'])
def test_bad_payloads_raise_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        parse_print_result(raw)
