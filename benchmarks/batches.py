"""A Message Batches backfill of N sessions through the fake server, killed and resumed.

    .venv/bin/python benchmarks/batches.py [--sessions 1000] [--direct 200] [--max-kb 200]

Builds N Claude Code sessions (benchmarks/corpus.py's generator via
benchmarks/instant_learn.build) in a temporary HOME. `learn run --batch --yes`
runs as a child process against the fake server (batch routes: create,
retrieve, JSONL results; the batch is held "in progress"); once the child has
polled the batch, it is killed with SIGKILL. Then a second run, in process,
collects the batch and reduces. Printed: wall time, HTTP requests, batch items,
sessions answered more than once (must be 0), and the cost learn reported.

Baseline in the same run: the direct path (`learn run` without --batch, one
Messages call per chunk, no rate limit on the fake) over the first --direct
sessions of a corpus built the same way (capped: mining 1,000 sessions one call
at a time adds minutes and nothing the per-session figures do not show), and
its figures scaled per session. Every fake answer carries the same usage, so
the cost ratio of the mining calls is the batch price itself; learn's reported
totals also include the (unbatched) naming and judging calls.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from benchmarks.instant_learn import _option, build  # noqa: E402


def _env(base: Path, home: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(base / "data"),
               LEARN_CACHE_DIR=str(base / "cache"), LEARN_CONFIG_DIR=str(base / "config"),
               PYTHONPATH=str(ROOT), ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=url,
               LEARN_BATCH_POLL="0.2")
    return env


def _in_process(env: dict[str, str]) -> tuple[float, Any]:
    """`learn run --all-projects` in process, with no rate limit (the fake server)."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        from learn.config import load_config
        from learn.models.anthropic_backend import AnthropicBackend
        from learn.models.ratelimit import RateLimiter
        from learn.pipeline import RunOptions, run_pipeline

        backend = AnthropicBackend(limiter=RateLimiter(requests_per_minute=None, max_in_flight=8))
        started = time.perf_counter()
        result, _ = run_pipeline(RunOptions(all_projects=True, embedder="tfidf"), load_config(),
                                 backend=backend)
        return time.perf_counter() - started, result
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _mining(fake: Any) -> int:
    return sum(1 for r in fake.requests
               if r.path.rstrip("/").endswith("/v1/messages") and r.tool_name == "record_candidates")


def main(argv: list[str]) -> int:
    args = list(argv)
    n = _option(args, "--sessions", 1000)
    n_direct = min(n, _option(args, "--direct", 200))
    max_kb = _option(args, "--max-kb", 200)
    from fakes.anthropic_batches import FakeBatchServer

    with tempfile.TemporaryDirectory(prefix="learn-batches-") as tmp:
        base = Path(tmp)
        # -- batch: submit in a child, kill -9 it, collect in a second run --------
        build(base / "b" / "home", n, max_kb * 1024)
        with FakeBatchServer(processing_seconds=3600) as fake:
            env = _env(base / "b", base / "b" / "home", fake.base_url)
            started = time.perf_counter()
            child = subprocess.Popen(
                [sys.executable, "-m", "learn", "run", "--all-projects", "--since", "2000-01-01", "--batch", "--yes",
                 "--json", "--quiet", "--embedder", "tfidf"],
                env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            while not any(r.method == "GET" and "/batches/" in r.path for r in fake.requests):
                if child.poll() is not None:
                    raise SystemExit(f"the submitting run ended early: {child.stderr.read()!r}"
                                     if child.stderr else "the submitting run ended early")
                time.sleep(0.05)
            submit_s = time.perf_counter() - started
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
            fake.processing_seconds = 0.0
            collect_s, batch_result = _in_process(env)
            items = sum(len(b.lines) for b in fake.batches.values())
            batch_http = len(fake.requests)
            twice = sum(1 for v in fake.answered.values() if v > 1)
            batch_direct = _mining(fake)
            batches = len(fake.batches)
        # -- baseline: the direct path over the first n_direct sessions -----------
        build(base / "d" / "home", n_direct, max_kb * 1024)
        with FakeBatchServer() as fake:
            env = _env(base / "d", base / "d" / "home", fake.base_url)
            direct_s, direct_result = _in_process(env)
            direct_calls = _mining(fake)
            direct_http = len(fake.requests)

    bu, du = batch_result.usage, direct_result.usage
    per = n / n_direct
    print(f"Message Batches backfill: {n} sessions (max {max_kb} KB each); "
          f"direct baseline over {n_direct} sessions, scaled x{per:g} to {n}")
    print(f"  batch: submit + kill -9 after {submit_s:.1f}s; collecting run {collect_s:.1f}s; "
          f"{batches} batch, {items} items, {batch_http} HTTP requests, "
          f"{batch_direct} direct mining calls, sessions answered twice: {twice}")
    print(f"  batch: sessions cached {bu.sessions_cached}/{bu.sessions_seen}, "
          f"reported cost ${bu.cost_usd:.4f}")
    print(f"  direct: {direct_s:.1f}s, {direct_calls} mining calls, {direct_http} HTTP requests, "
          f"reported cost ${du.cost_usd:.4f} -> per {n}: {direct_s * per:.1f}s, "
          f"{direct_calls * per:.0f} calls, ${du.cost_usd * per:.4f}")
    print(f"  ratios (batch / direct scaled): time {(submit_s + collect_s) / (direct_s * per):.2f}, "
          f"HTTP requests {batch_http / (direct_http * per):.3f}, "
          f"reported cost {bu.cost_usd / (du.cost_usd * per):.2f} (mining calls at 0.5; "
          "naming and judging unbatched)")
    ok = twice == 0 and batches == 1 and batch_direct == 0 and bu.sessions_failed == 0
    print(f"verdict: {'PASS' if ok else 'FAIL'} (one batch, resumed after kill -9, "
          "no session answered twice, no direct mining call)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
