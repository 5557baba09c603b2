"""A mining cache that cannot be written is said, not passed over.

`LEARN_CACHE_DIR` naming a file (or a folder learn may not write): the run went
on and finished, and every session was mined, and paid for, again by the next
run with nothing on screen to say why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_e2e_robust import FaultyServer
from test_e2e_run import _env, _learn

from evals.corpora import demo
from learn.mining.cache import MineCache
from learn.records.candidate import SessionCandidates


def test_put_keeps_the_first_failure_and_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    cache = MineCache(blocker)
    entry = SessionCandidates(session_id="s1", provider="claude", project=None,
                              last_activity=None, candidates=())
    with pytest.raises(OSError):
        cache.put("k1", entry)
    assert cache.write_failure is not None and str(blocker / "mined") in cache.write_failure
    assert blocker.read_text() == "not a folder"


def test_a_run_says_its_cache_could_not_be_written(tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    (root / "cache").write_text("a file where the cache folder would be")
    with FaultyServer(gold) as fake:
        env = _env(root, fake)
        done = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"], env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["proposals"]  # the run itself is not lost
    assert "could not write the mining cache" in done.stderr
    assert "mined, and paid for, again by the next run" in done.stderr


def test_a_run_with_a_writable_cache_says_nothing_of_it(tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    with FaultyServer(gold) as fake:
        done = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"],
                      _env(root, fake))
    assert done.returncode == 0, done.stderr
    assert "mining cache" not in done.stderr
