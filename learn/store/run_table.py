"""Runs: when each `learn run` started and finished, its arguments, usage and result.

The result is kept twice: `result_json` (RunResult.to_json(), what the digest
shows) and `result_full_json` (every field, learn.store.run_json, so `learn
digest` rebuilds the run exactly with no model call). Every method goes through
FeedbackStore's write path, so it joins the caller's open transaction() or
commits on its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from learn.isotime import now_iso as _now
from learn.store.connection import Connection
from learn.store.feedback import FeedbackStore


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: int
    started_at: str
    finished_at: str | None
    args: dict[str, Any]
    usage: dict[str, Any] | None
    result: dict[str, Any] | None  # RunResult.to_json()
    result_full: dict[str, Any] | None = None  # every field (learn.store.run_json rebuilds from it)


def loads(value: Any) -> Any:
    return None if value is None else json.loads(value)


class RunTable:
    """The runs table over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def start_run(self, args: Mapping[str, Any], *, started_at: str | None = None) -> int:
        def run(conn: Connection) -> int:
            (rid,) = conn.execute(
                "INSERT INTO runs (started_at, args_json) VALUES ($1, $2) RETURNING id",
                (started_at or _now(), json.dumps(dict(args), default=str)),
            ).fetchone()
            return int(rid)

        return self.store._write(run)

    def finish_run(
        self,
        run_id: int,
        *,
        usage: Mapping[str, Any] | None,
        result: Mapping[str, Any] | None,
        result_full: Mapping[str, Any] | None = None,
        finished_at: str | None = None,
    ) -> None:
        """Close a run with its usage and RunResult JSON (`result` is RunResult.to_json();
        `result_full` every field, for an exact rebuild: see learn.store.runs)."""
        n = self.store.execute(
            "UPDATE runs SET finished_at = $1, usage_json = $2, result_json = $3, "
            "result_full_json = $4 WHERE id = $5",
            (
                finished_at or _now(),
                None if usage is None else json.dumps(dict(usage)),
                None if result is None else json.dumps(dict(result)),
                None if result_full is None else json.dumps(dict(result_full), default=str),
                int(run_id),
            ),
        )
        if n == 0:
            raise KeyError(f"no run {run_id}")

    def record_usage(self, run_id: int, usage: Mapping[str, Any]) -> None:
        """The usage so far of a run still going (learn.store.run_usage): one statement, the
        total, so a crash leaves the last total whole. A finished run's books are final."""
        self.store.execute(
            "UPDATE runs SET usage_json = $1 WHERE id = $2 AND finished_at IS NULL",
            (json.dumps(dict(usage)), int(run_id)),
        )

    def _run(self, row: Mapping[str, Any]) -> RunRecord:
        return RunRecord(
            id=int(row["id"]),
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            args=json.loads(row["args_json"]),
            usage=loads(row["usage_json"]),
            result=loads(row["result_json"]),
            result_full=loads(row.get("result_full_json")),
        )

    def get_run(self, run_id: int) -> RunRecord | None:
        rows = self.store.sql("SELECT * FROM runs WHERE id = $1", (int(run_id),))
        return self._run(rows[0]) if rows else None

    def last_run(self, *, finished: bool = True) -> RunRecord | None:
        """The newest run (only those with a result when `finished`)."""
        where = "WHERE result_json IS NOT NULL" if finished else ""
        rows = self.store.sql(f"SELECT * FROM runs {where} ORDER BY id DESC LIMIT 1")
        return self._run(rows[0]) if rows else None

    def stored_results(self) -> list[dict[str, Any]]:
        """(finished_at, result_full_json) of every run with a full result, newest first."""
        return self.store.sql(
            "SELECT finished_at, result_full_json FROM runs "
            "WHERE result_full_json IS NOT NULL ORDER BY id DESC"
        )

    def usage_rows(self) -> list[dict[str, Any]]:
        """(id, started_at, finished_at, usage_json) of every run, oldest first: `learn stats`."""
        return self.store.sql("SELECT id, started_at, finished_at, usage_json FROM runs ORDER BY id")

    def count(self) -> int:
        (row,) = self.store.sql("SELECT COUNT(*) AS n FROM runs")
        return int(row["n"])

    def results_before(self, run_id: int) -> int:
        """Runs started before run `run_id` that finished with a result: a digest was
        shown. A run killed mid-way, or one that only collected batches, showed none."""
        (row,) = self.store.sql("SELECT COUNT(*) AS n FROM runs WHERE id < $1 AND "
                                "result_json IS NOT NULL", (int(run_id),))
        return int(row["n"])
