"""What a run is asked to do (RunOptions) and what it keeps beside its result
(Trace: occurrences, drops, wall time per stage), shared by every stage."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from learn.records.proposal import Funnel, RunResult, RunUsage


@dataclass(frozen=True, slots=True)
class RunOptions:
    project: Path | None = None  # default: the current directory
    all_projects: bool = False
    since: datetime | None = None
    limit: int | None = None
    offline: bool = False  # no model: detectors + local embeddings only
    show_all: bool = False  # ignore suppression
    embedder: Literal["minilm", "tfidf"] = "minilm"
    store_path: Path | None = None
    # Submit the uncached sessions' mining as a Message Batch (learn.mining.batch).
    batch: bool = False
    # Only collect pending Message Batches into the mining cache, then stop
    # (`learn batches --collect`): no direct mining, naming or store writes.
    collect_only: bool = False
    # Mine the typed turns of sessions a program started (transcripts.origin).
    include_programmatic: bool = False

    def project_dir(self) -> Path:
        """The one project a run not over every project reads (default: here)."""
        return self.project or Path.cwd()


@dataclass(frozen=True, slots=True)
class TraceOccurrence:
    session: str
    kind: str
    text: str
    label: str
    command: str | None = None
    source: str = "miner"


@dataclass
class Trace:
    """What the evals need beyond the result: every verified occurrence with its
    label, what verification dropped, and wall time per stage."""

    labelled: list[TraceOccurrence] = field(default_factory=list)
    dropped: list[TraceOccurrence] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    naming: dict[str, Any] = field(default_factory=dict)
    discovered: int = 0


Progress = Callable[[str, int, int], None]  # (stage, done, total)


class Clock:
    """Adds each stage's wall time to the trace (a stage may run in several parts)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.trace.stage_seconds[name] = self.trace.stage_seconds.get(name, 0.0) + (
                time.perf_counter() - started
            )


def iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def empty_result(*, offline: bool = False) -> RunResult:
    return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(), offline=offline)
