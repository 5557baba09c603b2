"""Format drift: one Claude Code line holding two records (learn.transcripts.claude.decode, 5).

Two writers appending to one transcript at once splice records (anthropics/claude-code
#81843: 24 of 30 bad lines in ~10,949 transcripts, 2026-01 to 2026-07, 2.1.x): a record
cut mid-content with the next whole record right after it on the same line (21), or two
whole records with no newline between (3). The whole line was counted undecodable, and the
whole record after the cut, here a typed prompt, went with it. Fixtures written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts import OtherEvent, UserEvent
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "0c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f"
PATH = Path(f"/h/.claude/projects/-w/{SID}.jsonl")


def _entry(uuid: str, parent: str | None, at: str, **fields: object) -> bytes:
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": "/w", "sessionId": SID, "version": "2.1.190",
            "gitBranch": "main", "uuid": uuid, "timestamp": at, **fields}
    return json.dumps(line, separators=(",", ":")).encode()


def _prompt(uuid: str, parent: str | None, at: str, text: str) -> bytes:
    return _entry(uuid, parent, at, type="user", message={"role": "user", "content": text})


def _reply(uuid: str, parent: str, at: str, text: str) -> bytes:
    return _entry(uuid, parent, at, type="assistant",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": text}]})


OPENING = _prompt("u1", None, "2026-11-20T09:00:00.000Z", "rename the kiln module to oven")
REPLY = _reply("a1", "u1", "2026-11-20T09:00:05.000Z", "Renamed, and the imports follow.")
NEXT = _prompt("u2", "a1", "2026-11-20T09:02:00.000Z", "also update the docs index")


def _typed(buf: bytes) -> list[str]:
    return [t.text for t in build_session(parse_buffer(buf, path=PATH)).human_turns]


def test_a_whole_record_after_a_cut_one_on_its_line_is_read() -> None:
    buf = b"\n".join([OPENING, REPLY[:70] + NEXT]) + b"\n"
    transcript = parse_buffer(buf, path=PATH)
    assert _typed(buf) == ["rename the kiln module to oven", "also update the docs index"]
    assert transcript.skipped == {"undecodable": 1}  # the cut reply, counted


def test_two_whole_records_without_a_newline_are_both_read_in_order() -> None:
    buf = b"\n".join([OPENING, REPLY + NEXT]) + b"\n"
    transcript = parse_buffer(buf, path=PATH)
    assert transcript.skipped == {}
    assert [e.meta.uuid for e in transcript.events
            if not isinstance(e, OtherEvent)] == ["u1", "a1", "u2"]
    assert _typed(buf) == ["rename the kiln module to oven", "also update the docs index"]


def test_a_bookkeeping_record_after_a_cut_one_is_kept_as_what_it_is() -> None:
    queued = json.dumps({"type": "queue-operation", "operation": "enqueue", "sessionId": SID,
                         "timestamp": "2026-11-20T09:01:00.000Z",
                         "content": "run the linter too"}).encode()
    transcript = parse_buffer(b"\n".join([OPENING, REPLY[:90] + queued]) + b"\n", path=PATH)
    kinds = [e.type for e in transcript.events if isinstance(e, OtherEvent)]
    assert kinds == ["queue-operation"] and transcript.skipped == {"undecodable": 1}


def test_a_line_cut_at_the_end_of_the_file_is_still_one_undecodable_line() -> None:
    # The file's last record cut mid-content while it was written: nothing after it,
    # and the content objects nested in it are no records.
    cut = REPLY[: REPLY.index(b'"text":"Renamed') + 5]
    transcript = parse_buffer(b"\n".join([OPENING, cut]), path=PATH)
    assert transcript.skipped == {"undecodable": 1}
    assert [type(e) for e in transcript.events] == [UserEvent]


def test_an_object_nested_in_a_cut_record_is_no_entry() -> None:
    # Cut right after a content block closed: the block is an object that ends the line,
    # but not a transcript entry (no session), so the line stays one skip.
    block_end = REPLY.index(b"}]") + 1
    transcript = parse_buffer(b"\n".join([OPENING, REPLY[:block_end]]) + b"\n", path=PATH)
    assert transcript.skipped == {"undecodable": 1}
    assert [type(e) for e in transcript.events] == [UserEvent]
