"""Message Batches backfills end to end: `learn run --batch` as a user runs it, the real
anthropic SDK against the fake server's batch routes (create, retrieve, JSONL results)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fakes.anthropic_batches import FakeBatchServer

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.models.batches import BATCH_PRICE
from learn.models.catalog import model_info

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes", "--quiet"]


def _env(root: Path, fake: FakeBatchServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(
        HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
        LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
        ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url,
        PYTHONPATH=str(REPO), LEARN_BATCH_POLL="0.05",
    )
    return env


def _learn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=REPO)


def _server(root: Path, **kwargs: Any) -> FakeBatchServer:
    oracle = GoldOracle(demo.build(root))
    return FakeBatchServer(responder=lambda r: oracle.answer(r.tool_name, r.user_text), **kwargs)


def _direct_mining(fake: FakeBatchServer) -> int:
    return sum(1 for r in fake.requests
               if r.path.rstrip("/").endswith("/v1/messages") and r.tool_name == "record_candidates")


def _cost(fake: FakeBatchServer, *, mining: bool) -> float:
    """What the direct requests the fake answered cost (every answer carries the same usage)."""
    u = fake.usage
    return sum(
        model_info(str(r.json.get("model"))).cost(u["input_tokens"], u["output_tokens"], 0, 0)
        for r in fake.requests
        if r.path.rstrip("/").endswith("/v1/messages")
        and (r.tool_name == "record_candidates") == mining
    )


def test_batch_run_mines_every_session_through_one_batch_and_proposes_the_same(
    tmp_path: Path,
) -> None:
    fake = _server(tmp_path / "a", processing_seconds=0.3)
    with fake:
        batched = _learn(["run", "--batch", *RUN[1:]], _env(tmp_path / "a", fake))
        assert batched.returncode in (0, 1), batched.stderr
        assert len(fake.batches) == 1
        assert _direct_mining(fake) == 0
        assert fake.answered and max(fake.answered.values()) == 1
        # Everything is cached now: a second run mines nothing at all.
        again = _learn(RUN, _env(tmp_path / "a", fake))
        assert again.returncode in (0, 1), again.stderr
        assert len(fake.batches) == 1 and _direct_mining(fake) == 0

    direct_fake = _server(tmp_path / "b")
    with direct_fake:
        direct = _learn(RUN, _env(tmp_path / "b", direct_fake))
    got, want = json.loads(batched.stdout), json.loads(direct.stdout)
    assert {p["label"] for p in got["proposals"]} == {p["label"] for p in want["proposals"]}
    # The same answers and the same tokens: mining at the batch price, the rest as before.
    mine_direct = _cost(direct_fake, mining=True)
    assert mine_direct > 0
    assert abs(float(want["usage"]["cost_usd"]) - mine_direct
               - _cost(direct_fake, mining=False)) < 1e-5
    assert abs(float(got["usage"]["cost_usd"])
               - (BATCH_PRICE * mine_direct + _cost(direct_fake, mining=False))) < 1e-5


def test_kill_9_after_submit_then_a_later_run_collects_the_batch_and_mines_nothing_twice(
    tmp_path: Path,
) -> None:
    root = tmp_path / "c"
    fake = _server(root, processing_seconds=3600)
    with fake:
        env = _env(root, fake)
        proc = subprocess.Popen([sys.executable, "-m", "learn", "run", "--batch", *RUN[1:]],
                                env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        # The first status poll comes after the batch id is committed to the store.
        while not any(r.method == "GET" and "/batches/" in r.path for r in fake.requests):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert len(fake.batches) == 1
        fake.processing_seconds = 0.2  # the batch ends while the next run waits for it
        later = _learn(RUN, env)
        assert later.returncode in (0, 1), later.stderr
        assert len(fake.batches) == 1, "the second run submitted its own batch"
        assert _direct_mining(fake) == 0, "the second run mined batched sessions directly"
        assert fake.answered and max(fake.answered.values()) == 1
        assert json.loads(later.stdout)["proposals"]


def test_errored_batch_items_are_mined_directly_once(tmp_path: Path) -> None:
    errored: list[str] = []

    def fail_two(params: Mapping[str, Any]) -> bool:
        if len(errored) < 2:
            errored.append(json.dumps(params["messages"][0]["content"]))
            return True
        return False

    fake = _server(tmp_path / "d", errored=fail_two)
    with fake:
        result = _learn(["run", "--batch", *RUN[1:]], _env(tmp_path / "d", fake))
        assert result.returncode in (0, 1), result.stderr
        assert len(errored) == 2
        assert 1 <= _direct_mining(fake) <= 2 * 4  # the errored sessions' chunks, nothing else
        direct_texts = {r.user_text for r in fake.requests
                        if r.path.rstrip("/").endswith("/v1/messages")
                        and r.tool_name == "record_candidates"}
        assert all(fake.answered[t] == 1 for t in direct_texts)
        assert max(fake.answered.values()) == 1


def _scope(home: Path) -> Any:
    from learn.commands._scope import Scope

    return Scope(project=home, all_projects=True, since=None, since_text=None, limit=None)


def test_many_uncached_sessions_switch_to_a_batch_with_yes_and_not_below_the_threshold(
    tmp_path: Path, monkeypatch: Any,
) -> None:
    import learn.mining.batch as batch
    from learn.commands.run import _offer_batch
    from learn.config import load_config

    root = tmp_path / "e"
    demo.build(root)
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("LEARN_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(root / "config"))
    monkeypatch.setenv("LEARN_DATA_DIR", str(root / "data"))
    config = load_config()
    monkeypatch.setattr(batch, "BATCH_ABOVE", 2)
    assert _offer_batch(_scope(root / "home"), config, yes=True)
    # No --yes and no terminal to ask on: the run is not switched behind the user's back.
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert not _offer_batch(_scope(root / "home"), config, yes=False)
    monkeypatch.setattr(batch, "BATCH_ABOVE", 10_000)
    assert not _offer_batch(_scope(root / "home"), config, yes=True)


def test_progress_reports_the_batch_until_every_item_has_ended(
    tmp_path: Path, monkeypatch: Any,
) -> None:
    from learn.config import load_config
    from learn.models.anthropic_backend import AnthropicBackend
    from learn.models.ratelimit import RateLimiter
    from learn.pipeline import RunOptions, run_pipeline

    root = tmp_path / "f"
    fake = _server(root, processing_seconds=0.5)
    seen: list[tuple[int, int]] = []
    with fake:
        for name, value in _env(root, fake).items():
            monkeypatch.setenv(name, value)
        backend = AnthropicBackend(limiter=RateLimiter(requests_per_minute=None))
        result, _ = run_pipeline(
            RunOptions(all_projects=True, embedder="tfidf", batch=True), load_config(),
            backend=backend,
            progress=lambda stage, done, total: seen.append((done, total)) if stage == "batch" else None,
        )
    items = sum(len(b.lines) for b in fake.batches.values())
    assert items > 0 and seen[0] == (0, items) and seen[-1] == (items, items)
    # Mined by this run through the batch (at the batch price), not "cached".
    assert result.usage.sessions_mined == result.usage.sessions_seen - result.usage.sessions_failed
    assert result.usage.sessions_cached == 0


def test_a_batch_call_that_keeps_failing_is_one_line_and_exit_1_never_a_traceback(
    tmp_path: Path,
) -> None:
    root = tmp_path / "g"
    fake = _server(root)
    fake.fail("poll", 529, times=10_000, retry_after=False)
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "config.toml").write_text("[backend]\nretry_seconds = 1.5\n")
    with fake:
        env = _env(root, fake)
        failed = _learn(["run", "--batch", *RUN[1:]], env)
        assert failed.returncode == 1, failed.stderr
        assert "Traceback" not in failed.stderr
        lines = [ln for ln in failed.stderr.splitlines() if ln.startswith("learn: batch:")]
        assert len(lines) == 1 and "next `learn run` collects" in lines[0]
        assert json.loads(failed.stdout)["usage"]["sessions_failed"] == 0
        assert _direct_mining(fake) == 0
        fake._faults.clear()
        later = _learn([a for a in RUN if a != "--quiet"], env)
    assert later.returncode in (0, 1), later.stderr
    assert "learn: collecting 1 Message Batch submitted earlier" in later.stderr
    assert "submitted Message Batch" not in later.stderr
    assert len(fake.batches) == 1 and _direct_mining(fake) == 0
    assert json.loads(later.stdout)["usage"]["sessions_mined"] > 0


def test_no_batch_and_the_config_setting_force_the_direct_path_even_with_yes(
    tmp_path: Path, monkeypatch: Any,
) -> None:
    import learn.mining.batch as batch
    from learn.commands.run import run_command

    root = tmp_path / "h"
    fake = _server(root)
    monkeypatch.setattr(batch, "BATCH_ABOVE", 2)
    with fake:
        for name, value in _env(root, fake).items():
            monkeypatch.setenv(name, value)
        kwargs: dict[str, Any] = dict(backend="anthropic", model=None, offline=False,
                                      dry_run=False, yes=True, show_all=False, as_json=True,
                                      quiet=True, record=False, cache_dir=None, embedder="tfidf",
                                      out=None)
        assert run_command(_scope(root / "home"), no_batch=True, **kwargs) in (0, 1)
        assert not fake.batches and _direct_mining(fake) > 0
    root = tmp_path / "i"
    fake = _server(root)
    with fake:
        for name, value in _env(root, fake).items():
            monkeypatch.setenv(name, value)
        (root / "config").mkdir(parents=True, exist_ok=True)
        (root / "config" / "config.toml").write_text('[mining]\nbatch = "never"\n')
        assert run_command(_scope(root / "home"), **kwargs) in (0, 1)
        assert not fake.batches and _direct_mining(fake) > 0
    root = tmp_path / "j"
    fake = _server(root, processing_seconds=0.1)
    with fake:
        for name, value in _env(root, fake).items():
            monkeypatch.setenv(name, value)
        assert run_command(_scope(root / "home"), **kwargs) in (0, 1)
        assert len(fake.batches) == 1 and _direct_mining(fake) == 0  # the default still batches


def test_learn_batches_collect_collects_a_pending_batch_for_the_next_run(tmp_path: Path) -> None:
    root = tmp_path / "k"
    fake = _server(root)
    fake.fail("poll", 529, times=10_000, retry_after=False)
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "config.toml").write_text("[backend]\nretry_seconds = 1.5\n")
    with fake:
        env = _env(root, fake)
        assert _learn(["run", "--batch", *RUN[1:]], env).returncode == 1
        fake._faults.clear()
        listed = _learn(["batches"], env)
        assert listed.returncode == 0 and "msgbatch_fake_0001" in listed.stdout
        assert "ended" in listed.stdout and "--collect" in listed.stdout
        collected = _learn(["batches", "--collect"], env)
        assert collected.returncode == 0, collected.stderr
        assert "collected 1 batch(es)" in collected.stdout
        assert _learn(["batches"], env).stdout.strip() == "no pending batches"
        later = _learn(RUN, env)
    assert later.returncode in (0, 1), later.stderr
    usage = json.loads(later.stdout)["usage"]
    assert len(fake.batches) == 1 and _direct_mining(fake) == 0
    assert usage["sessions_mined"] == 0 and usage["sessions_cached"] == usage["sessions_seen"]
    assert max(fake.answered.values()) == 1
