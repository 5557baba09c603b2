"""Codex's own context blocks sent as user messages are never the person's typed words.

Codex of about August-September 2025 turned every user-role item into a `user_message`
event tagged with its kind, its AGENTS.md (`<user_instructions>`) and environment
(`<environment_context>`) blocks included: read as typed, a session gained turns holding the
person's own instructions, fed back to the miner as things they said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

SID = "0199cccc-3333-7444-8555-666677778888"


@pytest.mark.parametrize("tagged", [True, False])
def test_context_blocks_sent_as_user_messages_are_not_typed(tmp_path: Path, tagged: bool) -> None:
    def said(text: str, kind: str) -> dict[str, object]:
        payload: dict[str, object] = {"type": "user_message", "message": text}
        if tagged:
            payload["kind"] = kind
        return payload

    lines = [
        ("session_meta", {"id": SID, "cwd": "/home/me/shop", "originator": "codex_cli_rs",
                          "cli_version": "0.30.0", "source": "cli"}),
        ("event_msg", said("<user_instructions>\nAnswer tersely and lint first.\n"
                           "</user_instructions>", "user_instructions")),
        ("event_msg", said("<environment_context>\n  <cwd>/home/me/shop</cwd>\n"
                           "</environment_context>", "environment_context")),
        ("event_msg", said("add a retry to the fetch helper", "plain")),
    ]
    path = tmp_path / f"rollout-2025-09-01T10-00-00-{SID}.jsonl"
    path.write_text("\n".join(json.dumps({"timestamp": f"2025-09-01T10:00:0{i}.000Z",
                                          "type": kind, "payload": payload})
                              for i, (kind, payload) in enumerate(lines)) + "\n")
    view = build_session(parse(path))
    assert [t.text for t in view.human_turns] == ["add a retry to the fetch helper"]
