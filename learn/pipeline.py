"""The main job, stage by stage: discover → parse → view → detect + mine →
name → count → coverage → judge → store.

Each stage is a library call; this module only wires them and keeps the books
(timings, usage, failures). Data flows one way. The store is written twice:
once after mining (sessions scanned and their candidates, so labels stay stable
even below the threshold) and once at the end (what was shown, verdicts, the
run's result), and the end write is skipped when coverage failed, because
recording "shown" for items whose coverage is unknown would hide them next run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from learn.config import Config
from learn.mining.candidate import MinedCandidate, SessionCandidates
from learn.models.base import Backend, CallUsage
from learn.projects import project_key
from learn.reduce.types import Funnel, RunResult, RunUsage
from learn.textfold import fold
from learn.transcripts.projectpath import spellings

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.mining.miner import SessionMineResult
    from learn.transcripts.discover import SessionFile
    from learn.transcripts.view import Session



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


class _Clock:
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


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def merge_candidates(*groups: Sequence[MinedCandidate]) -> tuple[MinedCandidate, ...]:
    """One session's candidates from the miner and the detectors, without doubles.

    A denial reason is rendered for the model and also read by the denial
    detector; counted twice it would be one afternoon claiming two occurrences.
    The first source wins (the miner's, which carries a rationale).
    """
    seen: set[tuple[str, str]] = set()
    out: list[MinedCandidate] = []
    for group in groups:
        for c in group:
            key = (c.kind, fold(c.command or c.text) if c.kind == "fix" else fold(c.text))
            if key in seen:
                continue
            seen.add(key)
            out.append(c)
    return tuple(out)


def _templates(files: Sequence[SessionFile], options: RunOptions) -> list[str]:
    from learn.transcripts.replay import load_templates

    projects: set[Path | None] = set()
    if options.all_projects:
        projects.update(Path(f.project) for f in files if f.project)
    else:
        projects.add(options.project or Path.cwd())
    templates: list[str] = []
    seen: set[str] = set()
    for project in sorted(projects, key=str) or [None]:
        for t in load_templates(project):
            if t not in seen:
                seen.add(t)
                templates.append(t)
    return templates


def _rule_corpus(files: Sequence[SessionFile], options: RunOptions) -> Any:
    from learn.reduce.rules import RuleCorpus, collect_rules

    if not options.all_projects:
        return collect_rules(options.project or Path.cwd())
    projects = sorted(set(spellings(f.project for f in files).values()))
    if not projects:
        return collect_rules(None)
    corpora = [collect_rules(Path(p)) for p in projects]
    return RuleCorpus.merge(corpora)


def _drop_repeated_prompts(
    sessions: list[Session],
    fingerprints: Sequence[str],
    detected: dict[str, tuple[MinedCandidate, ...]],
    *,
    include_programmatic: bool = False,
) -> tuple[list[Session], Sequence[str], dict[str, tuple[MinedCandidate, ...]],
           list[dict[str, Any]], int]:
    """What programs wrote is machinery (transcripts.scripted.machinery): prompts
    repeated across sessions and template instances are cut from the views, from
    what the renderer sends the miner and from the detectors' candidates, and a
    session a program started is set aside unless `include_programmatic`. The
    prompts a person pasted by hand become "make this a command" suggestions.
    Returns the sessions kept and how many were set aside as programmatic."""
    from learn.render import redact
    from learn.transcripts.scripted import command_suggestion, machinery

    found = machinery(sessions, fingerprints, include_programmatic=include_programmatic)
    kept: list[Session] = []
    out: dict[str, tuple[MinedCandidate, ...]] = {}
    for before, after in zip(sessions, found.views, strict=True):
        if after.origin == "programmatic" and not include_programmatic:
            continue  # nothing of it is the person's: not mined, no detector candidates
        kept.append(after)
        cands = detected.get(after.id, ())
        if after is not before and cands:
            # A candidate quoting words that were cut is the program's, not the person's.
            left = [fold(t.text) for t in after.human_turns]
            cands = tuple(c for c in cands if any(fold(c.text) in t for t in left)
                          or not any(fold(c.text) in fold(t.text) for t in before.human_turns))
        if after.id in detected:
            out[after.id] = cands
    suggestions = [command_suggestion(p) for p in found.prompts if p.by_hand]
    for s in suggestions:
        s["excerpt"] = redact(str(s["excerpt"]))
    return kept, found.fingerprints, out, suggestions, found.set_aside


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
    from learn.embed import get_embedder
    from learn.mining.indexed_cache import IndexedMineCache
    from learn.mining.miner import mine_sessions
    from learn.mining.verify import command_ran, quote_found, session_commands
    from learn.models.meter import UsageMeter
    from learn.reduce.counting import CountConfig, occurrences
    from learn.reduce.stage import reduce_sessions
    from learn.reduce.windows import TranscriptContext
    from learn.render import redact
    from learn.render.spoken import spoken_turns
    from learn.store.adapters import open_learn_store
    from learn.store.session_index import open_session_index
    from learn.transcripts.discover import scan
    from learn.transcripts.indexed import CachedHeads, indexed_views
    from learn.transcripts.replay import replay_fingerprints
    from learn.transcripts.resume import own_turns

    trace = Trace()
    clock = _Clock(trace)
    if backend is None and not options.offline:
        raise ValueError("a backend is required unless offline")
    # Every call of the run goes through the meter, failed ones included.
    meter = None if options.offline or backend is None else UsageMeter(backend)
    model_backend: Backend | None = meter
    failures: list[str] = []
    started_at = datetime.now(UTC)

    # -- discover ------------------------------------------------------------
    # Through the session index: an unchanged file is not opened at all.
    # (closed before the model is called: nothing holds the store while it waits)
    with open_session_index(options.store_path) as index:
        with clock.stage("discover"):
            heads = CachedHeads(index)
            discovery = scan(
                project=None if options.all_projects else (options.project or Path.cwd()),
                all_projects=options.all_projects,
                since=options.since,
                limit=options.limit,
                heads=heads,
            )
            heads.save()
            files = discovery.files
            trace.discovered = len(files)
            fingerprints: Sequence[str] = replay_fingerprints(_templates(files, options))

        # -- parse, view, detect -----------------------------------------------------
        sessions: list[Session] = []
        detected: dict[str, tuple[MinedCandidate, ...]] = {}
        digests: dict[Path, str] = {}
        with clock.stage("parse"):
            for item in indexed_views(
                files, fingerprints_for=lambda _: fingerprints, index=index,
                min_confidence=config.mining.min_signal_confidence,
                progress=(lambda done, total: progress("parse", done, total)) if progress else None,
            ):
                session = item.session
                if not session.human_turns and not session.tool_calls:
                    continue
                sessions.append(session)
                digests[item.file.path] = item.digest
                detected[session.id] = item.detected
            # Newest first, like discovery, whatever order the parse pool finished in.
            sessions.sort(key=lambda s: s.last_activity or datetime.min.replace(tzinfo=UTC), reverse=True)
            sessions, fingerprints, detected, suggestions, programmatic = _drop_repeated_prompts(
                sessions, fingerprints, detected,
                include_programmatic=options.include_programmatic,
            )

    # -- mine (model) -------------------------------------------------------------
    mined: dict[str, SessionMineResult] = {}
    cached = failed = 0
    failed_stages: list[str] = []
    from_batch: set[str] = set()  # sessions a batch mined, collected by this run
    held: set[str] = set()  # sessions left in a batch this run could not collect
    with clock.stage("mine"):
        if model_backend is not None and sessions:
            total = len(sessions)
            counter = [0]

            def on_progress(_: SessionMineResult) -> None:
                counter[0] += 1
                if progress:
                    progress("mine", counter[0], total)

            mine_cache = IndexedMineCache(digests)
            to_mine = sessions
            if meter is not None:
                # Pending batches (any process's) are collected before anything is
                # mined, so no session is paid for twice; with --batch the uncached
                # ones are batched. Both only fill the cache mine_sessions reads.
                from learn.mining.batch import backfill

                batched = backfill(
                    sessions, meter.inner, model=config.models.mine, cache=mine_cache,
                    store=options.store_path, submit_new=options.batch, fingerprints=fingerprints,
                    context_window=config.models.context_window, progress=progress, say=notify,
                )
                meter.add(batched.usage)
                if batched.failure is not None:
                    failures.append(f"batch: {batched.failure}")
                    failed_stages.append("batch")
                keys = _cache_keys(sessions, mine_cache)
                from_batch = {sid for sid, key in keys.items() if key in batched.collected_keys}
                # In a batch this run could not poll or read: paid for, so not mined
                # again directly; the next run collects it.
                held = {sid for sid, key in keys.items() if key in batched.left_pending}
                to_mine = [s for s in sessions if s.id not in held]
                if options.collect_only:
                    return _collected(batched, len(sessions), len(from_batch), failures,
                                      failed_stages, meter.usage), trace
            results = mine_sessions(
                to_mine,
                model_backend,
                model=config.models.mine,
                cache=mine_cache,
                concurrency=config.mining.concurrency,
                fingerprints=fingerprints,
                context_window=config.models.context_window,
                on_progress=on_progress,
            )
            for r in results:
                mined[r.session_id] = r
                if r.cached and r.session_id not in from_batch:
                    cached += 1
                if r.failed:
                    failed += 1
                    failures.append(f"mine: session {r.session_id}: {r.error}")
                elif r.failed_chunks:
                    failures.append(
                        f"mine: session {r.session_id}: {r.failed_chunks} of {r.chunks} chunk(s) "
                        f"failed: {r.chunk_error}"
                    )
                for d in r.dropped:
                    trace.dropped.append(
                        TraceOccurrence(r.session_id, d.kind, d.text, "", d.command, d.source)
                    )

    session_cands: list[SessionCandidates] = []
    # One spelling per project (C:\x and c:\x are one folder on Windows).
    spelled = spellings(s.project for s in sessions)
    own = own_turns(sessions)
    copied = 0
    for s in sessions:
        got = mined.get(s.id)
        from_model = got.candidates if got is not None and not got.failed else ()
        merged = merge_candidates(from_model, detected.get(s.id, ()))
        if own[s.id] is not s:
            # A resumed session: keep what was said and run in it, not what it
            # copied from the session it resumed (that one counts it already).
            spoken = spoken_turns(own[s.id], fingerprints)
            ran = session_commands(own[s.id])
            kept = tuple(
                c for c in merged
                if (command_ran(c.command or "", ran) if c.kind == "fix" else quote_found(c.text, spoken))
            )
            copied += len(merged) - len(kept)
            merged = kept
        session_cands.append(
            SessionCandidates(s.id, s.provider, spelled.get(s.project or "", s.project),
                              _iso(s.last_activity), merged)
        )

    # Sessions the model did not finish this run (failed, or a chunk failed).
    incomplete = [sid for sid, r in mined.items() if r.failed or r.failed_chunks]
    if incomplete:
        failed_stages.append("mine")
    incomplete += sorted(held)
    verification = _verification_tally(mined.values())

    # -- store the scan, then name, count, cover, judge ------------------------------
    with open_learn_store(options.store_path) as store:
        store.project = None if options.all_projects else project_key(options.project or Path.cwd())
        with clock.stage("store"):
            if incomplete:
                session_cands = _keep_stored(session_cands, store.stored_candidates(incomplete))
            store.record_scan(sessions, session_cands, digests)
        embedder: Embedder = store.cached_embedder(get_embedder(prefer=options.embedder))
        if progress:
            progress("name", 0, 1)
        with clock.stage("reduce"):
            outcome = reduce_sessions(
                session_cands,
                embedder=embedder,
                backend=model_backend,
                models={step: config.models.for_step(step) for step in ("mine", "name", "coverage", "judge")},
                label_index=store.label_index(embedder),
                labelled=store.named_labels(),
                verdicts=store.verdict_memory(embedder),
                shown_state=store.shown_state(),
                corpus=_rule_corpus(files, options),
                config=CountConfig(
                    min_sessions={
                        "directive": config.thresholds.directive,
                        "fix": config.thresholds.fix,
                        "request": config.thresholds.request,
                    },
                    max_per_kind=config.thresholds.max_per_kind,
                ),
                show_all=options.show_all,
                remember_labels=False,
                name_batch=config.models.name_batch,
                context=TranscriptContext({s.id: s.path for s in sessions if s.path}, redact=redact,
                                          projects={s.id: s.project for s in sessions if s.project}),
            )
            failures.extend(outcome.failures)
        if progress:
            progress("name", 1, 1)
        naming = outcome.named
        assert naming is not None
        trace.naming = naming.stats.to_json()
        with clock.stage("store"):
            store.remember_labels(naming, session_cands, embedder)
        for o in occurrences(session_cands, naming.labels):
            trace.labelled.append(
                TraceOccurrence(o.session.session_id, o.candidate.kind, o.candidate.text, o.label,
                                o.candidate.command, o.candidate.source)
            )

        with clock.stage("outcomes"):
            scoped = _path_scoped(outcome.proposals, sessions)
            outcomes, escalations = _outcomes(store, sessions, session_cands, naming.labels,
                                              scoped, embedder)
        usage_total = meter.usage if meter is not None else CallUsage()
        failed_stages.extend(reduce_failures(outcome, judged_by_model=model_backend is not None))
        usage = RunUsage(
            sessions_seen=len(sessions),
            # A session a batch mined counts as mined by the run that collects it.
            sessions_mined=sum(1 for r in mined.values()
                               if not r.failed and (not r.cached or r.session_id in from_batch)),
            sessions_cached=cached,
            sessions_failed=failed,
            model_calls=usage_total.calls,
            failed_calls=meter.failed_calls if meter is not None else 0,
            input_tokens=usage_total.input_tokens + usage_total.cache_read_tokens
            + usage_total.cache_write_tokens,
            output_tokens=usage_total.output_tokens,
            cost_usd=usage_total.cost_usd,
        )
        activity = [s.last_activity for s in sessions if s.last_activity]
        result = RunResult(
            proposals=(*scoped, *escalations),
            funnel=outcome.funnel,
            usage=usage,
            window_start=_iso(min(activity)) if activity else None,
            window_end=_iso(max(activity)) if activity else None,
            projects=tuple(sorted({spelled.get(s.project, s.project) for s in sessions if s.project})),
            failures=tuple(failures),
            coverage_failed=outcome.coverage_failed,
            offline=options.offline,
            failed_stages=tuple(failed_stages),
            verification=verification,
            extra={
                "discovered": len(files),
                "copied_from_resumed": copied,
                "make_command": suggestions,
                "programmatic_set_aside": programmatic,
                "skipped": dict(discovery.skipped),
                "naming": naming.stats.to_json(),
                "started_at": _iso(started_at),
                # Proposed by earlier runs, not decided yet, not shown again here.
                "pending": store.pending_summary([p.key for p in outcome.proposals]),
                # Shown again though decided before (said again since, or --all).
                "states": store.book.decided(store.project, [p.key for p in outcome.proposals]),
                # Each rule in place against the sessions since (learn.reduce.outcomes).
                "outcomes": outcomes,
            },
        )
        with clock.stage("store"):
            store.record_run(result, remember_shown=outcome.may_write_state)
    return result, trace


def _collected(batched: Any, seen: int, mined: int, failures: Sequence[str],
               failed_stages: Sequence[str], usage: CallUsage) -> RunResult:
    """What `collect_only` did, as a result: sessions mined by the batches it collected."""
    return RunResult(
        proposals=(), funnel=Funnel(),
        usage=RunUsage(sessions_seen=seen, sessions_mined=mined, model_calls=usage.calls,
                       input_tokens=usage.input_tokens + usage.cache_read_tokens
                       + usage.cache_write_tokens,
                       output_tokens=usage.output_tokens, cost_usd=usage.cost_usd),
        failures=tuple(failures), failed_stages=tuple(failed_stages),
        extra={"collected": list(batched.collected), "retry_sessions": batched.retry_sessions,
               "left_pending": len(batched.left_pending)},
    )


def _cache_keys(sessions: Sequence[Session], cache: Any) -> dict[str, str]:
    """Session id -> mining-cache key, for the sessions with a readable file."""
    import contextlib

    out: dict[str, str] = {}
    for s in sessions:
        if s.path is not None:
            with contextlib.suppress(OSError):
                out[s.id] = cache.key_for_file(s.path)
    return out


def _path_scoped(proposals: Sequence[Any], sessions: Sequence[Session]) -> list[Any]:
    """Directives said only while the agent worked under one folder (learn.reduce.pathscope)."""
    from learn.reduce.pathscope import files_of_calls, scope_to_paths

    files = {s.id: files_of_calls((c.name, c.input, c.summary) for c in s.tool_calls)
             for s in sessions}
    return scope_to_paths(proposals, files)


def _outcomes(store: Any, sessions: Sequence[Session], session_cands: Sequence[SessionCandidates],
              labels: Sequence[str], proposals: Sequence[Any],
              embedder: Any) -> tuple[list[dict[str, Any]], list[Any]]:
    """Did each applied rule work: its correction counted in the sessions read, by start;
    and for each rule ignored since, its escalation (learn.report.escalation)."""
    from learn.reduce.counting import occurrences
    from learn.reduce.outcomes import Said
    from learn.report.escalation import escalations_for
    from learn.store.in_place import measure

    starts = {s.id: _iso(s.started_at or s.last_activity) for s in sessions}
    said = [Said(o.session.session_id, starts.get(o.session.session_id) or o.session.last_activity,
                 o.label, o.candidate.kind, o.candidate.text, o.session.project)
            for o in occurrences(session_cands, labels)]
    found = measure(store.book, store.project, session_starts=starts, said=said,
                    proposals=proposals, embedder=embedder,
                    session_projects={s.id: s.project for s in sessions})
    found, escalations = escalations_for(store.book, store.project, found, proposals)
    return [o.to_json() for o in found], escalations


def _keep_stored(
    session_cands: Sequence[SessionCandidates], stored: Mapping[str, Sequence[MinedCandidate]]
) -> list[SessionCandidates]:
    """Carry forward what earlier runs verified for sessions the model failed on this run.

    Recording the scan replaces a session's stored candidates; for a session
    whose mining failed (a 529 storm, a chunk that stayed malformed) that
    would delete what an earlier run had verified, and with it the session's
    share of every count. What was stored stays, this run's finds are added.
    """
    out: list[SessionCandidates] = []
    for sc in session_cands:
        earlier = stored.get(sc.session_id, ())
        out.append(replace(sc, candidates=merge_candidates(sc.candidates, earlier)) if earlier else sc)
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


def reduce_failures(outcome: Any, *, judged_by_model: bool) -> list[str]:
    """Which of naming, coverage and judging still failed after their retries."""
    out: list[str] = []
    if outcome.naming.failed_calls:
        out.append("name")
    if outcome.coverage_failed:
        out.append("coverage")
    if judged_by_model and any(p.verdict is None for p in outcome.proposals):
        out.append("judge")
    return out


def empty_result(*, offline: bool = False) -> RunResult:
    return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(), offline=offline)
