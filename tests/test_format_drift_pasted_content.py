"""Format drift: Claude Code's `<pasted_content id=...>` lines (learn.transcripts.view.typed).

Claude Code 2.1.27x on (seen on 2.1.278 and 2.1.280 transcripts, and in its
UserPromptSubmit docs) puts pasted text, expanded from its `[Pasted text #1]`
placeholder, between a line `<pasted_content id="...">` and a line
`</pasted_content id="...">`. The marker lines were kept as the person's words, and a
message opening with one was taken for a program's envelope in a headless session and
not read. What was pasted stays typed (a dictation tool pastes what the person said;
agent output pasted back is cut by the rules that already did). Fixtures written for
this test.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.exclusions import is_program_envelope
from learn.transcripts.view.session import build_session
from learn.transcripts.view.typed import typed_text

SID = "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918"


def _entry(uuid: str, parent: str | None, minute: int, entrypoint: str,
           **fields: object) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": entrypoint, "cwd": "/srv/mill", "sessionId": SID,
            "version": "2.1.280", "gitBranch": "main", "uuid": uuid,
            "timestamp": f"2026-11-20T09:{minute:02d}:00.000Z", **fields}


def _prompt(uuid: str, parent: str | None, minute: int, text: str,
            entrypoint: str = "cli") -> dict[str, object]:
    return _entry(uuid, parent, minute, entrypoint, type="user", promptSource="typed",
                  origin={"kind": "human"}, promptId=f"p-{uuid}",
                  message={"role": "user", "content": text})


def _reply(uuid: str, parent: str, minute: int, text: str,
           entrypoint: str = "cli") -> dict[str, object]:
    return _entry(uuid, parent, minute, entrypoint, type="assistant",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": text}]})


def _typed(lines: list[dict[str, object]]) -> list[str]:
    buf = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    session = build_session(parse_buffer(buf, path=Path(f"/h/.claude/projects/-m/{SID}.jsonl")))
    return [t.text for t in session.human_turns]


LOG = ('\n\n<pasted_content id="3c9a">\nerror: grain silo 4 reports no sensor\n'
       'retrying in 5s\n</pasted_content id="3c9a">\n\nwhy does this keep failing')
DICTATED = ('<pasted_content id="b71d">\nFrom now on write every migration so it can be '
            'rolled back.\n</pasted_content id="b71d">')


def test_the_paste_markers_are_not_typed_and_what_was_pasted_is() -> None:
    turns = _typed([
        _prompt("u1", None, 0, "add a sensor check to the silo job"),
        _reply("a1", "u1", 1, "Added."),
        _prompt("u2", "a1", 2, LOG),
        _reply("a2", "u2", 3, "The sensor id changed."),
        _prompt("u3", "a2", 4, DICTATED),
    ])
    assert turns == [
        "add a sensor check to the silo job",
        "error: grain silo 4 reports no sensor\nretrying in 5s\n\nwhy does this keep failing",
        "From now on write every migration so it can be rolled back.",
    ]
    assert not any("pasted_content" in t for t in turns)


def test_a_paste_in_a_headless_session_is_read_not_taken_for_a_programs_envelope() -> None:
    opening = "Review the repository and list what blocks the release. " * 8
    turns = _typed([
        _prompt("u1", None, 0, opening, "sdk-cli"),
        _reply("a1", "u1", 1, "Three things block it.", "sdk-cli"),
        _prompt("u2", "a1", 2, DICTATED, "sdk-cli"),
    ])
    assert turns[1:] == ["From now on write every migration so it can be rolled back."]
    assert not is_program_envelope(DICTATED)


def test_only_whole_marker_lines_go() -> None:
    # Named mid-sentence, the tag is the person's words.
    said = "why does the <pasted_content> wrapper show up in my hook?"
    assert typed_text(said).text == said
    # Codex writes no such markers: its text is left as it is.
    assert "pasted_content" in typed_text(DICTATED, provider="codex").text
