"""Format drift: Codex code mode's `exec` scripts (learn.transcripts.codex.code_mode).

From 0.156 a Codex turn may run its shell commands from JavaScript: a `custom_tool_call`
named `exec` whose input calls `tools.exec_command({cmd: ...})`, answered by a
`custom_tool_call_output` whose output is a list of text items opening with `Script
completed` / `Script failed`. Read as any custom call, no command was seen to run and a
failed script was a success with its output list written out as JSON. Fixtures written
for this test, in the shapes of 0.156.1 rollouts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from learn.transcripts.codex.code_mode import code_mode_call, code_mode_output
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "019b2c3d-4e5f-7a60-8b1c-2d3e4f5a6b7c"


def _line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-11-20T09:00:{second:02d}.000Z", "type": kind,
            "payload": payload}


def _session() -> Any:
    lines = [
        _line(0, "session_meta", {"id": SID, "cwd": "/srv/mill", "originator": "codex-tui",
                                  "cli_version": "0.156.1", "source": "cli"}),
        _line(1, "turn_context", {"turn_id": "t1", "model": "gpt-x", "cwd": "/srv/mill"}),
        _line(2, "event_msg", {"type": "user_message", "message": "run the mill checks"}),
        _line(3, "response_item", {
            "type": "custom_tool_call", "call_id": "c1", "name": "exec", "status": "completed",
            "input": 'const r = await tools.exec_command({"cmd":"make verify",'
                     '"workdir":"/srv/mill"}); text(r.output);'}),
        _line(4, "response_item", {
            "type": "custom_tool_call_output", "call_id": "c1", "output": [
                {"type": "input_text", "text": "Script failed\nWall time 0.4 seconds\nOutput:\n"},
                {"type": "input_text", "text": "Script error:\nmake: no rule to make verify"}]}),
        _line(5, "response_item", {
            "type": "custom_tool_call", "call_id": "c2", "name": "exec",
            "input": "text(await tools.exec_command({cmd:'pytest -q tests/mill',"
                     "max_output_tokens:1000}));"}),
        _line(6, "response_item", {
            "type": "custom_tool_call_output", "call_id": "c2", "output": [
                {"type": "input_text", "text": "Script completed\nWall time 2.0 seconds\nOutput:\n"},
                {"type": "input_text", "text": "9 passed"}]}),
        _line(7, "response_item", {
            "type": "custom_tool_call", "call_id": "c3", "name": "exec",
            "input": 'const r = await tools.exec_command({cmd:"ruff check ."});'
                     " text(JSON.stringify(r));"}),
        _line(8, "response_item", {
            "type": "custom_tool_call_output", "call_id": "c3", "output": [
                {"type": "input_text", "text": "Script completed\nWall time 0.2 seconds\nOutput:\n"
                                               '{"chunk_id":"a1","exit_code":1,'
                                               '"output":"E501 line too long"}'}]}),
    ]
    buf = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    path = Path(f"/h/.codex/sessions/2026/11/20/rollout-2026-11-20T09-00-00-{SID}.jsonl")
    return build_session(parse_buffer(buf, path=path))


def test_the_commands_a_script_runs_are_the_calls_commands() -> None:
    session = _session()
    assert [c.summary for c in session.tool_calls] == [
        "make verify", "pytest -q tests/mill", "ruff check ."]
    assert session.tool_calls[0].input["workdir"] == "/srv/mill"


def test_a_failed_script_or_a_nonzero_exit_is_a_failure_with_what_it_printed() -> None:
    failures = {f.tool_use_id: f.excerpt for f in _session().failures}
    assert set(failures) == {"c1", "c3"}
    assert failures["c1"].startswith("Script error:\nmake: no rule")
    assert "Wall time" not in failures["c1"] and "input_text" not in failures["c1"]


def test_other_custom_calls_and_outputs_are_left_to_the_general_reading() -> None:
    assert code_mode_call("apply_patch", "*** Begin Patch") is None
    assert code_mode_call("exec", "const x = await tools.web__run({q: 'x'});") is None
    assert code_mode_call("exec", "await tools.exec_command({cmd: command});") is None
    assert code_mode_output("plain text") is None
    assert code_mode_output([{"type": "input_text", "text": "done"}]) is None
    several = code_mode_call("exec", 'await tools.exec_command({cmd:"a"}); '
                                     "await tools.exec_command({cmd:'b \\'c\\''});")
    assert several is not None and several["cmd"] == "a; b 'c'"
