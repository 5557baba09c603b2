"""run_pipeline: the four stages in order (see the map in learn/pipeline/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from learn.config import Config
from learn.models.base import Backend
from learn.pipeline.candidates import session_candidates
from learn.pipeline.judge import judge_and_store
from learn.pipeline.mine import mine
from learn.pipeline.read import read_sessions
from learn.pipeline.types import Clock, Progress, RunOptions, Trace
from learn.records.proposal import RunResult


def run_pipeline(
    options: RunOptions,
    config: Config,
    *,
    backend: Backend | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
) -> tuple[RunResult, Trace]:
    """Run the whole job. `backend=None` with `options.offline` runs without a model.
    `notify` gets one-line news a user should see as it happens (a batch submitted,
    one collected from an earlier run)."""
    from learn.models.meter import UsageMeter
    from learn.store.run_usage import RunningUsage

    if backend is None and not options.offline:
        raise ValueError("a backend is required unless offline")
    trace = Trace()
    clock = Clock(trace)
    # Every call of the run goes through the meter, failed ones included, and each
    # one's usage is on disk as it returns: a run killed mid-way still counts it.
    meter = running = None
    if not options.offline and backend is not None:
        meter = UsageMeter(backend)
        running = RunningUsage(options.store_path, meter.run_usage)
        meter.on_usage = running.record
    started_at = datetime.now(UTC)

    try:
        read = read_sessions(options, config, clock=clock, trace=trace, progress=progress)
        mined = mine(read, options, config, meter, clock=clock, trace=trace, progress=progress,
                     notify=notify)
        if mined.collected is not None:  # `learn batches --collect`: nothing more to do
            if running is not None:
                running.finish()
            return mined.collected, trace
        cands = session_candidates(read, mined)
        result = judge_and_store(options, config, read, mined, cands, meter, clock=clock,
                                 trace=trace, progress=progress, started_at=started_at,
                                 running=running)
    finally:
        if running is not None:
            running.close()
    return result, trace
