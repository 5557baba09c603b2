"""Format drift: Claude Code's `promptSource: "system"` (learn.transcripts.view.exclusions).

From 2.1.165 Claude Code stamps `promptSource` on user entries: "typed", "sdk",
"queued", "suggestion_accepted", or "system" for what the client injects itself (one
machine's files held 1,602 of them beside 3,011 typed). Where such a line named no
`origin` and carried no `isMeta`, its text was a typed turn: "N background agents were
stopped by the user", a background task check, 2.1.280's `<coordinator-relay>` wrapper.
Fixtures written for this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b"
INJECTED = (
    '3 background agents were stopped by the user: "index the docs", "port the cli".',
    "Check if background task b7f2 finished.",
    '<coordinator-relay from="lead">\nship the parser first\n</coordinator-relay>',
)


def _prompt(uuid: str, parent: str | None, minute: int, text: str,
            **fields: object) -> bytes:
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": "/srv/quay", "sessionId": SID, "version": "2.1.190",
            "gitBranch": "main", "uuid": uuid, "type": "user",
            "timestamp": f"2026-11-20T09:{minute:02d}:00.000Z",
            "message": {"role": "user", "content": text}, **fields}
    return json.dumps(line).encode()


def _typed(lines: list[bytes]) -> list[tuple[str, str]]:
    transcript = parse_buffer(b"\n".join(lines) + b"\n",
                              path=Path(f"/h/.claude/projects/-q/{SID}.jsonl"))
    return [(t.origin, t.text) for t in build_session(transcript).human_turns]


def test_what_the_client_injected_is_no_typed_turn_even_without_an_origin() -> None:
    lines = [_prompt("u0", None, 0, "split the quay module in two", promptSource="typed")]
    lines += [_prompt(f"s{i}", f"u{i}" if i == 0 else f"s{i - 1}", i + 1, text,
                      promptSource="system") for i, text in enumerate(INJECTED)]
    lines.append(_prompt("u1", "s2", 9, "keep the old import path working",
                         promptSource="typed"))
    assert _typed(lines) == [("typed", "split the quay module in two"),
                             ("typed", "keep the old import path working")]


def test_the_other_sources_stay_typed() -> None:
    # `claude -p` and the SDK stamp "sdk", a suggestion the person accepted
    # "suggestion_accepted", a line before 2.1.165 nothing at all.
    lines = [_prompt("u0", None, 0, "rename the berth table", promptSource="sdk"),
             _prompt("u1", "u0", 1, "and its index", promptSource="suggestion_accepted"),
             _prompt("u2", "u1", 2, "then run the migrations")]
    assert [text for _, text in _typed(lines)] == [
        "rename the berth table", "and its index", "then run the migrations"]
