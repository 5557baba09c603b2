"""benchmarks/listing_parts.read_floor: the decode any reader pays reads every line."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.listing_parts import read_floor


def _claude(tmp_path: Path) -> Path:
    at = "2026-03-01T10:00:00.000Z"
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": at,
         "message": {"role": "user", "content": "use bun, not npm"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "timestamp": at, "message": {"model": "m", "content": [{"type": "text", "text": "ok"}]}},
        {"type": "ai-title", "sessionId": "s", "aiTitle": "bun"},  # no wire Struct: untyped
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    return p


def _codex(tmp_path: Path) -> Path:
    lines = [
        {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": "c", "cwd": "/w", "timestamp": "2026-03-01T10:00:00.000Z"}},
        {"timestamp": "2026-03-01T10:00:01.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": "run ruff"}]}},
    ]
    p = tmp_path / "rollout-2026-03-01T10-00-00-c.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return p


def test_every_line_is_decoded_and_each_conversation_entry_looked_at(tmp_path: Path) -> None:
    files = [_claude(tmp_path), _codex(tmp_path)]
    assert read_floor([(f, f.read_bytes()) for f in files]) == (5, 2)


def test_a_codex_rollout_is_read_untyped_not_as_claude_entries(tmp_path: Path) -> None:
    f = _codex(tmp_path)
    assert read_floor([(f, f.read_bytes())]) == (2, 0)
