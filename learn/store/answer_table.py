"""Model answers kept by the exact request they answered (learn.reduce.answers.request_key).

A coverage answer had no home: a `learn run` killed or interrupted after it (while
judging, the longest stage after mining) paid for it again on the next run (1 of 1
coverage calls on the demo corpus, tests/test_paid_answers_kept.py). A row is the
answer's rows as JSON, committed when the answer is parsed, and read back only for
the same key: the same step, model, prompt, tool and items.

This machine's, in the local SQLite store beside the session index (migration
`0027_answer_cache`): a row holds ids and verdicts, never a quote (the key is a
hash), and a shared database's rows are anyone's to write, which an answer read
back as the model's must not be.

A row is for the run after a stopped one, or a run asking the very same thing again
soon: rows older than KEEP_DAYS go when the next answer is kept, so the table does not
grow with every run a machine ever made.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from learn.store.db import SqliteConnection

KEEP_DAYS: Final = 30


class AnswerTable:
    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn

    def get(self, key: str) -> list[Any] | None:
        """The rows kept for `key`, or None (none kept, or not a list of rows)."""
        row = self._conn.execute("SELECT rows_json FROM answer_cache WHERE request_key = $1",
                                 (key,)).fetchone()
        if row is None:
            return None
        try:
            rows = json.loads(str(row[0]))
        except ValueError:
            return None
        return rows if isinstance(rows, list) else None

    def put(self, key: str, step: str, rows: Sequence[Any], *,
            now: datetime | None = None) -> None:
        """Keep `rows` for `key`, committed before this returns; rows older than
        KEEP_DAYS go in the same transaction."""
        at = now or datetime.now(UTC)
        cutoff = (at - timedelta(days=KEEP_DAYS)).isoformat(timespec="seconds")
        with self._conn:
            self._conn.execute("DELETE FROM answer_cache WHERE created_at < $1", (cutoff,))
            self._conn.execute(
                "INSERT INTO answer_cache (request_key, step, rows_json, created_at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (request_key) DO UPDATE SET "
                "step = excluded.step, rows_json = excluded.rows_json, "
                "created_at = excluded.created_at",
                (key, step, json.dumps(list(rows), ensure_ascii=False),
                 at.isoformat(timespec="seconds")),
            )
