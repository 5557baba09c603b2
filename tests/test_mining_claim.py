"""Two processes about to mine one session pay for it once (MineCache.claim).

The SessionEnd hook's worker yields to a `learn run` before it starts a session,
but a run that started while the worker was mining found the session uncached and
asked the model too. Here the other process is real (a subprocess holding the claim,
as the worker does while its call is out), and the lock is the one learn takes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from _mining_helpers import make_session, user
from test_mining_miner import MODEL, ScriptedBackend

from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.transcripts.view.model import Session

_HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from learn.mining.cache import MineCache
    from learn.records.candidate import SessionCandidates

    root, key, ready, write = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4] == "1"
    cache = MineCache(Path(root))
    with cache.claim(key):
        ready.write_text("held")
        time.sleep(1.5)  # the worker's call is out
        if write:
            cache.put(key, SessionCandidates("s", "claude", None, None))
""")


def _hold(tmp_path: Path, cache: MineCache, key: str, *, write: bool) -> subprocess.Popen[bytes]:
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(cache.dir.parent), key,
                             str(ready), "1" if write else "0"], env=os.environ.copy())
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the holder never took the claim"
        time.sleep(0.02)
    return proc


def _one_session(tmp_path: Path) -> tuple[Session, MineCache, Path]:
    path = tmp_path / "s.jsonl"
    path.write_text("the session's bytes")
    session = make_session([user("we use bun here, never npm", 0)], sid="s", path=path)
    return session, MineCache(tmp_path / "cache"), path


def test_a_session_another_process_is_mining_is_waited_for_not_paid_again(tmp_path: Path) -> None:
    session, cache, path = _one_session(tmp_path)
    holder = _hold(tmp_path, cache, cache.key_for_file(path), write=True)
    backend = ScriptedBackend()
    [result] = mine_sessions([session], backend, model=MODEL, cache=cache)
    assert holder.wait(30) == 0
    assert backend.requests == []  # the holder's entry, not a second call
    assert result.cached and not result.failed


def test_a_holder_that_mined_nothing_leaves_the_session_to_the_waiter(tmp_path: Path) -> None:
    # The worker's call failed (an outage): nothing was cached, so the run asks itself.
    session, cache, path = _one_session(tmp_path)
    holder = _hold(tmp_path, cache, cache.key_for_file(path), write=False)
    started = time.monotonic()
    backend = ScriptedBackend()
    [result] = mine_sessions([session], backend, model=MODEL, cache=cache)
    assert holder.wait(30) == 0
    assert time.monotonic() - started > 0.5  # it waited for the holder
    assert len(backend.requests) == 1 and not result.cached and not result.failed
    # And the claim it took is let go: a third mine of a new key is not held up.
    assert cache.get(cache.key_for_file(path)) is not None


def test_claims_are_pruned_once_stale_and_a_lock_file_in_the_way_claims_nothing(tmp_path: Path) -> None:
    cache = MineCache(tmp_path / "cache")
    with cache.claim("k"):
        pass
    lock = cache.dir / "claims" / "k.lock"
    assert lock.exists() and (lock.stat().st_mode & 0o077) == 0
    cache.prune()
    assert lock.exists()  # a fresh claim stays
    old = time.time() - 2 * 3600
    os.utime(lock, (old, old))
    cache.prune()
    assert not lock.exists()
    # A file where the claims' folder goes: mining goes on unclaimed, nothing raised.
    (cache.dir / "claims").rmdir()
    (cache.dir / "claims").write_text("not a folder")
    with cache.claim("k"):
        pass
