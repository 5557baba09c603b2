"""Stage 2, mine: collect pending Message Batches (and submit new ones with
--batch), then mine the sessions the cache does not hold, with the model.
Mining only fills and reads the mining cache; nothing here touches the store
of verdicts."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from learn.config import Config
from learn.pipeline.read import Read
from learn.pipeline.types import Clock, Progress, RunOptions, Trace, TraceOccurrence
from learn.records.proposal import Funnel, RunResult, RunUsage

if TYPE_CHECKING:
    from learn.mining.miner import SessionMineResult
    from learn.models.meter import UsageMeter
    from learn.transcripts.view.model import Session


@dataclass
class Mined:
    """What the model found per session, and the books of how it went."""

    results: dict[str, SessionMineResult] = field(default_factory=dict)
    cached: int = 0  # served from the mining cache (not counting batch results)
    failed: int = 0  # sessions whose mining failed
    from_batch: set[str] = field(default_factory=set)  # mined by a batch this run collected
    # Sessions the model did not finish this run (failed, a chunk failed, or left in a batch).
    incomplete: list[str] = field(default_factory=list)
    in_batch: int = 0  # of those, left in a batch this run could not collect (no result)
    verification: dict[str, int] = field(default_factory=dict)  # quotes kept/dropped by reason
    failures: list[str] = field(default_factory=list)
    failed_stages: list[str] = field(default_factory=list)
    collected: RunResult | None = None  # set when the run only collected batches

    def nothing_sent(self) -> list[str]:
        """The sessions with nothing to send (no typed turn left, no failure): no call
        made, none counted as read, mined or cached; the digest says what they were."""
        return [sid for sid, r in self.results.items()
                if not r.failed and r.chunks == 0 and sid not in self.from_batch]

    def sessions_mined(self) -> int:
        # A session a batch mined counts as mined by the run that collects it. One with
        # nothing to send (no typed turn, no failure: `mine_session` asks nothing) was
        # read by no model: "Read by the model this run: 2" counted two such sessions of
        # a run that made no call (the real-transcript check, 2026-12).
        return sum(1 for r in self.results.values()
                   if not r.failed and (r.session_id in self.from_batch
                                        or (not r.cached and r.chunks > 0)))


def mine(read: Read, options: RunOptions, config: Config, meter: UsageMeter | None, *,
         clock: Clock, trace: Trace, progress: Progress | None,
         notify: Callable[[str], None] | None) -> Mined:
    from learn.mining.indexed_cache import IndexedMineCache
    from learn.mining.miner import mine_sessions

    out = Mined()
    sessions = read.sessions
    held: set[str] = set()  # sessions left in a batch this run could not collect
    with clock.stage("mine"):
        if meter is not None and sessions:
            total = len(sessions)
            counter = [0]

            def on_progress(_: SessionMineResult) -> None:
                counter[0] += 1
                if progress:
                    progress("mine", counter[0], total)

            mine_cache = IndexedMineCache(read.digests)
            # Pending batches (any process's) are collected before anything is
            # mined, so no session is paid for twice; with --batch the uncached
            # ones are batched. Both only fill the cache mine_sessions reads.
            from learn.mining.batch import backfill

            batched = backfill(
                sessions, meter.inner, model=config.models.mine, cache=mine_cache,
                store=options.store_path, submit_new=options.batch, fingerprints=read.fingerprints,
                context_window=config.models.context_window, progress=progress, say=notify,
            )
            meter.add(batched.usage)
            if notify is not None:
                for line in batched.notices:
                    notify(f"batch: {line}")
            if batched.failure is not None:
                out.failures.append(f"batch: {batched.failure}")
                out.failed_stages.append("batch")
            keys = _cache_keys(sessions, mine_cache)
            out.from_batch = {sid for sid, key in keys.items() if key in batched.collected_keys}
            # In a batch this run could not poll or read: paid for, so not mined
            # again directly; the next run collects it.
            held = {sid for sid, key in keys.items() if key in batched.left_pending}
            to_mine = [s for s in sessions if s.id not in held]
            if options.collect_only:
                out.collected = _collected(batched, len(sessions), len(out.from_batch),
                                           out.failures, out.failed_stages,
                                           meter.run_usage())
                return out
            results = mine_sessions(
                to_mine,
                meter,
                model=config.models.mine,
                cache=mine_cache,
                concurrency=config.mining.concurrency,
                fingerprints=read.fingerprints,
                context_window=config.models.context_window,
                on_progress=on_progress,
            )
            for r in results:
                _book(out, r, trace)
            if mine_cache.write_failure is not None:
                # A failure of the run, not news: `--quiet` (the /learn command's own
                # line) silenced the notice, and a full disk cost every later run the
                # whole mining again with nothing said.
                out.failures.append(
                    f"could not write the mining cache ({mine_cache.write_failure}): "
                    "what this run mined will be mined, and paid for, again by the next run")

    out.incomplete = [sid for sid, r in out.results.items() if r.failed or r.failed_chunks]
    if out.incomplete:
        out.failed_stages.append("mine")
    out.incomplete += sorted(held)
    out.in_batch = len(held)
    out.verification = _verification_tally(out.results.values())
    return out


def _book(out: Mined, r: SessionMineResult, trace: Trace) -> None:
    """One session's mining result into the books: counts, failures, drops."""
    out.results[r.session_id] = r
    if r.cached and r.session_id not in out.from_batch and r.chunks > 0:
        # A kept answer of a session with nothing to send (chunks 0: no typed turn, no
        # failure) is no session read: counted, the digest's "of your last N sessions"
        # grew on the run after the first (5, then 7, for the same sessions).
        out.cached += 1
    if r.failed:
        out.failed += 1
        out.failures.append(f"mine: session {r.session_id}: {r.error}")
    elif r.failed_chunks:
        out.failures.append(
            f"mine: session {r.session_id}: {r.failed_chunks} of {r.chunks} chunk(s) "
            f"failed: {r.chunk_error}"
        )
    for d in r.dropped:
        trace.dropped.append(TraceOccurrence(r.session_id, d.kind, d.text, "", d.command, d.source))


def _collected(batched: Any, seen: int, mined: int, failures: Sequence[str],
               failed_stages: Sequence[str], usage: RunUsage) -> RunResult:
    """What `collect_only` did, as a result: sessions mined by the batches it collected."""
    return RunResult(
        proposals=(), funnel=Funnel(),
        usage=dataclasses.replace(usage, sessions_seen=seen, sessions_mined=mined),
        failures=tuple(failures), failed_stages=tuple(failed_stages),
        extra={"collected": list(batched.collected), "retry_sessions": batched.retry_sessions,
               "left_pending": len(batched.left_pending)},
    )


def _cache_keys(sessions: Sequence[Session], cache: Any) -> dict[str, str]:
    """Session id -> mining-cache key, for the sessions with a readable file."""
    out: dict[str, str] = {}
    for s in sessions:
        if s.path is not None:
            with contextlib.suppress(OSError):
                out[s.id] = cache.key_for_file(s.path)
    return out


def _verification_tally(results: Iterable[SessionMineResult]) -> dict[str, int]:
    """Quotes kept and dropped per reason, over the sessions mined or served from cache."""
    from learn.mining.verify import REASONS

    tally = dict.fromkeys(("kept", *REASONS), 0)
    for r in results:
        if r.failed:
            continue
        tally["kept"] += sum(1 for c in r.candidates if c.source == "miner")
        for reason, n in r.dropped_by_reason.items():
            tally[reason] = tally.get(reason, 0) + n
    return tally
