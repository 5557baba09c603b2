"""Format drift: a prompt sent mid-turn as content blocks (learn.transcripts.claude.entry_details).

Claude Code 2.1.241 on records a message the person sends while the agent works as a
`queued_command` attachment whose `prompt` is a list of content blocks (text, and any
image pasted with it), beside `source_uuid`, `delivery_id` and `humanTurn`; seen in
2.1.241 to 2.1.280 transcripts, a dozen in one session. The prompt was read only as a
string, so each such message was lost, unless a `queue-operation` enqueue still held a
copy. Fixtures written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"


def _line(uuid: str, parent: str | None, second: int, **fields: object) -> bytes:
    entry = {"parentUuid": parent, "isSidechain": False, "userType": "external",
             "entrypoint": "cli", "cwd": "/srv/dock", "sessionId": SID, "version": "2.1.241",
             "gitBranch": "main", "uuid": uuid,
             "timestamp": f"2026-11-20T09:00:{second:02d}.000Z", **fields}
    return json.dumps(entry).encode()


def _queued(uuid: str, parent: str, second: int, blocks: list[dict[str, object]],
            origin: str = "human") -> bytes:
    return _line(uuid, parent, second, type="attachment", attachment={
        "type": "queued_command", "prompt": blocks, "source_uuid": f"src-{uuid}",
        "delivery_id": f"d-{uuid}", "commandMode": "prompt", "origin": {"kind": origin},
        "timestamp": f"2026-11-20T09:00:{second - 1:02d}.000Z", "humanTurn": origin == "human"})


OPENING = _line("u1", None, 0, type="user", promptSource="typed", origin={"kind": "human"},
                message={"role": "user", "content": "move the crane config to toml"})
CALL = _line("a1", "u1", 2, type="assistant", message={
    "model": "claude-x", "id": "m1", "role": "assistant",
    "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]})
RESULT = _line("r1", "a1", 3, type="user", message={
    "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]})


def _turns(lines: list[bytes]) -> list[tuple[str, str]]:
    transcript = parse_buffer(b"\n".join(lines) + b"\n",
                              path=Path(f"/h/.claude/projects/-d/{SID}.jsonl"))
    return [(t.origin, t.text) for t in build_session(transcript).human_turns]


def test_a_prompt_queued_as_blocks_is_a_queued_turn() -> None:
    turns = _turns([OPENING, CALL, RESULT,
                    _queued("q1", "r1", 5, [{"type": "text", "text": "keep the yaml loader too"}]),
                    _queued("q2", "q1", 7, [
                        {"type": "text", "text": "and this layout is off"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                     "data": "iVBORw0KGgo="}}])])
    assert turns == [("typed", "move the crane config to toml"),
                     ("queued", "keep the yaml loader too"),
                     ("queued", "and this layout is off")]


def test_blocks_queued_by_anyone_else_stay_out_and_an_enqueue_copy_is_one_turn() -> None:
    enqueue = json.dumps({"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
                          "timestamp": "2026-11-20T09:00:04.000Z",
                          "content": "keep the yaml loader too"}).encode()
    remove = json.dumps({"type": "queue-operation", "operation": "remove", "sessionId": SID,
                         "timestamp": "2026-11-20T09:00:05.000Z"}).encode()
    turns = _turns([OPENING, CALL, RESULT, enqueue, remove,
                    _queued("q1", "r1", 6, [{"type": "text", "text": "keep the yaml loader too"}]),
                    _queued("q2", "q1", 8, [{"type": "text", "text": "peer says hello"}], "peer")])
    assert turns == [("typed", "move the crane config to toml"),
                     ("queued", "keep the yaml loader too")]
