"""pgvector tables: one per (purpose, embedding space), a `vector(dim)` column, an HNSW index.

The PostgreSQL twin of learn.store.vectors' sqlite-vec code, with the same
contract: ids are the caller's (verdict_evidence.id, label_examples.id), distance
is cosine distance (pgvector's `<=>`, 1 - cos, as vec0's), nearest first.

HNSW is approximate and, in pgvector 0.6 (what pgserver bundles), returns at most
hnsw.ef_search rows per scan, before any WHERE filter. So ef_search is raised to
k, and when the index answer is short of k while more rows match, the query is
re-run as an exact scan (ORDER BY an expression the index cannot serve): the
answer is exact for small tables and filtered queries, and the index does the
work where it matters, a large unfiltered table.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from learn.store.connection import Connection
from learn.store.layout import check_identifier
from learn.store.postgres import lock_writes
from learn.store.vector_tables import registered, to_blob

if TYPE_CHECKING:
    from learn.store.vector_tables import Vector

# pgvector caps ef_search at 1000.
MAX_EF_SEARCH = 1000


def to_text(vector: Vector, dim: int | None = None) -> str:
    """The pgvector text literal of a float32 vector (same checks as to_blob)."""
    import numpy as np

    arr = np.frombuffer(to_blob(vector, dim), dtype="<f4")
    # float32 -> float -> repr round-trips exactly back to the same float32. tolist()
    # and map(repr) instead of a generator over numpy scalars: 2.3 us a value was a
    # quarter of a team run's time at 50 people x 200 sessions (benchmarks/team_run.py).
    return "[" + ",".join(map(repr, arr.tolist())) + "]"


def ensure_table(conn: Connection, purpose: str, space: str, dim: int, metadata: tuple[str, ...]) -> str:
    # Two machines may embed in a new space at once: the advisory lock makes the
    # second wait and then find the first one's table.
    lock_writes(conn)
    known = registered(conn, purpose, space, dim)
    if known is not None:
        return known
    check_identifier(purpose)
    for m in metadata:
        check_identifier(m)
    (maker,) = conn.execute(
        "SELECT to_regprocedure('learn_vector_table(text, text, integer, text[])') IS NOT NULL"
    ).fetchone()
    if maker:
        # A team database (learn.store.pg_team): members cannot CREATE, so the
        # admin's SECURITY DEFINER function makes the table, with the same name
        # and shape as below, and grants it to the team.
        (made,) = conn.execute("SELECT learn_vector_table($1, $2, $3, $4::text[])",
                               (purpose, space, int(dim), list(metadata))).fetchone()
        return str(made)
    # Named by a hash of the space (identifiers stay short and plain), not a counter.
    digest = hashlib.sha256(space.encode("utf-8")).hexdigest()[:12]
    name = check_identifier(f"vec_{purpose}_{digest}")
    cols = "".join(f", {check_identifier(m)} TEXT" for m in metadata)
    conn.execute(
        f"CREATE TABLE {name} (id BIGINT PRIMARY KEY, embedding vector({int(dim)}) NOT NULL{cols})"
    )
    conn.execute(f"CREATE INDEX {name}_hnsw ON {name} USING hnsw (embedding vector_cosine_ops)")
    conn.execute(
        "INSERT INTO vector_tables (purpose, space, dim, table_name) VALUES ($1, $2, $3, $4)",
        (purpose, space, int(dim), name),
    )
    return name


def upsert(conn: Connection, table: str, rowid: int, vector: Vector, dim: int, metadata: dict[str, str]) -> None:
    cols = "".join(f", {check_identifier(k)}" for k in metadata)
    marks = "".join(f", ${n}" for n in range(3, 3 + len(metadata)))
    sets = "".join(f", {k} = excluded.{k}" for k in metadata)
    conn.execute(
        f"INSERT INTO {check_identifier(table)} (id, embedding{cols}) VALUES ($1, $2::vector{marks}) "
        f"ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding{sets}",
        (rowid, to_text(vector, dim), *metadata.values()),
    )


def delete(conn: Connection, table: str, rowid: int) -> None:
    conn.execute(f"DELETE FROM {check_identifier(table)} WHERE id = $1", (rowid,))


def knn(
    conn: Connection, table: str, vector: Vector, k: int, dim: int, where: dict[str, str]
) -> list[tuple[int, float]]:
    t = check_identifier(table)
    q = to_text(vector, dim)
    # Filters are $1..$n (the COUNT below reuses them alone); the query vector is
    # $n+1, sent once though the query names it twice, and k is $n+2.
    filters = "".join(f" AND {check_identifier(c)} = ${i}" for i, c in enumerate(where, 1))
    vec, lim = f"${len(where) + 1}::vector", f"${len(where) + 2}"
    # A filter drops index answers after the scan: ask for more so fewer queries
    # fall back to the exact scan (x4 covers a filter keeping a quarter of the rows).
    ef = min(max(40, k * (4 if where else 1)), MAX_EF_SEARCH)
    conn.execute("SELECT set_config('hnsw.ef_search', $1, false)", (str(ef),))
    rows = conn.execute(
        f"SELECT id, embedding <=> {vec} AS distance FROM {t} WHERE TRUE{filters} "
        f"ORDER BY embedding <=> {vec} LIMIT {lim}",
        (*where.values(), q, int(k)),
    ).fetchall()
    if len(rows) < k:
        (matching,) = conn.execute(
            f"SELECT COUNT(*) FROM {t} WHERE TRUE{filters}", tuple(where.values())
        ).fetchone()
        if int(matching) > len(rows):
            # `+ 0` keeps the planner off the index: an exact scan.
            rows = conn.execute(
                f"SELECT id, embedding <=> {vec} AS distance FROM {t} WHERE TRUE{filters} "
                f"ORDER BY (embedding <=> {vec}) + 0, id LIMIT {lim}",
                (*where.values(), q, int(k)),
            ).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]
