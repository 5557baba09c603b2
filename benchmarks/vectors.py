"""sqlite-vec KNN on a file database vs numpy brute force, measured in the same run.

Usage: .venv/bin/python benchmarks/vectors.py [--rows 100000] [--dim 384] [--queries 20]

Inserts `rows` random L2-normalised vectors into a cosine vec0 table through
learn.store.vectors (the code learn runs), then answers `queries` k=10 queries
and checks each against numpy's exact answer. Target: under a second per query.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learn.store import vectors
from learn.store.db import connect
from learn.store.schema import StoreSchema, migrate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    data = rng.standard_normal((args.rows, args.dim)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    queries = rng.standard_normal((args.queries, args.dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        conn = connect(path)
        migrate(conn, StoreSchema())
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        table = vectors.ensure_table(conn, "bench", "random", args.dim)
        conn.executemany(
            f"INSERT INTO {table} (rowid, embedding) VALUES ($1, $2)",
            ((i + 1, data[i].tobytes()) for i in range(args.rows)),
        )
        conn.execute("COMMIT")
        insert_s = time.perf_counter() - t0
        size_mb = path.stat().st_size / 1e6
        print(f"inserted {args.rows} x {args.dim}-d in {insert_s:.2f} s; db {size_mb:.0f} MB")

        vec_times: list[float] = []
        np_times: list[float] = []
        agree = 0
        for q in queries:
            t0 = time.perf_counter()
            hits = vectors.knn(conn, table, q, args.k, args.dim)
            vec_times.append(time.perf_counter() - t0)

            t0 = time.perf_counter()
            dist = 1.0 - data @ q
            top = np.argpartition(dist, args.k)[: args.k]
            top = top[np.argsort(dist[top])]
            np_times.append(time.perf_counter() - t0)

            agree += [r for r, _ in hits] == [int(i) + 1 for i in top]
        conn.close()

    vec_ms = statistics.median(vec_times) * 1000
    np_ms = statistics.median(np_times) * 1000
    print(f"sqlite-vec KNN k={args.k}: median {vec_ms:.1f} ms/query (max {max(vec_times) * 1000:.1f})")
    print(f"numpy brute force (in memory): median {np_ms:.1f} ms/query")
    print(f"ratio sqlite-vec / numpy: {vec_ms / np_ms:.1f}x; same top-{args.k} on "
          f"{agree}/{args.queries} queries")
    print("target < 1000 ms/query:", "met" if max(vec_times) < 1.0 else "MISSED")


if __name__ == "__main__":
    main()
