"""Backfills through Message Batches: submit the mining calls, collect them later, cache them.

The batch path only fills the mining cache. `backfill` first collects every
pending batch the store knows of (submitted by this process or one killed
since), then, when asked, submits one batch for the uncached sessions not
already pending and waits for it. Every succeeded session is parsed, checked
(`check_answer`) and verified (`verify_candidates`) exactly as a direct call
would be, and cached with `MineCache.put`; the normal `mine_sessions` that
follows then serves it from the cache. A session with an errored, expired or
cut chunk is not cached, so `mine_sessions` mines it directly: that is the
retry, and a session is never paid for twice because a pending batch's
sessions are collected before anything is mined.

Chunks are rendered exactly as `mine_session` renders them; the repair turns
and chunk splitting of a direct call are left to the direct retry.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from learn.mining.cache import MineCache
from learn.mining.candidate import MinedCandidate
from learn.mining.miner import default_chunk_chars, session_candidates
from learn.mining.parse import check_answer
from learn.mining.prompt import build_request
from learn.mining.verify import session_commands, verify_candidates
from learn.models.base import CallUsage, ModelError, ModelRequest
from learn.models.batches import batch_client, results, status, submit
from learn.models.catalog import model_info
from learn.render.chunk import chunk_groups, fit_chunk, hard_chunk_chars, mine_max_tokens
from learn.render.render import render_blocks
from learn.render.spoken import spoken_turns
from learn.store.mine_batches import BatchItem, open_batch_table
from learn.transcripts.view import Session

# Above this many uncached sessions on the anthropic backend, `learn run`
# offers a batch: half the price, and no rate limit to wait on.
BATCH_ABOVE: Final = 200
DEFAULT_POLL_SECONDS: Final = 30.0

Progress = Callable[[str, int, int], None]


@dataclass
class BackfillReport:
    submitted: list[str] = field(default_factory=list)  # batch ids
    collected: list[str] = field(default_factory=list)
    cached_sessions: int = 0
    retry_sessions: int = 0  # left for direct mining: an item errored, expired or was cut
    usage: CallUsage = field(default_factory=CallUsage)


def poll_seconds() -> float:
    raw = os.environ.get("LEARN_BATCH_POLL")
    try:
        return float(raw) if raw else DEFAULT_POLL_SECONDS
    except ValueError:
        return DEFAULT_POLL_SECONDS


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
    sleep: Callable[[float], None] = time.sleep,
) -> BackfillReport:
    """Collect pending batches, then (with `submit_new`) batch the uncached sessions."""
    report = BackfillReport()
    with open_batch_table(store) as table:
        if not submit_new and not table.pending():
            # The common warm run: nothing to collect, so the SDK is never loaded.
            return report
    client = batch_client(backend)
    if client is None:
        return report
    by_key: dict[str, Session] = {}
    for s in sessions:
        if s.path is not None:
            with contextlib.suppress(OSError):
                by_key[cache.key_for_file(s.path)] = s
    budget = default_chunk_chars(model, context_window=context_window)
    with open_batch_table(store) as table:
        pending = table.pending()
        if submit_new:
            in_flight = {i.cache_key for items in pending.values() for i in items}
            items: list[BatchItem] = []
            requests: list[tuple[str, ModelRequest]] = []
            for n, (key, session) in enumerate(by_key.items()):
                if key in in_flight or cache.get(key) is not None:
                    continue
                reqs = session_requests(session, model=model, fingerprints=fingerprints,
                                        chunk_chars=budget, context_window=context_window)
                for c, req in enumerate(reqs):
                    cid = f"s{n}-c{c}"
                    requests.append((cid, req))
                    items.append(BatchItem("", cid, session.id, key, c))
            if requests:
                batch_id = submit(client, requests)
                # Recorded before anything else happens: from here a kill loses nothing.
                table.record([BatchItem(batch_id, i.custom_id, i.session_id, i.cache_key, i.chunk)
                              for i in items])
                report.submitted.append(batch_id)
                pending[batch_id] = [BatchItem(batch_id, i.custom_id, i.session_id, i.cache_key,
                                               i.chunk) for i in items]
        for batch_id, batch_items in pending.items():
            _wait(client, batch_id, progress, sleep)
            _collect(client, batch_id, batch_items, by_key, cache, model, fingerprints, report)
            table.mark_collected(batch_id)
            report.collected.append(batch_id)
    return report


def _wait(client: Any, batch_id: str, progress: Progress | None,
          sleep: Callable[[float], None]) -> None:
    interval = poll_seconds()
    while True:
        st = status(client, batch_id)
        total = sum(st.counts.values())
        if progress is not None:
            progress("batch", total - st.counts.get("processing", 0), total)
        if st.ended:
            return
        sleep(interval)


def _collect(client: Any, batch_id: str, items: Sequence[BatchItem], by_key: dict[str, Session],
             cache: MineCache, model: str, fingerprints: Sequence[str],
             report: BackfillReport) -> None:
    # The parser needs only the tool and the model from the request.
    probe = build_request("", model=model, max_tokens=1)
    answers: dict[str, list[MinedCandidate] | None] = {}
    for got in results(client, batch_id, {i.custom_id: probe for i in items}):
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
        session = by_key.get(key)
        parts = [answers.get(i.custom_id) for i in chunks]
        if session is None:
            continue  # not in this run's scope: mined when it is
        if any(p is None for p in parts):
            report.retry_sessions += 1
            continue
        raw = [c for p in parts if p is not None for c in p]
        verified = verify_candidates(raw, spoken_turns(session, fingerprints),
                                     commands=session_commands(session))
        with contextlib.suppress(OSError):
            cache.put(key, session_candidates(session, verified.kept),
                      dropped_unverified=verified.dropped_unquoted + verified.dropped_short,
                      chunks=len(chunks), dropped_by_reason=verified.by_reason())
            report.cached_sessions += 1
