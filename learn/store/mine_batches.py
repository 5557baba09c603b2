"""Submitted Message Batch items, so a batch outlives the process that submitted it.

One row per request in a batch: the batch id, the request's custom_id, the
session it mines (by id and by mining-cache key) and whether its results were
collected. The row is committed right after `batches.create` returns: a
`kill -9` after that loses nothing, and the next `learn run` (any process)
collects the batch instead of mining its sessions again. Lives in the local
SQLite store beside the session index (migration `0009_mine_batches`, in
learn.store.migrations).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learn.store.db import SqliteConnection


@dataclass(frozen=True, slots=True)
class BatchItem:
    batch_id: str
    custom_id: str
    session_id: str
    cache_key: str
    chunk: int


class BatchTable:
    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn

    def record(self, items: Sequence[BatchItem]) -> None:
        now = datetime.now(UTC).isoformat()
        with self._conn:
            self._conn.executemany(
                "INSERT INTO mine_batches (batch_id, custom_id, session_id, cache_key, chunk, "
                "submitted_at) VALUES ($1, $2, $3, $4, $5, $6)",
                [(i.batch_id, i.custom_id, i.session_id, i.cache_key, i.chunk, now) for i in items],
            )

    def pending(self) -> dict[str, list[BatchItem]]:
        """Uncollected items by batch id, in submission order."""
        rows = self._conn.execute(
            "SELECT batch_id, custom_id, session_id, cache_key, chunk FROM mine_batches "
            "WHERE collected = 0 ORDER BY submitted_at, batch_id, chunk"
        ).fetchall()
        out: dict[str, list[BatchItem]] = {}
        for batch_id, custom_id, session_id, key, chunk in rows:
            out.setdefault(str(batch_id), []).append(
                BatchItem(str(batch_id), str(custom_id), str(session_id), str(key), int(chunk)))
        return out

    def mark_collected(self, batch_id: str) -> None:
        with self._conn:
            self._conn.execute("UPDATE mine_batches SET collected = 1 WHERE batch_id = $1", (batch_id,))

