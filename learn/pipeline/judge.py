"""Stage 4, judge and store: record the scan, then name, count, cover and judge
(learn.reduce.stage), measure the rules already in place, and record the run.

The store is written twice: once with the scan (sessions and their candidates,
so labels stay stable even below the threshold) and once at the end (what was
shown, verdicts, the run's result); the end write skips "shown" when coverage
failed, because recording it for items whose coverage is unknown would hide
them next run."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from learn.config import Config
from learn.pipeline.candidates import Candidates, keep_stored
from learn.pipeline.mine import Mined
from learn.pipeline.read import Read
from learn.pipeline.types import Clock, Progress, RunOptions, Trace, TraceOccurrence, iso
from learn.records.candidate import SessionCandidates
from learn.records.proposal import RunResult, RunUsage
from learn.reduce.stage import ReduceOutcome, reduce_failures
from learn.transcripts.ids import PROVIDERS

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.models.meter import UsageMeter
    from learn.store import Store
    from learn.store.run_usage import RunningUsage
    from learn.transcripts.view.model import Session


def judge_and_store(options: RunOptions, config: Config, read: Read, mined: Mined,
                    cands: Candidates, meter: UsageMeter | None, *, clock: Clock, trace: Trace,
                    progress: Progress | None, started_at: datetime,
                    running: RunningUsage | None = None) -> RunResult:
    """`running` keeps the run's row (started by its first paid call, if any) and its
    usage as the calls return (learn.store.run_usage); the row is finished here."""
    from learn.embed import get_embedder
    from learn.pipeline import warm
    from learn.pipeline.stored import record_scan, remember_labels, stored_candidates
    from learn.reduce.outcomes_kept import earlier_outcomes, kept_outcomes, unmeasured_why
    from learn.reduce.stored import CachedEmbedder, record_run
    from learn.store import open_store
    from learn.store.state import state_fingerprint

    with open_store(options.store_path) as store:
        # What the store held as this run found it: a run that leaves it so can be
        # answered again without being run (learn.pipeline.warm).
        state_before = state_fingerprint(store)
        project = read.project
        session_cands = cands.per_session
        with clock.stage("store"):
            if mined.incomplete:
                session_cands = keep_stored(session_cands,
                                            stored_candidates(store, mined.incomplete))
            run_id = running.start() if running is not None else store.runs.start_run({})
            # A first digest shows the whole guide (learn.report.digest); a run killed
            # before its digest leaves a row with the calls it paid for, and no digest.
            first_run = store.runs.results_before(run_id) == 0
            record_scan(store, read.sessions, session_cands, read.digests)
            # Counted (and named, measured) without the copies of what an earlier run
            # counted in a session this one did not read; the scan keeps them. And the
            # store's copies of what this run counted, left out of the counts it keeps.
            sessions_read = {f.session_id for f in read.files}
            session_cands, copies = _said_once(store, session_cands, sessions_read)
        embedder: Embedder = CachedEmbedder(get_embedder(prefer=options.embedder), store)
        if progress:
            progress("name", 0, 1)
        with clock.stage("reduce"):
            outcome = _reduce(store, project, options, config, read, session_cands, embedder,
                              meter)
        if progress:
            progress("name", 1, 1)
        naming = outcome.named
        assert naming is not None
        trace.naming = naming.stats.to_json()
        with clock.stage("store"):
            remember_labels(store, run_id, naming, session_cands, embedder)
        _trace_labelled(trace, session_cands, naming.labels)

        with clock.stage("outcomes"):
            scoped = _path_scoped(outcome.proposals, read.sessions)
            outcomes, escalations = _outcomes(store, project, read.sessions, session_cands,
                                              naming.labels, scoped, embedder, read.projects)
            # A run that could not count every session keeps the last complete measure
            # (learn.reduce.outcomes_kept): it said "0 of 4" where the truth was 2.
            why = unmeasured_why(sessions_failed=mined.failed,
                                 sessions_incomplete=len(mined.incomplete))
            outcomes = kept_outcomes(outcomes, earlier_outcomes(store) if why else (), why)
        keys = [p.key for p in outcome.proposals]
        result = _result(
            options, read, mined, cands, outcome, meter,
            proposals=(*scoped, *escalations), started_at=started_at,
            extra={
                # Proposed by earlier runs, not decided yet, not shown again here.
                "pending": store.proposals.summary(project, keys),
                # Shown again though decided before (said again since, or --all).
                "states": store.proposals.decided(project, keys),
                # Each rule in place against the sessions since (learn.reduce.outcomes).
                "outcomes": outcomes,
                "guide": first_run,
                # learn's checks of the projects read, with what each stopped (learn.guard).
                "checks": _checks(project, read.projects),
            },
        )
        with clock.stage("store"):
            if not options.offline and naming.stats.failed_calls == 0:
                _rename_fallbacks(store, project, outcome)
            record_run(store, result, run_id=run_id, project=project,
                       remember_shown=outcome.may_write_state,
                       sessions_read=sessions_read,
                       counted=(*outcome.held_back, *outcome.cut), copies=copies)
            clean = not (result.failures or result.failed_stages or result.coverage_failed
                         or result.usage.sessions_failed or mined.incomplete)
            warm.remember(options, store, run_id=run_id, state_before=state_before, result=result,
                          clean=clean, inputs=warm.inputs_key(
                              options, warm.config_key(config),
                              meter.name if meter is not None else "offline",
                              read.files, read.entries))
    return result


def _said_once(store: Store, session_cands: Sequence[SessionCandidates], sessions_read: set[str]
               ) -> tuple[list[SessionCandidates], set[tuple[str, str]]]:
    """A message pasted into sessions side by side is one saying across runs too, in
    either order: the run's candidates that copy a saying the store's proposals keep from
    a session this run did not read (which record_run adds to this run's counts) are that
    saying (learn.reduce.counting.without_copies); and the stored quotes, of sessions this
    run did not read, that copy a saying of this run (`copies_of_this_run`), which
    record_run must not add to it, as (session id, quote text)."""
    from learn.reduce.counting import copies_of_this_run, earlier_sayings, without_copies

    earlier = earlier_sayings((row.proposal for row in store.proposals.rows()), sessions_read)
    return (without_copies(session_cands, earlier),
            copies_of_this_run(session_cands, earlier))


def _rename_fallbacks(store: Store, project: str | None, outcome: ReduceOutcome) -> None:
    """Pending proposals a failed run's fallback named, renamed to this run's model
    names for the same quotes (learn.reduce.renames)."""
    from learn.reduce.renames import fallback_renames

    known = set(store.labels.labels())
    points = (*outcome.proposals, *outcome.held_back, *outcome.cut)
    renames = fallback_renames(((r.project, r.proposal) for r in store.proposals.pending(project)),
                               points, model_made=lambda kind, label: (label, kind) in known)
    for where, old, new in renames:
        store.proposals.rename(where, old, new)


def _reduce(store: Store, project: str | None, options: RunOptions, config: Config, read: Read,
            session_cands: Sequence[SessionCandidates], embedder: Embedder,
            meter: UsageMeter | None) -> ReduceOutcome:
    from learn.pipeline.coverage_scope import covered_where_said, merged, rule_corpora
    from learn.redaction.redact import redact
    from learn.reduce.counting import CountConfig
    from learn.reduce.stage import reduce_sessions
    from learn.reduce.stored import (
        StoreAnswerMemory,
        StoreLabelIndex,
        StoreShownState,
        StoreVerdictMemory,
        name_prompt_version,
        named_labels,
    )
    from learn.reduce.windows import TranscriptContext

    sessions = read.sessions
    version = name_prompt_version()
    corpora = rule_corpora(read.files, options)
    outcome = reduce_sessions(
        session_cands,
        embedder=embedder,
        backend=meter,
        models={step: config.models.for_step(step) for step in ("mine", "name", "coverage", "judge")},
        label_index=StoreLabelIndex(store, embedder.name),
        labelled=named_labels(store),
        verdicts=StoreVerdictMemory(store, embedder.name),
        shown_state=StoreShownState(store, project),
        corpus=merged(corpora),
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
        # The model's names, kept the moment naming ends: Ctrl-C while judging
        # must not cost the naming calls again (tests/test_interrupt_points.py).
        on_named=lambda naming: store.labels.put_named_labels(naming.named, version),
        # And each naming answer the moment it is parsed, each coverage answer by its
        # request: a run killed mid-naming or after coverage answered paid for them
        # (tests/test_paid_answers_kept.py). Judge verdicts are kept as they arrive
        # by their memory (learn.reduce.judge).
        on_name_answer=lambda rows: store.labels.put_named_labels(rows, version),
        answers=StoreAnswerMemory(store),
        name_batch=config.models.name_batch,
        context=TranscriptContext({s.id: s.path for s in sessions if s.path}, redact=redact,
                                  projects={s.id: s.project for s in sessions if s.project}),
    )
    return covered_where_said(outcome, corpora, backend=meter,
                               model=config.models.for_step("coverage"), embedder=embedder,
                               answers=StoreAnswerMemory(store))


def _trace_labelled(trace: Trace, session_cands: Sequence[SessionCandidates],
                    labels: Sequence[str]) -> None:
    from learn.reduce.counting import occurrences

    for o in occurrences(session_cands, labels):
        trace.labelled.append(
            TraceOccurrence(o.session.session_id, o.candidate.kind, o.candidate.text, o.label,
                            o.candidate.command, o.candidate.source)
        )


def _result(options: RunOptions, read: Read, mined: Mined, cands: Candidates,
            outcome: ReduceOutcome, meter: UsageMeter | None, *, proposals: Sequence[Any],
            started_at: datetime, extra: dict[str, Any]) -> RunResult:
    """The run's result: proposals, funnel, the books (usage, failures) and what the
    report shows beside them."""
    from learn.redaction.redact import redact_message

    sessions = read.sessions
    naming = outcome.named
    assert naming is not None
    usage = dataclasses.replace(
        meter.run_usage() if meter is not None else RunUsage(),
        # The sessions with nothing in them too (read.empty): read, counted with nothing
        # typed, as `learn plan` counts them.
        sessions_seen=len(sessions) + len(read.empty),
        sessions_mined=mined.sessions_mined(),
        sessions_cached=mined.cached,
        sessions_failed=mined.failed,
    )
    # The window runs from the earliest turn read to the newest activity.
    started = [t for s in sessions if (t := s.started_at or s.last_activity) is not None]
    activity = [s.last_activity for s in sessions if s.last_activity]
    spelled = cands.spelled
    return RunResult(
        proposals=tuple(proposals),
        funnel=outcome.funnel,
        usage=usage,
        window_start=iso(min(started)) if started else None,
        window_end=iso(max(activity)) if activity else None,
        projects=tuple(sorted({spelled.get(p, p) for p in read.projects.values()})),
        # Through secret redaction: a failure quotes an HTTP client's error, which can
        # quote a header (the API key, of whatever shape: learn.held_secrets); the run
        # prints them and the store keeps them.
        failures=tuple(redact_message(f) for f in (*mined.failures, *outcome.failures)),
        coverage_failed=outcome.coverage_failed,
        offline=options.offline,
        failed_stages=(*mined.failed_stages,
                       *reduce_failures(outcome, judged_by_model=meter is not None)),
        verification=mined.verification,
        extra={
            "discovered": len(read.files),
            "copied_from_resumed": cands.copied,
            "make_command": read.suggestions,
            "programmatic_set_aside": read.programmatic,
            # The sessions read that the counts leave out, by why: with mined, cached and
            # failed they add up to the sessions read (16 read, 13 counted and 3 said
            # nowhere in the real-transcript check).
            "nothing_typed": _nothing_typed(read, mined),
            # The sessions counted (mined, cached, failed) per project: a project's digest
            # over a run of every project says "of your last N" of its own sessions
            # (learn.report.proposal_lines.sessions_in_scope).
            "counted_per_project": _counted_per_project(read, mined),
            "in_batch": mined.in_batch,
            "skipped": read.skipped,
            # Lines of the sessions read that could not be read (a malformed line is
            # skipped, the rest of its session read): said beside the files skipped.
            "skipped_lines": sum(s.skipped_lines for s in sessions),
            "sessions_with_skipped_lines": sum(1 for s in sessions if s.skipped_lines),
            "naming": naming.stats.to_json(),
            "started_at": iso(started_at),
            # Sessions read per agent: the digest says which agents a count spans.
            "agents": dict(sorted(Counter(s.provider for s in (*sessions, *read.empty)
                                          if s.provider in PROVIDERS).items(),
                                  key=lambda an: (-an[1], an[0]))),
            **extra,
        },
    )


def _counted_per_project(read: Read, mined: Mined) -> dict[str, int]:
    """Of the sessions usage counts as read (mined, cached, failed: every result but those
    with nothing sent), how many each project holds (read.projects, decided at discovery)."""
    nothing = set(mined.nothing_sent())
    return dict(Counter(read.projects[sid] for sid in mined.results
                        if sid not in nothing and sid in read.projects))


def _nothing_typed(read: Read, mined: Mined) -> dict[str, int]:
    """The sessions the model had nothing of the person's to read: "repeated" when every
    typed turn was a prompt repeated across sessions or a template's text (cut), "none"
    when none was typed (an agent's own work, a session opened and left, one with only
    client commands such as `/login`: read.empty)."""
    nothing = mined.nothing_sent()
    repeated = sum(1 for sid in nothing if sid in read.only_repeated)
    return {"repeated": repeated, "none": len(nothing) - repeated + len(read.empty)}


def _path_scoped(proposals: Sequence[Any], sessions: Sequence[Session]) -> list[Any]:
    """Directives said only while the agent worked under one folder (learn.reduce.pathscope)."""
    from learn.projects import checkout_root
    from learn.reduce.pathscope import files_of_calls, relative_to, scope_to_paths

    files: dict[str, list[str]] = {}
    checkouts: dict[str, str | None] = {}
    for s in sessions:
        found = files_of_calls((c.name, c.input, c.summary) for c in s.tool_calls)
        if s.project and s.project not in checkouts:
            checkouts[s.project] = checkout_root(s.project)
        checkout = checkouts.get(s.project or "")
        # A worktree's files lie under its own checkout, not the repository's main
        # folder: named relative to the checkout, they say the same folder.
        files[s.id] = [relative_to(f, checkout) for f in found] if checkout else found
    return scope_to_paths(proposals, files)


def _checks(project: str | None, projects: dict[str, str]) -> list[dict[str, Any]]:
    """learn's checks of the project run for, else of every project read (each
    session's project: learn.projects)."""
    from learn.reduce.checks import all_checks

    return [c.to_json() for c in all_checks([project] if project else
                                            sorted(set(projects.values()) - {""}))]


def _outcomes(store: Store, project: str | None, sessions: Sequence[Session],
              session_cands: Sequence[SessionCandidates], labels: Sequence[str],
              proposals: Sequence[Any], embedder: Any,
              projects: dict[str, str]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Did each applied rule work: its correction counted in the sessions read, by start,
    over the sessions that loaded it; and for each rule ignored since, its escalation
    (learn.report.escalation) and learn's check where a prefix cannot hold it
    (learn.report.check_offer)."""
    from learn.mining.commands import unrefused_commands
    from learn.reduce.counting import occurrences
    from learn.reduce.in_place import measure
    from learn.reduce.loaded import Seen
    from learn.reduce.outcomes import said_of
    from learn.reduce.pathscope import files_of_calls
    from learn.report.check_offer import with_check_offers
    from learn.report.escalation import Ran, escalations_for
    from learn.transcripts.instructions import records_of

    starts = {s.id: iso(s.started_at or s.last_activity) for s in sessions}
    # A fan-out's copies are one saying here too (one_saying), as the proposals count it.
    said = said_of(occurrences(session_cands, labels), starts)
    seen = {s.id: Seen(s.id, s.provider, s.project,
                       tuple(files_of_calls((c.name, c.input, c.summary) for c in s.tool_calls)))
            for s in sessions}
    files = {s.id: (s.path, s.provider) for s in sessions}
    found = measure(store.proposals, project, session_starts=starts, said=said,
                    proposals=proposals, embedder=embedder,
                    session_projects={s.id: projects.get(s.id) for s in sessions}, seen=seen,
                    records=lambda ids: records_of(ids, files))
    # What each session ran unrefused: a deny must not refuse what the person let run.
    ran = [Ran(s.id, starts.get(s.id), tuple(unrefused_commands(s))) for s in sessions]
    found, escalations = escalations_for(store.proposals, project, found, proposals, ran)
    found, checks = with_check_offers(store.proposals, project, found, proposals, ran)
    return [o.to_json() for o in found], [*escalations, *checks]
