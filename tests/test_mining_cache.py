from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from learn.mining.cache import MineCache, cache_key, file_digest, mining_version
from learn.paths import cache_dir
from learn.records.candidate import MinedCandidate, SessionCandidates

ENTRY = SessionCandidates(
    session_id="s1", provider="claude", project="/p", last_activity="2026-01-01T00:00:00+00:00",
    candidates=(
        MinedCandidate(kind="directive", text="use bun"),
        MinedCandidate(kind="fix", text="x", command="npm test", intervening_commands=("npm ci",),
                       edited_files=("package.json",)),
    ),
)


def test_round_trip_private_and_under_cache_dir(tmp_path: Path) -> None:
    cache = MineCache()
    assert cache.dir == cache_dir() / "mined"
    cache.put("k1", ENTRY, dropped_unverified=3, chunks=2)
    got = cache.get("k1")
    assert got is not None
    assert got.candidates == ENTRY and got.dropped_unverified == 3 and got.chunks == 2
    assert stat.S_IMODE(cache.path_for("k1").stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.dir.stat().st_mode) == 0o700


def test_missing_and_corrupt_entries_are_misses() -> None:
    cache = MineCache()
    assert cache.get("nope") is None
    cache.put("k", ENTRY)
    cache.path_for("k").write_text("{not json")
    assert cache.get("k") is None
    cache.path_for("k").write_text('{"format": 1, "key": "k", "candidates": "x"}')
    assert cache.get("k") is None
    cache.path_for("k").write_text('[1, 2]')
    assert cache.get("k") is None


def test_entry_under_another_key_is_a_miss() -> None:
    cache = MineCache()
    cache.put("a", ENTRY)
    os.replace(cache.path_for("a"), cache.path_for("b"))
    assert cache.get("b") is None


def test_key_is_content_and_version_never_model(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes(b"same bytes")
    b = tmp_path / "b.jsonl"
    b.write_bytes(b"same bytes")
    assert file_digest(a) == file_digest(b)
    assert MineCache().key_for_file(a) == MineCache().key_for_file(b)
    digest = file_digest(a)
    assert cache_key(digest) == cache_key(digest, mining_version())
    assert cache_key(digest, "render1-mine1") != cache_key(digest, "render2-mine1")
    assert "claude" not in mining_version()


def test_prune_removes_only_old_entries() -> None:
    cache = MineCache(max_age_days=180)
    cache.put("old", ENTRY)
    cache.put("new", ENTRY)
    old = time.time() - 200 * 86400
    os.utime(cache.path_for("old"), (old, old))
    assert cache.prune() == 1
    assert cache.get("old") is None and cache.get("new") is not None


def test_put_redacts_what_it_writes() -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    entry = SessionCandidates("s", "claude", None, None,
                              (MinedCandidate(kind="directive", text=f"token {key}", rationale=key),))
    cache = MineCache()
    cache.put("k", entry)
    assert key not in cache.path_for("k").read_text()


def test_prune_removes_what_a_killed_write_left_and_keeps_a_write_in_progress(tmp_path: Path) -> None:
    # A SIGKILL during atomic_write_bytes leaves `.<key>.json.<random>.tmp` beside the
    # entries; only one an hour old is a write that will never finish.
    cache = MineCache(tmp_path)
    cache.dir.mkdir(parents=True)
    stale = cache.dir / ".abc.json.k3j2.tmp"
    fresh = cache.dir / ".def.json.x9q1.tmp"
    entry = cache.dir / "ghi.json"
    for p in (stale, fresh, entry):
        p.write_text("{")
    now = time.time()
    os.utime(stale, (now - 7200, now - 7200))
    assert cache.prune(now=now) == 1
    assert not stale.exists() and fresh.exists() and entry.exists()
