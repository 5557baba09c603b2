"""A whole team run at team size: `run_team` on PostgreSQL + pgvector, timed and profiled.

Usage: .venv/bin/python benchmarks/team_run.py [--people 50] [--sessions 200]
       [--per-session 3] [--labels 300] [--wordings 10] [--model] [--profile]

Shares people x sessions x per-session candidates (drawn Zipf-wise from labels x
wordings distinct texts, as benchmarks/team_store.py does) into a fresh
PostgreSQL database (pgserver in a temp dir), then runs the team run learn runs
(learn.reduce.team.run_team) on them with the tfidf embedder: offline (no model)
and, with --model, against the fake Messages server on 127.0.0.1 answering
naming, coverage and judging from a gold oracle (evals/oracle.py). It prints the
run's wall time and peak Python memory (tracemalloc) beside a baseline measured
in the same run: the same team run at 5 people x 20 sessions, and the bare
pgvector label KNN latency (nearest_labels, k=5) at full size.

--profile prints the top of a cProfile of the full-size run (cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

REMOTE = "https://github.com/team/app.git"
KINDS = ("directive", "request")


def texts_for(labels: int, wordings: int) -> list[tuple[str, int, str]]:
    """(kind, rule number, text) for every distinct wording."""
    return [(KINDS[r % len(KINDS)], r, f"wording {w} of rule {r}: keep it the same way")
            for r in range(labels) for w in range(wordings)]


def shared(args: argparse.Namespace, authors: list[str], sessions: int) -> list[Any]:
    """Each person's rows under their author id (their member role)."""
    from learn.store.team import SharedCandidate

    rng = np.random.default_rng(0)
    texts = texts_for(args.labels, args.wordings)
    weights = 1.0 / np.arange(1, len(texts) + 1) ** 0.8
    weights /= weights.sum()
    rows = []
    for p, author in enumerate(authors):
        for s in range(sessions):
            for i in rng.choice(len(texts), size=args.per_session, replace=False, p=weights):
                kind, _rule, text = texts[int(i)]
                rows.append(SharedCandidate(
                    author=author, session_hash=f"p{p:02d}-s{s:04d}", kind=kind, label=None,
                    quote=text, occurred_at=f"2026-01-{1 + s % 28:02d}T00:00:00+00:00",
                    project_remote=REMOTE))
    return rows


def gold_responder(args: argparse.Namespace) -> Any:
    from evals.gold import Gold
    from evals.oracle import responder

    gold = Gold(corpus="bench")
    for r in range(args.labels):
        gold.group(f"rule-{r}", KINDS[r % len(KINDS)], f"Keep rule {r} the same way.")
    for kind, r, text in texts_for(args.labels, args.wordings):
        del kind
        gold.said("bench", text, f"rule-{r}")
    return responder(gold)


def team_run(url: str, root: Path, backend: Any, profile: bool) -> dict[str, Any]:
    from learn.config import Config
    from learn.reduce.team import run_team

    config = Config()
    config.team.database_url = url
    prof = cProfile.Profile() if profile else None
    tracemalloc.start()
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    result = run_team(root, REMOTE, config, backend=backend, embedder="tfidf")
    if prof:
        prof.disable()
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out: dict[str, Any] = {"seconds": wall, "peak_mb": peak / 2**20,
                           "proposals": len(result.proposals),
                           "calls": result.usage.model_calls}
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(25)
        out["profile"] = s.getvalue()
    return out


def knn_latency(url: str, n: int = 200) -> tuple[float, float]:
    """Median and p95 ms of nearest_labels(k=5) on the team store's label index."""
    from learn.embed import get_embedder
    from learn.reduce.stored import CachedEmbedder, StoreLabelIndex
    from learn.store import open_store

    texts = texts_for(300, 10)
    with open_store(url) as store:
        emb = CachedEmbedder(get_embedder(prefer="tfidf"), store)
        index = StoreLabelIndex(store, emb.name)
        vecs = emb.embed([t for _, _, t in texts[:n]])
        times = []
        for (kind, _, _), v in zip(texts[:n], vecs, strict=True):
            t0 = time.perf_counter()
            index.nearest(v, kind=kind, k=5)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def fresh_db(admin: str, name: str) -> str:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from _store_backends import with_database

    return str(with_database(admin, name))


def measure(admin: str, name: str, args: argparse.Namespace, people: int, sessions: int,
            backend: Any, profile: bool) -> dict[str, Any]:
    from learn.store import open_store

    url = fresh_db(admin, name)
    from _team_db import team_members  # as `learn team init` sets a team up

    made = team_members(url, *(f"p{p:02d}" for p in range(people)))
    members = [made[f"p{p:02d}"] for p in range(people)]
    rows = shared(args, [role for role, _ in members], sessions)
    t0 = time.perf_counter()
    for role, member_url in members:  # each person shares through their own role
        with open_store(member_url) as store:
            store.team.share([r for r in rows if r.author == role])
    shared_s = time.perf_counter() - t0
    root = Path(tempfile.mkdtemp(prefix="learn-bench-repo-"))
    out = team_run(members[0][1], root, backend, profile)
    # One person forgets after the run: their rows and everything derived from them.
    with open_store(members[0][1]) as store:
        t0 = time.perf_counter()
        store.team.forget(members[0][0])
        forget_s = time.perf_counter() - t0
    out.update(candidates=len(rows), share_s=shared_s, forget_s=forget_s, url=url)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--people", type=int, default=50)
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--per-session", type=int, default=3)
    ap.add_argument("--labels", type=int, default=300)
    ap.add_argument("--wordings", type=int, default=10)
    ap.add_argument("--model", action="store_true", help="also run with the fake model server")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="learn-bench-")),
                                 cleanup_mode="delete")
    admin = str(server.get_uri())

    modes: list[tuple[str, Any]] = [("offline", None)]
    fake = None
    if args.model:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        import os

        from fakes.anthropic_server import FakeAnthropicServer

        from learn.models.anthropic_backend import AnthropicBackend
        answer = gold_responder(args)
        fake = FakeAnthropicServer(responder=lambda req: answer(req.body))
        fake.__enter__()
        os.environ.update(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=fake.base_url)
        modes.append(("model", AnthropicBackend(base_url=fake.base_url)))
    try:
        print(f"team run, {args.people} people x {args.sessions} sessions x {args.per_session} "
              f"candidates ({args.labels} rules x {args.wordings} wordings), PostgreSQL + pgvector")
        for mode, backend in modes:
            # Warm-up (imports, the tfidf vocabulary, pgvector's first query): not timed.
            measure(admin, f"bench_warm_{mode}", args, 2, 5, backend, False)
            small = measure(admin, f"bench_small_{mode}", args, 5, 20, backend, False)
            big = measure(admin, f"bench_big_{mode}", args, args.people, args.sessions, backend,
                          args.profile)
            med, p95 = knn_latency(big["url"])
            print(f"\n[{mode}]")
            print(f"{'':28}{'5 x 20 (baseline)':>20}{'full size':>16}{'ratio':>9}")
            for key, label, fmt in (("candidates", "shared candidates", "{:.0f}"),
                                    ("share_s", "share, s", "{:.2f}"),
                                    ("seconds", "team run, s", "{:.2f}"),
                                    ("peak_mb", "team run peak Python MB", "{:.1f}"),
                                    ("calls", "model calls", "{:.0f}"),
                                    ("proposals", "proposals", "{:.0f}"),
                                    ("forget_s", "one person forgets, s", "{:.2f}")):
                a, b = float(small[key]), float(big[key])
                ratio = f"{b / a:.1f}x" if a else "-"
                print(f"{label:28}{fmt.format(a):>20}{fmt.format(b):>16}{ratio:>9}")
            print(f"label KNN at full size (k=5): median {med:.2f} ms, p95 {p95:.2f} ms; "
                  f"team run / KNN median = {big['seconds'] * 1000 / med:.0f}x")
            if "profile" in big:
                print(big["profile"])
    finally:
        if fake is not None:
            fake.__exit__(None, None, None)
        del server


if __name__ == "__main__":
    main()
