"""A session mined before pasted bot comments were cut from typed text is not mined again
(its file and learn's mining versions are unchanged), and its cached quote of the bot's
finding no longer counts: the cached answer is read against the view as it reads now.

A Claude Code transcript written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

SID = "4e3d2c1b-0a9f-4e8d-b7c6-a5f4e3d2c1b0"
ASK = "tell me if this review point holds before changing anything"
FINDING = "Close the response body on every early return."
PROMPT = (f"{ASK}\n@reviewpal\nreviewpal bot\n3 days ago\n⚠️ Potential issue | 🟡 Minor\n\n"
          f"{FINDING}\n\nThe two error paths above return without it, so the connection is "
          "never given back to the pool.")


class _NoCalls:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"backend.{name} used for a cached session")


def _entry(uuid: str, parent: str | None, minute: int, **fields: object) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": "/srv/pool", "sessionId": SID, "version": "2.1.250",
            "gitBranch": "main", "uuid": uuid,
            "timestamp": f"2026-11-24T15:{minute:02d}:00.000Z", **fields}


def test_a_quote_of_a_pasted_bot_finding_mined_before_the_cut_no_longer_counts(
        tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "projects" / "-srv-pool" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    entries = [
        _entry("u1", None, 0, type="user", message={"role": "user", "content": PROMPT}),
        _entry("a1", "u1", 1, type="assistant",
               message={"model": "claude-x", "id": "msg_a1", "role": "assistant",
                        "content": [{"type": "text", "text": "It holds."}]}),
    ]
    buf = b"\n".join(json.dumps(e).encode() for e in entries) + b"\n"
    path.write_bytes(buf)
    session = build_session(parse_buffer(buf, path=path))
    assert [t.text for t in session.human_turns] == [ASK]

    cache = MineCache(tmp_path / "cache")
    # What mining the uncut view kept: the finding verified as the person's words.
    cache.put(cache.key_for_file(path), SessionCandidates(
        session_id=session.id, provider="claude", project=session.project, last_activity=None,
        candidates=(MinedCandidate(kind="request", text=ASK),
                    MinedCandidate(kind="directive", text=FINDING))), chunks=1)

    [result] = mine_sessions([session], _NoCalls(), model="m", cache=cache, concurrency=1)
    assert result.cached
    assert [c.text for c in result.candidates] == [ASK]
    assert [c.text for c in result.dropped] == [FINDING]
