"""The reduce stage at scale: what `learn run` does after mining, at 1,000 to 8,000 quotes.

    .venv/bin/python benchmarks/naming_scale.py [--sizes 1000,2000,4000,8000] [--embedder tfidf]
        [--profile N] [--seed 0]

Builds N synthetic candidate quotes (deterministic seed) over ~N/12 distinct points
drawn Zipf-wise (a few points said often, most said once or twice), each said in one
of several paraphrased wordings with filler around it (about a fifth of the quotes
repeat an earlier quote exactly), four quotes a session. Then runs
`learn.reduce.stage.reduce_sessions` with what a first `learn run` hands it
(learn/pipeline/judge.py `_reduce`): a fresh SQLite store in a temp dir (its label
index, verdict memory, shown state, name cache, the embedder cached in it; no rule
files, so no coverage check), naming and judging answered in process by the gold oracle
(evals/oracle.py) over the points' gold groups.

Each size runs in a child process of its own, measured there: CPU time of the
reduce stage (time.process_time, every thread: the machine is shared, wall time
measures the neighbours), the process's peak RSS (ru_maxrss) and what it held
before the stage. The baseline, in the same child: the CPU time of embedding the
same unique texts with a fresh embedder (work per text, linear by construction).
Then, on the store the first run left (its labels remembered as a run's record keeps
them, its names in the name cache), the next day's run: every session and 10 new ones.
Printed: per size, and the growth factor per doubling of the first run's CPU, of its peak
memory above the pre-stage RSS, and of the daily run's CPU. `--profile N` prints the top
of a cProfile of size N's first run (cumulative). The default run (1,000 to 8,000) takes about a minute.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_TOOLS = ("bun", "pnpm", "ruff", "pytest", "vitest", "docker", "poetry", "make", "cargo", "uv",
          "eslint", "prettier", "mypy", "black", "jest", "tox", "nox", "git", "gh", "helm")
_THINGS = ("migrations", "fixtures", "the changelog", "release notes", "the api client",
           "generated files", "the lockfile", "snapshots", "feature flags", "env files",
           "the schema", "docstrings", "type hints", "log lines", "error messages",
           "the readme", "config files", "test names", "commit messages", "branch names")
_DIRECTIVE_WORDINGS = (
    "always use {tool} for {thing}",
    "use {tool} when you touch {thing}, not anything else",
    "for {thing} we go with {tool}",
    "please stick to {tool} for {thing}",
    "{thing}: {tool} only",
    "don't reach for another tool than {tool} on {thing}",
)
_REQUEST_WORDINGS = (
    "run {tool} over {thing} before you finish",
    "can you check {thing} with {tool} first",
    "go through {thing} with {tool} again",
    "{tool} on {thing} please, then report back",
)
_AREAS = ("frontend", "backend", "payments", "billing", "search", "auth", "mobile", "infra")
_FILLER = ("", "", "ok so ", "again: ", "as I said, ", "one more time, ", "hey, ", "remember, ")
_TAIL = ("", "", "", " thanks", " ok?", " like last time", " in this repo", " for this project")


_SYLLABLES = ("ka", "lo", "mi", "ren", "tu", "sal", "vo", "pe", "dra", "qui", "zen", "bo", "fi", "gar")


def _word(p: int) -> str:
    """A pronounceable made-up word, one per number."""
    out, k = "", p + len(_SYLLABLES)
    while k:
        k, r = divmod(k, len(_SYLLABLES))
        out += _SYLLABLES[r]
    return out


def points_for(n: int) -> list[tuple[str, str, str, str]]:
    """(group name, kind, tool, thing) of each distinct point at N quotes."""
    count = max(20, n // 12)
    out = []
    for p in range(count):
        tool = _TOOLS[p % len(_TOOLS)]
        thing = _THINGS[(p // len(_TOOLS) + 3 * p) % len(_THINGS)]
        area = _AREAS[(p // len(_THINGS)) % len(_AREAS)]
        kind = "request" if p % 4 == 3 else "directive"
        # A made-up module name per point: points share tools and things, as a person's do,
        # and still differ in a word of their own.
        thing = f"{thing} of the {_word(p)} {area} module"
        # Named in words (the drift merge reads a label's words; numbers are not words).
        name = re.sub(r"[^a-z]+", "-", f"{kind} {tool} {thing}").strip("-")
        out.append((name, kind, tool, thing))
    return out


def build(n: int, seed: int, extra: int = 0) -> tuple[list[Any], Any]:
    """(sessions of candidates, the gold the oracle answers from) for N quotes, then `extra`
    more drawn the same way (the first N are the same with any `extra`)."""
    import numpy as np

    from evals.gold import Gold
    from learn.records.candidate import MinedCandidate, SessionCandidates

    rng = np.random.default_rng(seed)
    points = points_for(n)
    weights = 1.0 / np.arange(1, len(points) + 1) ** 1.1
    weights /= weights.sum()
    gold = Gold(corpus="naming-scale")
    for name, kind, tool, thing in points:
        gold.group(name, kind, f"Use {tool} for {thing}.")  # type: ignore[arg-type]
    said: list[tuple[str, str, str]] = []  # (kind, text, group)
    for _ in range(n + extra):
        if said and rng.random() < 0.2:
            said.append(said[int(rng.integers(len(said)))])
            continue
        name, kind, tool, thing = points[int(rng.choice(len(points), p=weights))]
        wordings = _DIRECTIVE_WORDINGS if kind == "directive" else _REQUEST_WORDINGS
        text = (_FILLER[int(rng.integers(len(_FILLER)))]
                + wordings[int(rng.integers(len(wordings)))].format(tool=tool, thing=thing)
                + _TAIL[int(rng.integers(len(_TAIL)))])
        said.append((kind, text, name))
    sessions = []
    per = 4
    for s in range(0, n + extra, per):
        sid = f"s{s // per:05d}"
        cands = []
        for kind, text, name in said[s : s + per]:
            gold.said(sid, text, name)
            cands.append(MinedCandidate(kind=kind, text=text))  # type: ignore[arg-type]
        day = 1 + (s // per) % 28
        sessions.append(SessionCandidates(session_id=sid, provider="claude", project="/bench/app",
                                          last_activity=f"2026-11-{day:02d}T10:00:00+00:00",
                                          candidates=tuple(cands)))
    gold.finish()
    return sessions, gold


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(n: int, seed: int, embedder_name: str, profile: bool) -> dict[str, Any]:
    """One size, in this process: the reduce stage as a first `learn run` runs it, then
    as the next day's runs it (`DAILY` more sessions, the store holding the first's labels)."""
    from evals.oracle import GoldOracle
    from learn.embed import get_embedder
    from learn.store import open_store

    sessions, gold = build(n, seed, extra=DAILY * 4)
    first, new = sessions[: n // 4], sessions[n // 4 :]
    texts = sorted({c.text for s in first for c in s.candidates})
    # The baseline: embedding the same texts, fresh (work per text).
    t0 = time.process_time()
    get_embedder(prefer=embedder_name).embed(texts)  # type: ignore[arg-type]
    embed_cpu = time.process_time() - t0
    oracle = GoldOracle(gold)
    with tempfile.TemporaryDirectory(prefix="learn-naming-scale-") as tmp, \
            open_store(Path(tmp) / "learn.db") as store:
        # Imports a first run pays once (scipy; scikit-learn, which the pre-clustering
        # used before this round) are not the stage's growth.
        import scipy.cluster.hierarchy  # noqa: F401
        import sklearn.cluster  # noqa: F401

        before = _rss_mb()
        cpu, outcome = _reduce(store, first, oracle, embedder_name, profile)
        peak = _rss_mb()  # the first run's (the peak so far)
        daily_cpu, _ = _reduce(store, sessions, oracle, embedder_name, False)
    stats = outcome.naming
    return {"n": n, "unique": stats.unique_texts, "points": len(gold.groups), "cpu": cpu,
            "daily": daily_cpu, "new": sum(len(s.candidates) for s in new),
            "embed_cpu": embed_cpu, "rss_before": before, "rss_peak": peak,
            "labels": stats.labels, "calls": stats.calls, "proposals": len(outcome.proposals),
            "merged": stats.labels_merged}


# Sessions a day adds: the daily run reads them with every earlier one (named from the store).
DAILY = 10


def _reduce(store: Any, sessions: list[Any], oracle: Any, embedder_name: str,
            profile: bool) -> tuple[float, Any]:
    """(CPU seconds, outcome) of reduce_sessions as learn/pipeline/judge.py `_reduce` calls
    it; the labels then kept in the store as the run's record keeps them."""
    from learn.embed import get_embedder
    from learn.reduce.counting import CountConfig
    from learn.reduce.stage import reduce_sessions
    from learn.reduce.stored import (
        CachedEmbedder,
        StoreLabelIndex,
        StoreShownState,
        StoreVerdictMemory,
        name_prompt_version,
        named_labels,
    )

    embedder = CachedEmbedder(get_embedder(prefer=embedder_name), store)  # type: ignore[arg-type]
    index = StoreLabelIndex(store, embedder.name)
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t0 = time.process_time()
    outcome = reduce_sessions(
        sessions, embedder=embedder, backend=oracle, label_index=index, labelled=named_labels(store),
        verdicts=StoreVerdictMemory(store, embedder.name), shown_state=StoreShownState(store, None),
        corpus=None, config=CountConfig(), remember_labels=False,
        on_named=lambda naming: store.labels.put_named_labels(naming.named, name_prompt_version()),
    )
    cpu = time.process_time() - t0
    if prof is not None:
        import io
        import pstats

        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(40)
        print(out.getvalue(), file=sys.stderr)
    assert outcome.named is not None
    outcome.named.remember(index)  # record_run's labels, outside the timed stage
    return cpu, outcome


def _growth(rows: list[dict[str, Any]], key: Any) -> list[str]:
    out = ["-"]
    for a, b in itertools.pairwise(rows):
        va, vb = key(a), key(b)
        if va <= 0 or vb <= 0:
            out.append("-")
            continue
        # Per doubling of the quotes, whatever the step between sizes.
        out.append(f"{(vb / va) ** (1 / math.log2(b['n'] / a['n'])):.2f}x")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,2000,4000,8000")
    ap.add_argument("--embedder", default="tfidf", choices=("tfidf", "minilm"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", type=int, default=0, help="cProfile this size")
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.seed, args.embedder, args.child == args.profile)))
        return 0
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        cmd = [sys.executable, __file__, "--child", str(n), "--seed", str(args.seed),
               "--embedder", args.embedder, "--profile", str(args.profile)]
        # One BLAS thread: on a shared machine OpenBLAS's idle threads spin, and their spinning
        # is counted as the stage's CPU (a 16,000-quote run measured 30 s more with two).
        env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
        if done.returncode:
            print(done.stderr, file=sys.stderr)
            return done.returncode
        if args.profile == n:
            print(done.stderr)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(f"  {n}: {r['cpu']:.2f} s CPU, peak {r['rss_peak']:.0f} MiB", file=sys.stderr)
    cpu_growth = _growth(rows, lambda r: r["cpu"])
    mem_growth = _growth(rows, lambda r: r["rss_peak"] - r["rss_before"])
    base_growth = _growth(rows, lambda r: r["embed_cpu"])
    daily_growth = _growth(rows, lambda r: r["daily"])
    print(f"reduce stage of a first run ({args.embedder}, oracle namer, SQLite store), seed {args.seed}")
    print(f"{'quotes':>7}{'unique':>7}{'points':>7}{'labels':>7}{'calls':>6}{'props':>6}"
          f"{'CPU s':>8}{'x/dbl':>7}{'embed s':>9}{'x/dbl':>7}{'RSS MiB':>9}{'+stage':>8}{'x/dbl':>7}"
          f"{'daily s':>9}{'x/dbl':>7}")
    for r, g, bg, mg, dg in zip(rows, cpu_growth, base_growth, mem_growth, daily_growth, strict=True):
        print(f"{r['n']:>7}{r['unique']:>7}{r['points']:>7}{r['labels']:>7}{r['calls']:>6}"
              f"{r['proposals']:>6}{r['cpu']:>8.2f}{g:>7}{r['embed_cpu']:>9.2f}{bg:>7}"
              f"{r['rss_peak']:>9.0f}{r['rss_peak'] - r['rss_before']:>8.0f}{mg:>7}{r['daily']:>9.2f}{dg:>7}")
    print("x/dbl: growth per doubling of the quotes (linear: 2.0x; the target: at most 2.2x). "
          "embed s: the baseline, embedding the same unique texts. +stage: peak RSS above the "
          "RSS before the stage. daily s: the next run, every session and "
          f"{DAILY} new ones, on the store the first left.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
