"""The main job, stage by stage. `run_pipeline` (run.py) calls four stages in
order; each takes what the stages before it returned and returns its own
result, so data flows one way:

  read.py        read_sessions     discover -> parse -> view -> detect; machinery cut   -> Read
  mine.py        mine              collect/submit batches, mine with the model           -> Mined
  candidates.py  session_candidates  miner + detectors merged, resumed copies dropped   -> Candidates
  judge.py       judge_and_store   record scan -> name, count, cover, judge (reduce)
                                   -> outcomes of rules in place -> record run          -> RunResult

stored.py is what judge.py writes to the store besides the run's result (the
scan, the labels given; what an earlier run stored, read back); coverage_scope.py
keeps a point's coverage to the rule files that load where it was said; warm.py
answers a run with nothing new from the store.
types.py holds what every stage shares: RunOptions, the Trace the evals read,
the stage Clock. Each stage is a library call; this package only wires them and
keeps the books (timings, usage, failures).

The names below are imported on first use: a run with nothing new (warm.py)
needs RunOptions and none of the stages, whose imports (the reducer, the
embedders, the model clients) were a third of its CPU.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from learn.lazy import lazy_getattr

if TYPE_CHECKING:
    from learn.pipeline.candidates import merge_candidates
    from learn.pipeline.read import _drop_repeated_prompts
    from learn.pipeline.run import run_pipeline
    from learn.pipeline.types import Progress, RunOptions, Trace, TraceOccurrence, empty_result
    from learn.reduce.stage import reduce_failures

_WHERE = {
    "Progress": "learn.pipeline.types",
    "RunOptions": "learn.pipeline.types",
    "Trace": "learn.pipeline.types",
    "TraceOccurrence": "learn.pipeline.types",
    "empty_result": "learn.pipeline.types",
    "_drop_repeated_prompts": "learn.pipeline.read",
    "merge_candidates": "learn.pipeline.candidates",
    "run_pipeline": "learn.pipeline.run",
    "reduce_failures": "learn.reduce.stage",
}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "Progress",
    "RunOptions",
    "Trace",
    "TraceOccurrence",
    "_drop_repeated_prompts",
    "empty_result",
    "merge_candidates",
    "reduce_failures",
    "run_pipeline",
]
