"""Vector tables through learn.store.vectors, on sqlite-vec and on pgvector (HNSW):
KNN as numpy finds it, spaces kept apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from learn.store import vectors
from learn.store.core import open_connection
from learn.store.schema import StoreSchema, migrate


@pytest.fixture
def conn(store_target: Path | str) -> Iterator[Any]:
    c, _, _ = open_connection(store_target)
    migrate(c, StoreSchema())
    yield c
    c.close()


def test_knn_matches_numpy_brute_force(conn: Any) -> None:
    rng = np.random.default_rng(7)
    data = rng.standard_normal((2000, 64)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    conn.execute("BEGIN")
    table = vectors.ensure_table(conn, "test", "rand@1", 64)
    for i, v in enumerate(data):
        vectors.upsert(conn, table, i + 1, v, 64)
    conn.execute("COMMIT")
    for q in data[:5] + 0.05 * rng.standard_normal((5, 64)).astype(np.float32):
        hits = vectors.knn(conn, table, q, 5, 64)
        qn = q / np.linalg.norm(q)
        dist = 1.0 - data @ qn
        expect = np.argsort(dist)[:5] + 1
        assert [r for r, _ in hits] == expect.tolist()
        np.testing.assert_allclose([d for _, d in hits], np.sort(dist)[:5], atol=1e-5)


def test_the_nearest_neighbour_of_a_stored_vector_is_itself(conn: Any) -> None:
    conn.execute("BEGIN")
    table = vectors.ensure_table(conn, "test", "tiny@1", 3)
    vectors.upsert(conn, table, 1, [1.0, 0.0, 0.0], 3)
    vectors.upsert(conn, table, 2, [0.0, 1.0, 0.0], 3)
    vectors.upsert(conn, table, 3, [0.7, 0.7, 0.0], 3)
    conn.execute("COMMIT")
    assert [r for r, _ in vectors.knn(conn, table, [0.1, 0.9, 0.0], 3, 3)] == [2, 3, 1]
    assert vectors.knn(conn, table, [1.0, 0.0, 0.0], 0, 3) == []


def test_spaces_get_separate_tables_and_dims_are_checked(conn: Any) -> None:
    conn.execute("BEGIN")
    a = vectors.ensure_table(conn, "label", "space-a", 4, metadata=("kind",))
    b = vectors.ensure_table(conn, "label", "space-b", 8, metadata=("kind",))
    assert a != b
    assert vectors.ensure_table(conn, "label", "space-a", 4) == a
    with pytest.raises(ValueError, match="dim 4"):
        vectors.ensure_table(conn, "label", "space-a", 8)
    with pytest.raises(ValueError, match="dimensions"):
        vectors.upsert(conn, a, 1, [1.0, 0.0], 4, kind="directive")
    with pytest.raises(ValueError, match="non-finite"):
        vectors.upsert(conn, a, 1, [float("nan"), 0.0, 0.0, 1.0], 4, kind="directive")
    conn.execute("COMMIT")
    assert vectors.find_table(conn, "label", "space-c") is None


def test_filtered_knn_finds_a_rare_kind_beyond_the_index_first_answers(conn: Any) -> None:
    # 500 "common" rows crowd the neighbourhood; 7 "rare" ones are far from the
    # query. An approximate index scan stops before reaching them; the answer
    # must still be the 5 nearest rare rows (pgvector: the exact fallback).
    rng = np.random.default_rng(3)
    common = rng.standard_normal((500, 32)).astype(np.float32)
    rare = rng.standard_normal((7, 32)).astype(np.float32)
    conn.execute("BEGIN")
    table = vectors.ensure_table(conn, "label", "rand@32", 32, metadata=("kind",))
    for i, v in enumerate(common):
        vectors.upsert(conn, table, i + 1, v, 32, kind="common")
    for i, v in enumerate(rare):
        vectors.upsert(conn, table, 10_000 + i, v, 32, kind="rare")
    conn.execute("COMMIT")
    q = common[0]
    hits = vectors.knn(conn, table, q, 5, 32, kind="rare")
    qn = q / np.linalg.norm(q)
    dist = 1.0 - (rare / np.linalg.norm(rare, axis=1, keepdims=True)) @ qn
    assert [r for r, _ in hits] == (np.argsort(dist)[:5] + 10_000).tolist()
    assert len(vectors.knn(conn, table, q, 50, 32, kind="rare")) == 7


def test_opening_the_store_loads_sqlite_vec_without_importing_numpy(tmp_path: Path) -> None:
    # sqlite_vec's package imports numpy for a helper learn never calls: ~0.4 s of every
    # command that opens the store (issue 32). The extension itself is loaded all the same.
    import subprocess
    import sys

    code = ("import sys; from learn.store import open_store\n"
            f"with open_store({str(tmp_path / 's.db')!r}) as s:\n"
            "    v = s.ledger.sql('SELECT vec_version() AS v')[0]['v']\n"
            "print(v, 'numpy' in sys.modules, 'sqlite_vec' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr[-2000:]
    version, numpy, package = out.stdout.split()
    assert version.startswith("v") and (numpy, package) == ("False", "False")
