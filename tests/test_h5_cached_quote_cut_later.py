"""A cached quote of words the session view no longer counts as typed is not counted.

Found running learn on real Codex sessions: a session in which the person pasted a
review bot's PR comment below their own one-line request was mined while it was the
only session holding that comment, so the comment's sentences were the person's
("Make <field> optional in <Type>." verified and cached). A later session pasted the
same comment; learn then recognised the 400+ shared characters as a template (not
the person's) and cut them from both views: `learn show` of the first session no
longer shows the comment, and the second session's identical quote was dropped as
not typed. The first session's cached answer was reused as it was (same file bytes,
same render version): its quote of the cut sentence stayed in the counts, so the same
words were the person's in one session and not in the other.

Module: learn/mining/miner.py (`_cached` / `_entry` return cached candidates without
checking them against the session as it is read now; learn/mining/cache.py keys by the
file's bytes and versions only, not by what cross-session machinery detection cut).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _mining_helpers import make_session, user

from learn.mining.cache import MineCache, mining_version
from learn.mining.miner import mine_sessions

OWN = "check whether this bot comment is right"
CUT = "Make retryLimit optional in UpdateJobRequest."


class _NoCalls:
    """A backend that must not be asked: the session is cached."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"backend.{name} used for a cached session")


def _cached(cache: MineCache, key: str, sid: str) -> None:
    cache.dir.mkdir(parents=True, exist_ok=True)
    cand: dict[str, object] = {"kind": "directive", "text": CUT, "rationale": None, "command": None,
            "error_excerpt": None, "intervening_commands": [], "edited_files": [],
            "source": "miner", "at": None}
    own = {**cand, "kind": "request", "text": OWN}
    cache.path_for(key).write_text(json.dumps({
        "format": 1, "key": key, "version": mining_version(), "session_id": sid,
        "provider": "claude", "project": "/proj", "last_activity": None,
        "candidates": [own, cand], "dropped_unverified": 0, "dropped_by_reason": {},
        "chunks": 1, "mined_at": "2026-03-01T00:00:00+00:00"}), encoding="utf-8")


def test_cached_quote_of_text_cut_since_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text('{"type":"placeholder"}\n', encoding="utf-8")
    # The view as it is read now: the pasted comment was cut, the person's line stays.
    session = make_session([user(OWN)], path=path)
    cache = MineCache(tmp_path / "cache")
    _cached(cache, cache.key_for_file(path), session.id)

    [result] = mine_sessions([session], _NoCalls(), model="m", cache=cache, concurrency=1)
    texts = [c.text for c in result.candidates]
    assert OWN in texts
    assert CUT not in texts
