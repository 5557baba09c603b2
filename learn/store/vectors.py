"""sqlite-vec tables: one vec0 table per (purpose, embedding space), cosine distance.

Vectors of different spaces are never compared (a MiniLM vector and a hashed
n-gram vector live in unrelated coordinates, and vec0 fixes the dimension per
table), so each space gets its own table, registered in `vector_tables` and
created on first write inside the caller's transaction. KNN uses vec0's MATCH
(brute force inside SQLite): on the 2-core dev box, 100k 384-d rows on a file
database answer a k=10 query in ~140 ms median (benchmarks/vectors.py), about 11x
numpy over the same vectors already in RAM; learn holds thousands, not 100k.

On PostgreSQL the same functions go to learn.store.pg_vectors (pgvector tables
with an HNSW index); the connection says which engine it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from learn.store.connection import Connection
from learn.store.layout import check_identifier

# The blob format and the registry of tables, shared with learn.store.pg_vectors.
from learn.store.vector_tables import MAX_K as MAX_K
from learn.store.vector_tables import Vector as Vector
from learn.store.vector_tables import find_table as find_table
from learn.store.vector_tables import from_blob as from_blob
from learn.store.vector_tables import registered
from learn.store.vector_tables import to_blob as to_blob


def _pg(conn: Connection) -> bool:
    return conn.dialect == "postgresql"


def ensure_table(
    conn: Connection, purpose: str, space: str, dim: int, metadata: Sequence[str] = ()
) -> str:
    """The vec0 table for (purpose, space), created if absent. Call inside a write transaction.

    metadata names vec0 TEXT metadata columns usable as KNN filters (labels filter by kind).
    """
    if _pg(conn):
        from learn.store import pg_vectors

        return pg_vectors.ensure_table(conn, purpose, space, dim, tuple(metadata))
    known = registered(conn, purpose, space, dim)
    if known is not None:
        return known
    check_identifier(purpose)
    (n,) = conn.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM vector_tables").fetchone()
    name = f"vec_{purpose}_{int(n)}"
    cols = "".join(f", {check_identifier(m)} text" for m in metadata)
    conn.execute(
        f"CREATE VIRTUAL TABLE {name} USING vec0("
        f"embedding float[{int(dim)}] distance_metric=cosine{cols})"
    )
    conn.execute(
        "INSERT INTO vector_tables (purpose, space, dim, table_name) VALUES ($1, $2, $3, $4)",
        (purpose, space, int(dim), name),
    )
    return name


def upsert(conn: Connection, table: str, rowid: int, vector: Vector, dim: int, **metadata: str) -> None:
    if _pg(conn):
        from learn.store import pg_vectors

        return pg_vectors.upsert(conn, table, rowid, vector, dim, metadata)
    # vec0 has no UPSERT; delete then insert, inside the caller's transaction.
    conn.execute(f"DELETE FROM {check_identifier(table)} WHERE rowid = $1", (rowid,))
    cols = "".join(f", {check_identifier(k)}" for k in metadata)
    marks = "".join(f", ${n}" for n in range(3, 3 + len(metadata)))
    conn.execute(
        f"INSERT INTO {table} (rowid, embedding{cols}) VALUES ($1, $2{marks})",
        (rowid, to_blob(vector, dim), *metadata.values()),
    )


def delete(conn: Connection, table: str, rowid: int) -> None:
    if _pg(conn):
        from learn.store import pg_vectors

        return pg_vectors.delete(conn, table, rowid)
    conn.execute(f"DELETE FROM {check_identifier(table)} WHERE rowid = $1", (rowid,))


def knn(
    conn: Connection, table: str, vector: Vector, k: int, dim: int, **where: str
) -> list[tuple[int, float]]:
    """(rowid, cosine distance) of the k nearest rows, nearest first; `where` filters metadata."""
    if k <= 0:
        return []
    k = min(k, MAX_K)
    if _pg(conn):
        from learn.store import pg_vectors

        return pg_vectors.knn(conn, table, vector, k, dim, where)
    filters = "".join(f" AND {check_identifier(c)} = ${i}" for i, c in enumerate(where, 3))
    rows = conn.execute(
        f"SELECT rowid, distance FROM {check_identifier(table)} "
        f"WHERE embedding MATCH $1 AND k = $2{filters} ORDER BY distance",
        (to_blob(vector, dim), int(k), *where.values()),
    ).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]


def sqlite_vec_version() -> tuple[str, str | None]:
    """(SQLite's version, sqlite-vec's) on a fresh in-memory connection with sqlite-vec
    loaded through apsw (`learn doctor`); raises whatever loading it raises."""
    import apsw

    from learn.store.db import load_vec

    conn = apsw.Connection(":memory:")
    try:
        load_vec(conn)
        row = conn.execute("SELECT vec_version()").fetchone()
        return apsw.sqlite_lib_version(), (str(row[0]) if row else None)
    finally:
        conn.close()
