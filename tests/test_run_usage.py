"""A run's usage kept on disk as its calls return (learn.store.run_usage), on both engines.

The killed process itself is tests/test_run_usage_killed.py; here, what the row
holds at each step, that the run's end is final, and that a failed write never
fails the model call that paid for it.
"""

from __future__ import annotations

import threading
from pathlib import Path

from learn.models.base import CallUsage, ModelRequest, ModelResponse, ToolSpec
from learn.models.meter import UsageMeter
from learn.report.stats import read_store_stats
from learn.store import open_store
from learn.store.run_usage import RunningUsage

TOOL = ToolSpec("record_candidates", "Record.", {"type": "object", "properties": {}})
PAID = CallUsage(input_tokens=100, output_tokens=20, cache_read_tokens=10, cost_usd=0.25, calls=1)


class Paid:
    """A backend whose every answer costs PAID."""

    name = "paid"

    def call(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse({}, request.model, usage=PAID)


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "system", TOOL, "user")


def _metered(target: Path | str) -> tuple[UsageMeter, RunningUsage]:
    meter = UsageMeter(Paid())
    running = RunningUsage(target, meter.run_usage)
    meter.on_usage = running.record
    return meter, running


def test_no_row_before_the_first_paid_call_then_one_unfinished_row_with_the_total(
        store_target: Path | str) -> None:
    meter, running = _metered(store_target)
    try:
        meter.add(CallUsage())  # nothing paid: no run on record
        assert running.run_id is None
        for _ in range(3):
            meter.call(_request())
    finally:
        running.close()
    with open_store(store_target) as store:
        (row,) = store.runs.usage_rows()
    assert row["finished_at"] is None
    stats = read_store_stats(store_target)
    assert stats is not None
    assert (stats.runs, stats.finished_runs, stats.model_calls) == (1, 0, 3)
    assert (stats.input_tokens, stats.output_tokens) == (330, 60)  # cached reads are input
    assert stats.cost_usd == 0.75


def test_the_judge_stage_gets_the_row_the_first_call_started_and_a_killed_run_shows_no_digest(
        store_target: Path | str) -> None:
    with open_store(store_target) as store:
        killed = store.runs.start_run({})  # a run killed before its digest
    meter, running = _metered(store_target)
    try:
        meter.call(_request())
        first = running.run_id
        assert running.start() == first  # the judge stage finishes this row, not a new one
        with open_store(store_target) as store:
            assert store.runs.count() == 2
            assert first is not None and store.runs.results_before(first) == 0  # first digest
            store.runs.finish_run(killed, usage=None, result={"proposals": []})
            assert store.runs.results_before(first) == 1
    finally:
        running.close()


def test_the_end_of_the_run_is_final_a_late_call_does_not_write_over_it(
        store_target: Path | str) -> None:
    meter, running = _metered(store_target)
    try:
        meter.call(_request())
        run_id = running.start()
        with open_store(store_target) as store:
            store.runs.finish_run(run_id, usage={"model_calls": 7, "cost_usd": 9.0}, result=None)
        meter.call(_request())  # a straggler returning after the books were closed
    finally:
        running.close()
    with open_store(store_target) as store:
        run = store.runs.get_run(run_id)
    assert run is not None and run.usage == {"model_calls": 7, "cost_usd": 9.0}


def test_calls_returning_on_many_threads_leave_the_full_total(tmp_path: Path) -> None:
    target = tmp_path / "learn.db"
    meter, running = _metered(target)
    try:
        threads = [threading.Thread(target=lambda: [meter.call(_request()) for _ in range(5)])
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        running.close()
    stats = read_store_stats(target)
    assert stats is not None and stats.model_calls == 20 and stats.cost_usd == 5.0


def test_a_write_that_fails_does_not_fail_the_paid_call(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    meter, running = _metered(blocked / "learn.db")  # cannot be created
    try:
        response = meter.call(_request())
    finally:
        running.close()
    assert response.usage == PAID and meter.usage == PAID
    assert running.failed_writes == 1 and running.run_id is None


def test_calls_do_not_queue_behind_a_write_the_store_holds_up(tmp_path: Path) -> None:
    """Another process holding the store's write lock holds up one call's write (the
    busy timeout), not every call: the others return, and their usage is in the total
    the held write makes once the store is free."""
    import time

    import apsw

    target = tmp_path / "learn.db"
    open_store(target).close()
    holder = apsw.Connection(str(target))
    holder.execute("BEGIN IMMEDIATE")
    meter, running = _metered(target)
    try:
        first = threading.Thread(target=lambda: meter.call(_request()))
        first.start()
        deadline = time.monotonic() + 10
        while not running._lock.locked() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert running._lock.locked()  # the first call's write waits on the store
        others = [threading.Thread(target=lambda: meter.call(_request())) for _ in range(3)]
        for t in others:
            t.start()
        for t in others:
            t.join(timeout=3)  # the busy timeout is 5 s: queued behind it, they would not be back
        assert not any(t.is_alive() for t in others)
        assert first.is_alive()  # still held up by the store
        holder.execute("COMMIT")
        first.join(timeout=30)
        assert not first.is_alive()
    finally:
        holder.close()
        running.close()
    stats = read_store_stats(target)
    assert stats is not None and stats.model_calls == 4 and stats.cost_usd == 1.0
