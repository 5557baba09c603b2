"""Mining answers cached before `[Image #N]` was cut from typed text (learn.mining.cache).

The cut (view version 22) changed no render version, so an answer cached for a finished
session before it is reused as it is: its quotes kept the client's token ("[Image #1] keep
the banner ..."), shown and counted as the person's words until the session changed. The
token is cut where a cached answer is read. Fixtures written for this test, in the shape
an entry of the cache's format 1 is written to disk.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.mining.cache import MineCache, cache_key, file_digest, mining_version
from learn.mining.indexed_cache import IndexedMineCache
from learn.render.spoken import spoken_turns
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

SID = "3e2d1c0b-a9f8-4e7d-b6c5-a4b3c2d1e0f9"
PICTURE = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                       "data": "iVBORw0KGgo="}}


def _session_file(tmp_path: Path) -> Path:
    """A session whose first prompt pasted a picture before the words."""
    def entry(uuid: str, parent: str | None, minute: int, **fields: object) -> str:
        return json.dumps({
            "parentUuid": parent, "isSidechain": False, "userType": "external",
            "cwd": "/srv/quay", "sessionId": SID, "version": "2.1.240", "gitBranch": "main",
            "uuid": uuid, "timestamp": f"2026-11-23T10:{minute:02d}:00.000Z", **fields})

    lines = [
        entry("u1", None, 0, type="user", message={"role": "user", "content": [
            {"type": "text", "text": "[Image #1] keep the banner pinned above the map on phones"},
            PICTURE]}),
        entry("a1", "u1", 1, type="assistant", message={
            "model": "claude-x", "id": "msg_a1", "role": "assistant",
            "content": [{"type": "text", "text": "Pinned it."}]}),
    ]
    path = tmp_path / "projects" / "-srv-quay" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cached_before_the_cut(cache: MineCache, key: str) -> None:
    """The entry a run before the cut wrote: its quotes hold the token."""
    cache.dir.mkdir(parents=True, exist_ok=True)
    cache.path_for(key).write_text(json.dumps({
        "format": 1, "key": key, "version": mining_version(), "session_id": SID,
        "provider": "claude", "project": "/srv/quay",
        "last_activity": "2026-11-23T10:01:00+00:00",
        "candidates": [
            {"kind": "directive", "text": "[Image #1] keep the banner pinned above the map on phones",
             "rationale": "layout preference", "command": None, "error_excerpt": None,
             "intervening_commands": [], "edited_files": [], "source": "miner",
             "at": "2026-11-23T10:00:00+00:00"},
            {"kind": "request", "text": "[Image #2]", "rationale": None, "command": None,
             "error_excerpt": None, "intervening_commands": [], "edited_files": [],
             "source": "miner", "at": None},
            {"kind": "fix", "text": "pin the banner with position sticky", "rationale": None,
             "command": "npm test", "error_excerpt": None, "intervening_commands": [],
             "edited_files": [], "source": "miner", "at": None},
        ],
        "dropped_unverified": 0, "dropped_by_reason": {}, "chunks": 1,
        "mined_at": "2026-11-23T11:00:00+00:00",
    }), encoding="utf-8")


def test_a_quote_cached_before_the_cut_comes_out_as_the_turn_reads_now(tmp_path: Path) -> None:
    path = _session_file(tmp_path)
    digest = file_digest(path)
    cache = IndexedMineCache({path: digest}, root=tmp_path / "cache")
    key = cache.key_for_file(path)
    assert key == cache_key(digest)
    _cached_before_the_cut(cache, key)

    entry = cache.get(key)
    assert entry is not None
    quotes = [(c.kind, c.text) for c in entry.candidates.candidates]
    assert quotes == [("directive", "keep the banner pinned above the map on phones"),
                      ("fix", "pin the banner with position sticky")]
    # The quote is a span of the turn as it is read today: what a fresh mining quotes.
    typed = spoken_turns(build_session(parse(path)))
    assert typed == ("keep the banner pinned above the map on phones",)
    assert all(text in typed[0] for kind, text in quotes if kind == "directive")


def test_a_token_inside_a_quote_goes_with_the_spaces_on_one_side(tmp_path: Path) -> None:
    cache = MineCache(tmp_path / "cache")
    cache.dir.mkdir(parents=True)
    cache.path_for("k").write_text(json.dumps({
        "format": 1, "key": "k", "session_id": SID, "candidates": [
            {"kind": "request", "text": "compare [Image #1] with [Image #2], then trim it"},
            {"kind": "directive", "text": "use the layout of <image name=[Image #1]> always"},
            {"kind": "directive",
             "text": "[Image: source: /home/ana/.claude/image-cache/s1/2.png] keep this spacing"}]}),
        encoding="utf-8")
    entry = cache.get("k")
    assert entry is not None
    assert [c.text for c in entry.candidates.candidates] == [
        "compare with, then trim it", "use the layout of <image name=[Image #1]> always",
        "keep this spacing"]
