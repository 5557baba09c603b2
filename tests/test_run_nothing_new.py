"""A run with nothing new (issue 32): the last run's result, from the store, and nothing
else done; any change to what a run reads makes it a whole run again.

`learn run` as a user runs it, the real anthropic SDK against the fake Messages server,
over the demo corpus (its gold answers the model's steps)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer
from test_e2e_run import _env, _learn

from evals.corpora import demo
from evals.oracle import GoldOracle

ARGS = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"]


def _run(env: dict[str, str], *extra: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    done = _learn([*ARGS, *extra], env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), done


def _runs(root: Path) -> int:
    import apsw

    conn = apsw.Connection(str(root / "data" / "learn.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
    finally:
        conn.close()


def _fake(root: Path, corpus: Any = demo) -> FakeAnthropicServer:
    """The fake Messages server answering as the corpus's gold says (built under `root`)."""
    oracle = GoldOracle(corpus.build(root))
    return FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k != "unchanged_since"} == \
        {k: v for k, v in b.items() if k != "unchanged_since"}


def test_nothing_new_is_answered_from_the_store_and_any_change_is_read(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    fake = _fake(root)
    with fake:
        env = _env(root, fake)
        first, _ = _run(env)
        assert first["proposals"] and "unchanged_since" not in first
        # The second run finds the proposals shown and holds them back: a run that
        # leaves the store as it found it, so the third need not be run.
        second, _ = _run(env)
        assert "unchanged_since" not in second and second["held_back"] == len(first["proposals"])
        calls, runs = len(fake.requests), _runs(root)

        third, done = _run(env)
        assert third["unchanged_since"] and _same(third, second)
        assert "nothing new since the run of" in done.stderr
        assert len(fake.requests) == calls  # not even the backend's check was made
        assert _runs(root) == runs  # nothing stored
        digest = _learn(["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"], env)
        assert digest.returncode == 0 and digest.stdout.strip() and not digest.stderr
        assert len(fake.requests) == calls and _runs(root) == runs

        # A session written since: read again, mined from the cache, a whole run.
        session = next(p for p in (root / "home").rglob("*.jsonl") if "subagents" not in p.parts)
        stat = session.stat()
        os.utime(session, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        touched, _ = _run(env)
        assert "unchanged_since" not in touched and _same(touched, second)
        assert _runs(root) == runs + 1
        assert _run(env)[0]["unchanged_since"]

        # The person declined a proposal: what the store holds changed.
        from learn.store.runs import record_decision

        key = f"{first['proposals'][0]['kind']}:{first['proposals'][0]['label']}"
        record_decision(key, "dismissed", "", None, path=root / "data" / "learn.db")
        assert "unchanged_since" not in _run(env)[0]

        # A rule file written: coverage reads it.
        _run(env)
        assert _run(env)[0]["unchanged_since"]
        (root / "home" / ".claude" / "CLAUDE.md").write_text("- Keep diffs small.\n")
        assert "unchanged_since" not in _run(env)[0]

        # Other options are another run.
        _run(env)
        assert _run(env)[0]["unchanged_since"]
        assert "unchanged_since" not in _run(env, "--include-programmatic")[0]
        assert len(fake.requests) == calls  # all of it from the caches


def test_a_run_that_failed_is_never_answered_again(tmp_path: Path) -> None:
    # A malformed answer fails a session (the "hard" corpus): the next run must try it again.
    from evals.corpora import hard

    root = tmp_path / "corpus"
    fake = _fake(root, hard)
    with fake:
        env = _env(root, fake)
        for _ in range(3):
            done = _learn(ARGS, env)
            assert done.returncode == 1, done.stderr[-2000:]  # the malformed session failed
            assert "unchanged_since" not in json.loads(done.stdout)


def test_planning_a_run_hashes_no_file_the_index_read_unchanged(tmp_path: Path,
                                                                 monkeypatch: Any) -> None:
    # The plan `learn run` asks about (how many sessions are uncached) keyed each file
    # by hashing all of it: 408 MB read on a run with nothing new (issue 32).
    from learn.commands import run as run_command
    from learn.commands._scope import Scope
    from learn.config import load_config
    from learn.index.indexed import CachedHeads, indexed_views
    from learn.mining import cache
    from learn.store import open_store
    from learn.transcripts.files.discover import scan

    demo.build(tmp_path / "corpus")
    monkeypatch.setenv("HOME", str(tmp_path / "corpus" / "home"))
    with open_store(local_only=True) as local:
        heads = CachedHeads(local.index)
        files = scan(all_projects=True, heads=heads).files
        heads.save()
        indexed_views(files, index=local.index, min_confidence=0.75,
                      fingerprints_for=lambda _: ())
    hashed: list[Path] = []
    real = cache.file_digest
    monkeypatch.setattr(cache, "file_digest", lambda p: hashed.append(p) or real(p))
    scope = Scope(project=Path.cwd(), all_projects=True, since=None, since_text=None, limit=None)
    plan = run_command._plan(scope, load_config())
    assert plan.sessions == len(files) and hashed == []
    touched = files[0].path
    touched.write_text(touched.read_text() + "\n")
    run_command._plan(scope, load_config())
    assert hashed == [touched]  # a file changed since the index read it is hashed
