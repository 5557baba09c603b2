"""The team store at team size: PostgreSQL + pgvector beside SQLite + sqlite-vec, same run.

Usage: .venv/bin/python benchmarks/team_store.py [--people 50] [--sessions 200]
       [--per-session 3] [--labels 300] [--wordings 10] [--queries 300] [--url postgresql://...]

Builds the candidates of `people` x `sessions` sessions (per-session candidates
each, drawn from labels x wordings distinct texts), then times, through the
store code learn runs (learn.store.open_store), the store operations a team run needs:

  record scan      every session's candidates (one transaction per person)
  label index      one 384-d example vector per distinct wording (put_label)
  label KNN        nearest_labels(k=5, kind) for a sample of the texts: median, p95
  assign labels    set_labels for every candidate
  share            every candidate into team_candidates (Store.team.share)
  count            distinct people and sessions per (kind, label), in SQL (team_counts)
  verdicts         record_verdict with evidence vectors, then nearest_verdict KNN

on a SQLite file and on a fresh PostgreSQL database (pgserver in a temp dir, or
a new database on the server of --url, dropped afterwards), and prints them side
by side with a bare round trip (SELECT 1) on each as the baseline. Model calls
are not part of it: this is the store's share of a team run.

Each person's author id is their session ids' prefix ("p07"); on PostgreSQL they
are listed in team_members, as `learn team init` lists members (no roles are made).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learn.store import open_store
from learn.store.scan_tables import CandidateRow

DIM = 384
SPACE = "bench-384"
KINDS = ("directive", "fix", "request")


@contextmanager
def postgres(url: str | None) -> Iterator[str]:
    """A fresh database URL with pgvector, dropped on exit."""
    import psycopg

    server = None
    if url is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
        server = pgserver.get_server(Path(tempfile.mkdtemp(prefix="learn-bench-")),
                                     cleanup_mode="delete")
        url = str(server.get_uri())
    name = "learn_bench_store"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(url)._replace(path="/" + name))
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        del server


def make_team(args: argparse.Namespace) -> tuple[dict[str, list[CandidateRow]], dict[str, Any]]:
    rng = np.random.default_rng(0)
    centers = rng.standard_normal((args.labels, DIM)).astype(np.float32)
    texts: list[tuple[str, str, str]] = []  # (kind, label, text)
    vecs: list[np.ndarray[Any, Any]] = []
    for li in range(args.labels):
        kind = KINDS[li % len(KINDS)]
        for w in range(args.wordings):
            texts.append((kind, f"label-{li}", f"wording {w} of rule {li}: keep it the same way"))
            v = centers[li] + 0.35 * rng.standard_normal(DIM).astype(np.float32)
            vecs.append(v / np.linalg.norm(v))
    # A few rules are said by many, most by few: Zipf over the rules.
    weights = 1.0 / np.arange(1, len(texts) + 1) ** 0.8
    weights /= weights.sum()
    sessions: dict[str, list[CandidateRow]] = {}
    for p in range(args.people):
        for s in range(args.sessions):
            sid = f"p{p:02d}-s{s:04d}"
            picks = rng.choice(len(texts), size=args.per_session, replace=False, p=weights)
            sessions[sid] = [
                CandidateRow(session_id=sid, kind=texts[i][0], text=texts[i][2],
                             project="git@example.com:team/app.git",
                             occurred_at=f"2026-01-{1 + s % 28:02d}T00:00:00+00:00")
                for i in picks
            ]
    return sessions, {"texts": texts, "vecs": np.stack(vecs)}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run(target: Path | str, sessions: dict[str, list[CandidateRow]], corpus: dict[str, Any],
        args: argparse.Namespace) -> dict[str, float]:
    from learn.records.proposal import Verdict
    from learn.reduce.stored import StoreVerdictMemory

    out: dict[str, float] = {}
    texts, vecs = corpus["texts"], corpus["vecs"]
    with open_store(target) as store:
        tables = store.scans
        trips = []
        for _ in range(200):
            t, _ = timed(lambda: store.ledger.sql("SELECT 1 AS one"))
            trips.append(t)
        out["round trip (SELECT 1), median ms"] = 1e3 * statistics.median(trips)

        def scan() -> None:
            by_person: dict[str, list[str]] = {}
            for sid in sessions:
                by_person.setdefault(sid[:3], []).append(sid)
            for sids in by_person.values():
                with store.transaction():
                    for sid in sids:
                        tables.replace_session_candidates(sid, sessions[sid])

        out["record scan, s"] = timed(scan)[0]

        def label_index() -> None:
            with store.transaction():
                for (kind, label, text), v in zip(texts, vecs, strict=True):
                    store.labels.put_label(label, kind, v, space=SPACE, text=text)

        out["label index build, s"] = timed(label_index)[0]

        rng = np.random.default_rng(1)
        sample = rng.choice(len(texts), size=min(args.queries, len(texts)), replace=False)
        lat = []
        hits = 0
        for i in sample:
            kind, label, _ = texts[i]
            q = vecs[i] + 0.1 * rng.standard_normal(DIM).astype(np.float32)
            t, got = timed(lambda q=q, kind=kind: store.labels.nearest_labels(q, kind, 5, space=SPACE))
            lat.append(t)
            hits += bool(got) and got[0][0] == label
        out["label KNN k=5, median ms"] = 1e3 * statistics.median(lat)
        out["label KNN k=5, p95 ms"] = 1e3 * float(np.percentile(lat, 95))
        out["label KNN top-1 right, %"] = 100.0 * hits / len(sample)

        label_of = {text: label for _, label, text in texts}

        def assign() -> int:
            ids = {c.id: label_of[c.text] for c in tables.candidates()}
            return tables.set_labels(ids, run_id=None)

        out["assign labels, s"] = timed(assign)[0]

        from learn.store.team import SharedCandidate, session_hash

        remote = "git@example.com:team/app.git"
        shared = [
            SharedCandidate(author=c.session_id[:3], session_hash=session_hash(c.session_id, c.session_id[:3]),
                            kind=c.kind, label=c.label, quote=c.text, occurred_at=c.occurred_at,
                            project_remote=remote)
            for c in tables.candidates()
        ]
        out["share every candidate, s"] = timed(lambda: store.team.share(shared))[0]
        if store.backend == "postgresql":
            # A PostgreSQL team counts the rows of its members only: list the authors
            # as `learn team init` would (this measures the store's SQL, not roles).
            store.ledger.executemany("INSERT INTO team_members (role, name, added_at) "
                                     "VALUES ($1, $1, 'bench') ON CONFLICT DO NOTHING",
                                     [(a,) for a in sorted({r.author for r in shared})])
        t, counts = timed(lambda: store.team.team_counts(remote, min_people=2, min_sessions=2))
        out["count people+sessions per label, ms"] = 1e3 * t
        out["labels said by >= 2 people"] = float(len(counts))

        mem = StoreVerdictMemory(store, SPACE)
        labels = sorted({(k, lab) for k, lab, _ in texts})
        centers = {}
        for (kind, label, _), v in zip(texts, vecs, strict=True):
            centers.setdefault((kind, label), v)

        def verdicts() -> None:
            with store.transaction():
                for kind, label in labels:
                    v = Verdict(accepted=True, summary=f"{label} summary", category="tooling",
                                scope="project", confidence=0.8, rationale="r",
                                canonical_key=label, model="m")
                    mem.record(f"{kind}:{label}", "judge", 1, v, centers[(kind, label)])

        out["record verdicts + evidence, s"] = timed(verdicts)[0]
        vlat = []
        for kind, label in labels[: args.queries]:
            q = centers[(kind, label)] + 0.05 * rng.standard_normal(DIM).astype(np.float32)
            t, _ = timed(lambda q=q, kind=kind: mem.nearest_verdict(
                q, None, role="judge", prompt_version=1, max_distance=0.3, kind=kind))
            vlat.append(t)
        out["verdict-reuse KNN, median ms"] = 1e3 * statistics.median(vlat)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--people", type=int, default=50)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--per-session", type=int, default=3)
    parser.add_argument("--labels", type=int, default=300)
    parser.add_argument("--wordings", type=int, default=10)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--url", default=None, help="a PostgreSQL server to create a scratch "
                        "database on (default: pgserver in a temp dir)")
    args = parser.parse_args()

    sessions, corpus = make_team(args)
    n_cands = sum(len(v) for v in sessions.values())
    print(f"team: {args.people} people x {args.sessions} sessions = {len(sessions)} sessions, "
          f"{n_cands} candidates, {len(corpus['texts'])} distinct texts, "
          f"{args.labels} labels, {DIM}-d vectors")
    with tempfile.TemporaryDirectory() as tmp:
        lite = run(Path(tmp) / "team.db", sessions, corpus, args)
    with postgres(args.url) as url:
        pg = run(url, sessions, corpus, args)

    width = max(len(k) for k in lite)
    print(f"{'operation':<{width}}  {'sqlite':>10}  {'postgresql':>10}  {'pg/sqlite':>9}")
    for key in lite:
        a, b = lite[key], pg[key]
        ratio = f"{b / a:9.2f}" if a else f"{'-':>9}"
        print(f"{key:<{width}}  {a:10.2f}  {b:10.2f}  {ratio}")
    store_s = [k for k in lite if k.endswith(", s")]
    for name, res in (("sqlite", lite), ("postgresql", pg)):
        total = sum(res[k] for k in store_s)
        knn_all = res["label KNN k=5, median ms"] * len(corpus["texts"]) / 1e3
        print(f"{name}: store work of a first team run over all {n_cands} candidates "
              f"{total:.1f} s, plus label KNN for every distinct text ~{knn_all:.1f} s "
              f"(median x {len(corpus['texts'])}); "
              f"one round trip {res['round trip (SELECT 1), median ms']:.3f} ms")


if __name__ == "__main__":
    main()
