"""`learn doctor` warns when the newest Codex session has replies and no prompt learn reads.

That is what Codex 0.171's rollouts looked like to learn before it read their
`item_completed` prompts, while doctor said all was well (audit of the real clients,
2026-12, D1): the next format learn does not know will look the same.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from learn.doctor import check_transcripts

SID_OLD = "01a2f000-1111-7222-8333-00000000aaaa"
SID_NEW = "01a2f000-1111-7222-8333-00000000bbbb"
DAY = ("2026", "11", "24")


def _rollout(sid: str, prompt: dict[str, Any] | None, mtime: float) -> None:
    rows: list[dict[str, Any]] = [
        {"timestamp": "2026-11-24T14:00:00Z", "type": "session_meta",
         "payload": {"id": sid, "cwd": "/code/kiln", "cli_version": "0.199.0", "source": "cli"}},
        {"timestamp": "2026-11-24T14:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "<environment_context></environment_context>"}]}},
    ]
    if prompt is not None:
        rows.append({"timestamp": "2026-11-24T14:00:02Z", "type": "event_msg", "payload": prompt})
    rows.append({"timestamp": "2026-11-24T14:00:03Z", "type": "response_item", "payload": {
        "type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "Renamed it."}]}})
    day = Path.home().joinpath(".codex", "sessions", *DAY)
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-2026-11-24T14-00-00-{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.utime(path, (mtime, mtime))


# A prompt in a record no Codex has written (so no learn reads it).
UNKNOWN = {"type": "prompt_submitted_v9", "text": "rename the module"}
KNOWN = {"type": "item_completed", "item": {"type": "UserMessage", "id": "u1", "content": [
    {"type": "text", "text": "rename the module", "text_elements": []}]}}


def test_replies_with_no_readable_prompt_in_the_newest_codex_session_warn() -> None:
    _rollout(SID_OLD, KNOWN, 1_800_000_000)
    _rollout(SID_NEW, UNKNOWN, 1_800_000_100)
    check = check_transcripts()
    assert check.status == "warn"
    assert check.detail == ("0 Claude Code, 2 Codex sessions; the newest Codex session "
                            "(01a2f000, Codex 0.199.0) has 1 reply and no prompt learn can read")
    assert "update learn" in check.hint


def test_a_newest_codex_session_whose_prompts_learn_reads_is_fine() -> None:
    _rollout(SID_OLD, UNKNOWN, 1_800_000_000)  # older: not looked at
    _rollout(SID_NEW, KNOWN, 1_800_000_100)
    check = check_transcripts()
    assert (check.status, check.detail) == ("ok", "0 Claude Code, 2 Codex sessions")
