"""Backfills through Message Batches: submit the mining calls, collect them, cache them.

The batch path only fills the mining cache. `backfill` collects every pending
batch the store knows of (submitted by this process or one killed since) and,
when asked, first submits the uncached sessions not already pending, split to
the API's per-batch limits (`BatchLimits`: 100,000 requests or 256 MB; a
session's chunks always share a batch, so one collection sees all of them).
It then polls every pending batch on one adaptive schedule (`PollSchedule`:
seconds at first, backing off to a cap; a fixed 30 s poll made a 2 s batch
cost 30 s) and collects each as it ends. Every succeeded session is parsed,
checked (`check_answer`) and verified (`verify_candidates`) exactly as a direct
call would be, and cached with `MineCache.put`; the normal `mine_sessions`
that follows serves it from the cache. A session with an errored, expired,
canceled or cut chunk is not cached, so `mine_sessions` mines it directly in
the same run: that is the retry, and a session is never paid for twice
because a pending batch's sessions are collected before anything is mined.

Every batch call (create, status, results) is retried and paced like a direct
call (`AnthropicBackend.batch_call`). One that still fails is not a traceback:
the report carries one line (`failure`); a batch that was not created leaves
its sessions to direct mining; a batch that could not be polled or read stays
pending (`left_pending`), its sessions are not mined directly (they are paid
for), and the next run collects it. An endpoint without Message Batches, or one
that does not know the batch (`NO_BATCHES`), is no failure: the sessions are
mined directly in the same run and the person is told (`notices`).

Chunks are rendered exactly as `mine_session` renders them, of what the miner sends
of each session (`sent.SentViews`: not the turns a resumed session copied from one
mined with it); the repair turns and chunk splitting of a direct call are left to
the direct retry.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from learn.mining.cache import MineCache, rendered_key
from learn.mining.miner import default_chunk_chars, session_candidates
from learn.mining.parse import check_answer
from learn.mining.prompt import build_request
from learn.mining.sent import SentViews
from learn.mining.verify import session_commands, verify_candidates
from learn.models.base import CallUsage, ModelError, ModelRequest
from learn.models.batches import (
    MAX_BATCH_BYTES,
    MAX_BATCH_REQUESTS,
    batch_backend,
    entry_bytes,
    request_entry,
    results,
    status,
    submit,
)
from learn.models.catalog import model_info
from learn.records.candidate import MinedCandidate
from learn.render.chunk import chunk_groups, fit_chunk, hard_chunk_chars, mine_max_tokens
from learn.render.render import render_blocks
from learn.render.spoken import spoken_turns
from learn.store import open_store
from learn.store.mine_batches import BatchItem
from learn.transcripts.view.model import Session

# Above this many uncached sessions on the anthropic backend, `learn run`
# offers a batch: half the price, and no rate limit to wait on.
BATCH_ABOVE: Final = 200
# What an endpoint answers for Message Batches it does not have (a gateway or proxy
# that serves /v1/messages alone: 404 for the route, 405 for the method), or for a
# batch it does not know (expired after the API's 29 days, or submitted through
# another endpoint or key). Neither changes by asking again: the sessions are mined
# directly, in the same run, and the run is not failed for it. Before, a gateway
# without batches failed every `--batch` run ("batch submit failed after retries",
# exit 1), and a batch the endpoint did not know stayed pending forever, its
# sessions never mined.
NO_BATCHES: Final = frozenset({404, 405})

Progress = Callable[[str, int, int], None]
Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BatchLimits:
    """Per-batch limits; the API's published ones by default, small ones in tests."""

    max_requests: int = MAX_BATCH_REQUESTS
    max_bytes: int = MAX_BATCH_BYTES


@dataclass(frozen=True, slots=True)
class PollSchedule:
    """Seconds between status polls: `first`, then times `factor`, at most `cap`."""

    first: float = 2.0
    factor: float = 1.5
    cap: float = 60.0

    def waits(self) -> Iterator[float]:
        wait = min(self.first, self.cap)
        while True:
            yield wait
            wait = min(self.cap, wait * self.factor)


# The limits `backfill` splits to unless told otherwise (tests set small ones here).
LIMITS = BatchLimits()


def poll_schedule() -> PollSchedule:
    """The default schedule; `LEARN_BATCH_POLL` (seconds) caps it (tests, benchmarks)."""
    raw = os.environ.get("LEARN_BATCH_POLL")
    try:
        cap = float(raw) if raw else None
    except ValueError:
        cap = None
    return PollSchedule() if cap is None or cap <= 0 else PollSchedule(cap=cap)


@dataclass
class BackfillReport:
    submitted: list[str] = field(default_factory=list)  # batch ids
    collected: list[str] = field(default_factory=list)
    cached_sessions: int = 0
    # Cache keys of the sessions a batch mined and this run collected: mined by
    # this run (at the batch price), though `mine_sessions` then reads them from the cache.
    collected_keys: set[str] = field(default_factory=set)
    retry_sessions: int = 0  # left for direct mining: an item errored, expired or was cut
    # Cache keys in a batch this run could not poll or read: not mined directly
    # (they are paid for); the next run collects them.
    left_pending: set[str] = field(default_factory=set)
    failure: str | None = None  # one line, when a batch call still failed after its retries
    # Lines to tell the person that are no failure: batches this endpoint does not
    # offer or no longer knows (NO_BATCHES), whose sessions are mined directly.
    notices: list[str] = field(default_factory=list)
    usage: CallUsage = field(default_factory=CallUsage)


def session_requests(session: Session, *, model: str, fingerprints: Sequence[str] = (),
                     chunk_chars: int, context_window: int | None = None) -> list[ModelRequest]:
    """The mining requests of one session, one per chunk, as `mine_session` sends them."""
    if not session.human_turns and not session.failures:
        return []
    info = model_info(model, context_window=context_window)
    max_tokens = mine_max_tokens(info.context_window, info.max_output_tokens)
    hard_limit = hard_chunk_chars(chunk_chars)
    return [build_request(fit_chunk("\n".join(group), hard_limit), model=model, max_tokens=max_tokens)
            for group in chunk_groups(render_blocks(session, fingerprints), chunk_chars)]


def pack(groups: Sequence[Sequence[tuple[Mapping[str, Any], BatchItem]]],
         limits: BatchLimits) -> tuple[list[list[tuple[Mapping[str, Any], BatchItem]]], int]:
    """Sessions' (entry, item) groups packed into batches within `limits`, in order;
    plus how many sessions fit no batch at all (mined directly)."""
    batches: list[list[tuple[Mapping[str, Any], BatchItem]]] = []
    current: list[tuple[Mapping[str, Any], BatchItem]] = []
    size = too_big = 0
    for group in groups:
        need = sum(entry_bytes(e) for e, _ in group)
        if len(group) > limits.max_requests or need > limits.max_bytes:
            too_big += 1
            continue
        if current and (len(current) + len(group) > limits.max_requests
                        or size + need > limits.max_bytes):
            batches.append(current)
            current, size = [], 0
        current.extend(group)
        size += need
    if current:
        batches.append(current)
    return batches, too_big


def backfill(
    sessions: Sequence[Session],
    backend: Any,
    *,
    model: str,
    cache: MineCache,
    store: Path | None = None,
    submit_new: bool = True,
    fingerprints: Sequence[str] = (),
    context_window: int | None = None,
    progress: Progress | None = None,
    say: Say | None = None,
    sleep: Callable[[float], None] = time.sleep,
    limits: BatchLimits | None = None,
    schedule: PollSchedule | None = None,
) -> BackfillReport:
    """Collect pending batches, after (with `submit_new`) batching the uncached sessions."""
    report = BackfillReport()
    with open_store(store, local_only=True) as local:
        table = local.batches
        if not submit_new and not table.pending():
            # The common warm run: nothing to collect, so the SDK is never loaded.
            return report
    api = batch_backend(backend)
    if api is None:
        return report
    # What `mine_sessions` sends of each, so a batch neither pays for a resume's copies
    # again nor renders a text other than the direct path's (rendered_key).
    sent = SentViews(sessions)
    by_key: dict[str, Session] = {}
    for s in sessions:
        if s.path is not None:
            with contextlib.suppress(OSError):
                by_key[cache.key_for_file(s.path)] = s
    with open_store(store, local_only=True) as local:
        table = local.batches
        pending = table.pending()
        if pending and say is not None:
            keys = {i.cache_key for items in pending.values() for i in items}
            say(f"collecting {len(pending)} Message Batch{'es' if len(pending) != 1 else ''} "
                f"submitted earlier ({len(keys)} sessions)")
        if submit_new:
            _submit(api, table, pending, by_key, sent, cache, model=model,
                    fingerprints=fingerprints, context_window=context_window,
                    limits=limits or LIMITS, say=say, report=report)
        _wait_and_collect(api, table, pending, by_key, sent, cache, model, fingerprints, report,
                          progress=progress, sleep=sleep, schedule=schedule or poll_schedule())
    return report


def _submit(api: Any, table: Any, pending: dict[str, list[BatchItem]], by_key: dict[str, Session],
            sent: SentViews, cache: MineCache, *, model: str, fingerprints: Sequence[str],
            context_window: int | None, limits: BatchLimits, say: Say | None,
            report: BackfillReport) -> None:
    in_flight = {i.cache_key for items in pending.values() for i in items}
    budget = default_chunk_chars(model, context_window=context_window)
    groups: list[list[tuple[Mapping[str, Any], BatchItem]]] = []
    for n, (key, session) in enumerate(by_key.items()):
        if key in in_flight or cache.get(key) is not None:
            continue
        asked = sent.of(session)
        if cache.as_sent(asked.id, render_blocks(asked, fingerprints)) is not None:
            continue  # answered under another version: the miner reuses it (rendered_key)
        reqs = session_requests(asked, model=model, fingerprints=fingerprints,
                                chunk_chars=budget, context_window=context_window)
        if reqs:
            groups.append([(request_entry(f"s{n}-c{c}", req), BatchItem("", f"s{n}-c{c}",
                                                                        session.id, key, c))
                           for c, req in enumerate(reqs)])
    batches, too_big = pack(groups, limits)
    if too_big and say is not None:
        say(f"{too_big} session(s) exceed a batch's limits on their own: mined directly")
    for number, batch in enumerate(batches):
        try:
            batch_id = submit(api, [entry for entry, _ in batch])
        except ModelError as exc:
            left = sum(len({i.cache_key for _, i in b}) for b in batches[number:])
            if exc.status in NO_BATCHES:
                report.notices.append(f"this endpoint offers no Message Batches ({exc}); "
                                      f"{left} session(s) are mined directly instead")
                return
            report.failure = (f"batch submit failed after retries ({exc}); "
                              f"{left} session(s) are mined directly instead")
            return
        items = [BatchItem(batch_id, i.custom_id, i.session_id, i.cache_key, i.chunk)
                 for _, i in batch]
        # Recorded before anything else happens: from here a kill loses nothing.
        table.record(items)
        report.submitted.append(batch_id)
        pending[batch_id] = items
        if say is not None:
            say(f"submitted Message Batch {batch_id} ({len({i.cache_key for i in items})} "
                f"sessions, {len(items)} requests); this run waits for it")


def _wait_and_collect(api: Any, table: Any, pending: dict[str, list[BatchItem]],
                      by_key: dict[str, Session], sent: SentViews, cache: MineCache, model: str,
                      fingerprints: Sequence[str], report: BackfillReport, *,
                      progress: Progress | None, sleep: Callable[[float], None],
                      schedule: PollSchedule) -> None:
    """Poll every pending batch on one schedule; collect each as soon as it has ended."""
    waiting = dict(pending)
    sizes = {bid: len(items) for bid, items in waiting.items()}
    done: dict[str, int] = dict.fromkeys(waiting, 0)
    waits = schedule.waits()
    while waiting:
        for batch_id, items in list(waiting.items()):
            try:
                st = status(api, batch_id)
            except ModelError as exc:
                if exc.status in NO_BATCHES:
                    _give_up(table, report, waiting, batch_id, items, exc)
                    done[batch_id] = sizes[batch_id]
                    continue
                _leave(report, waiting, batch_id, items, f"status of batch {batch_id}", exc)
                continue
            done[batch_id] = sizes[batch_id] - st.counts.get("processing", 0)
            if not st.ended:
                continue
            try:
                _collect(api, batch_id, items, by_key, sent, cache, model, fingerprints, report)
            except ModelError as exc:
                if exc.status in NO_BATCHES:
                    _give_up(table, report, waiting, batch_id, items, exc)
                    done[batch_id] = sizes[batch_id]
                    continue
                _leave(report, waiting, batch_id, items, f"results of batch {batch_id}", exc)
                continue
            table.mark_collected(batch_id)
            report.collected.append(batch_id)
            done[batch_id] = sizes[batch_id]
            del waiting[batch_id]
        if progress is not None:
            progress("batch", sum(done.values()), sum(sizes.values()))
        if waiting:
            sleep(next(waits))


def _leave(report: BackfillReport, waiting: dict[str, list[BatchItem]], batch_id: str,
           items: Sequence[BatchItem], what: str, exc: ModelError) -> None:
    keys = {i.cache_key for i in items}
    report.left_pending |= keys
    report.failure = (f"{what} failed after retries ({exc}); its {len(keys)} session(s) stay "
                      "pending and the next `learn run` collects them")
    del waiting[batch_id]


def _give_up(table: Any, report: BackfillReport, waiting: dict[str, list[BatchItem]],
             batch_id: str, items: Sequence[BatchItem], exc: ModelError) -> None:
    """A batch the endpoint does not know (NO_BATCHES): no longer pending (the table
    has one way to say so), and its sessions, not held, are mined directly."""
    table.mark_collected(batch_id)
    keys = {i.cache_key for i in items}
    report.notices.append(f"Message Batch {batch_id} is not known to this endpoint ({exc}): "
                          f"its {len(keys)} session(s) are mined directly instead")
    del waiting[batch_id]


def _collect(api: Any, batch_id: str, items: Sequence[BatchItem], by_key: dict[str, Session],
             sent: SentViews, cache: MineCache, model: str, fingerprints: Sequence[str],
             report: BackfillReport) -> None:
    # The parser needs only the tool and the model from the request.
    probe = build_request("", model=model, max_tokens=1)
    answers: dict[str, list[MinedCandidate] | None] = {}
    for got in results(api, batch_id, {i.custom_id: probe for i in items}):
        found: list[MinedCandidate] | None = None
        if got.response is not None:
            report.usage = report.usage + got.response.usage
            if got.response.stop_reason != "max_tokens":
                with contextlib.suppress(ModelError, ValueError):
                    found = check_answer(got.response.tool_input)
        answers[got.custom_id] = found
    per_session: dict[str, list[BatchItem]] = {}
    for item in items:
        per_session.setdefault(item.cache_key, []).append(item)
    for key, chunks in per_session.items():
        found_session = by_key.get(key)
        parts = [answers.get(i.custom_id) for i in chunks]
        if found_session is None:
            continue  # not in this run's scope: mined when it is
        # Checked against what was sent of it, as `mine_session` checks a direct answer.
        session = sent.of(found_session)
        if any(p is None for p in parts):
            report.retry_sessions += 1
            continue
        raw = [c for p in parts if p is not None for c in p]
        verified = verify_candidates(raw, spoken_turns(session, fingerprints),
                                     commands=session_commands(session),
                                     failed=session_commands(session, failed=True))
        # Under its text as sent too (rendered_key), as the miner keeps what it asks.
        by_text = (cache.sent(), rendered_key(render_blocks(session, fingerprints)))
        for n, (where, kept_key) in enumerate(((cache, key), by_text)):
            with contextlib.suppress(OSError):
                where.put(kept_key, session_candidates(session, verified.kept),
                          dropped_unverified=verified.dropped_unquoted + verified.dropped_short,
                          chunks=len(chunks), dropped_by_reason=verified.by_reason())
                if n == 0:
                    report.cached_sessions += 1
                    report.collected_keys.add(key)
