"""The vector format and the registry of vector tables, shared by both engines.

A vector is float32 little-endian bytes (vec0's format; pgvector gets the same
values as text). `vector_tables` maps (purpose, embedding space) to its table on
either engine. A leaf: learn.store.vectors (sqlite-vec) and learn.store.pg_vectors
(pgvector) both read it, and the first dispatches to the second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from learn.store.connection import Connection

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32] | Sequence[float]
else:
    Vector = Any


# sqlite-vec refuses k above 4096 in a KNN query.
MAX_K = 4096


def to_blob(vector: Vector, dim: int | None = None) -> bytes:
    """float32 little-endian bytes, the format vec0 stores."""
    import numpy as np

    arr = np.asarray(vector, dtype="<f4").reshape(-1)
    if dim is not None and arr.shape[0] != dim:
        raise ValueError(f"vector has {arr.shape[0]} dimensions, the space has {dim}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("vector has non-finite values")
    return arr.tobytes()


def from_blob(blob: bytes) -> npt.NDArray[np.float32]:
    import numpy as np

    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def find_table(conn: Connection, purpose: str, space: str) -> tuple[str, int] | None:
    row = conn.execute(
        "SELECT table_name, dim FROM vector_tables WHERE purpose = $1 AND space = $2",
        (purpose, space),
    ).fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


def registered(conn: Connection, purpose: str, space: str, dim: int) -> str | None:
    """The table already registered for (purpose, space), checked against `dim`."""
    found = find_table(conn, purpose, space)
    if found is None:
        return None
    name, have = found
    if have != dim:
        raise ValueError(f"space {space!r} is registered with dim {have}, got {dim}")
    return name
