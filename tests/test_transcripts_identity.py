"""Which session a file is, and where it ran, as the session view reports it.

A Claude Code session is its file name (a resumed file opens with the old
session's lines); a Codex session is its session_meta, in every era's shape,
even when nothing was said in it.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

OLD = "7a7a7a7a-0000-4000-8000-000000000001"
NEW = "7b7b7b7b-0000-4000-8000-000000000002"
CODEX = "0199f0f0-0000-7000-8000-000000000003"


def _line(session: str, uuid: str, parent: str | None, ts: str, text: str) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w/shop",
            "sessionId": session, "version": "2.1.30", "type": "user", "uuid": uuid,
            "timestamp": ts, "message": {"role": "user", "content": text}}


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_resumed_claude_file_is_the_session_its_name_says(tmp_path: Path) -> None:
    path = _write(tmp_path / f"{NEW}.jsonl", [
        _line(OLD, "u1", None, "2026-11-20T09:00:00Z", "start the migration"),
        _line(NEW, "u2", "u1", "2026-11-21T09:00:00Z", "now roll it back"),
    ])
    session = build_session(parse(path))
    assert session.id == NEW
    # Read without its name, the content's first id is all there is.
    assert build_session(parse(path.read_bytes())).id == OLD


def test_a_claude_file_not_named_by_id_keeps_the_content_id(tmp_path: Path) -> None:
    path = _write(tmp_path / "exported copy.jsonl",
                  [_line(OLD, "u1", None, "2026-11-20T09:00:00Z", "hello")])
    assert build_session(parse(path)).id == OLD


def test_a_codex_rollout_with_nothing_said_has_its_id_and_cwd(tmp_path: Path) -> None:
    path = _write(tmp_path / f"rollout-2026-11-20T09-00-00-{CODEX}.jsonl", [
        {"timestamp": "2026-11-20T09:00:00Z", "type": "session_meta",
         "payload": {"id": CODEX, "cwd": "/w/quiet", "source": "cli"}},
        {"timestamp": "2026-11-20T09:00:01Z", "type": "turn_context", "payload": {"cwd": "/w/quiet"}},
    ])
    session = build_session(parse(path))
    assert (session.id, session.project, session.provider) == (CODEX, "/w/quiet", "codex")
    # Without a meta id at all, the uuid in the file name.
    bare = _write(tmp_path / f"rollout-2026-11-20T09-00-00-{CODEX[:-1]}9.jsonl",
                  [{"record_type": "state"}])
    assert build_session(parse(bare)).id == CODEX[:-1] + "9"


def test_a_bare_era_rollout_takes_its_header_id_and_environment_cwd(tmp_path: Path) -> None:
    path = _write(tmp_path / "rollout-2025-08-20T10-00-00-x.jsonl", [
        {"id": CODEX, "timestamp": "2025-08-20T10:00:00Z", "instructions": None},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
         "text": "<environment_context>\n  <cwd>/w/legacy</cwd>\n</environment_context>"}]},
    ])
    session = build_session(parse(path))
    assert (session.id, session.project, session.human_turns) == (CODEX, "/w/legacy", ())


def test_a_codex_subagent_rollout_shows_no_typed_turns(tmp_path: Path) -> None:
    path = _write(tmp_path / f"rollout-2026-11-20T09-00-00-{CODEX}.jsonl", [
        {"timestamp": "2026-11-20T09:00:00Z", "type": "session_meta",
         "payload": {"id": CODEX, "cwd": "/w/shop", "source": {"subagent": "review"}}},
        {"timestamp": "2026-11-20T09:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "Review the current code changes"}},
        {"timestamp": "2026-11-20T09:00:02Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": "No issues found."}},
    ])
    session = build_session(parse(path))
    assert session.id == CODEX and session.human_turns == ()
