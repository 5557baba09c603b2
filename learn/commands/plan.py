"""`learn plan`: what a run would read and cost, without calling a model."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from learn.commands._scope import Scope, scope_options
from learn.paths import home_relative

if TYPE_CHECKING:
    from learn.config import Config
    from learn.mining.plan import MiningPlan, PlannedSession
    from learn.transcripts.files.discover import Discovery
    from learn.transcripts.view.model import Session


@click.command(name="plan")
@scope_options(configured=True)
@click.option("--model", default=None, help="The mining model (default: from config).")
@click.option("--context-window", type=click.IntRange(min=1024), default=None,
              help="The model's context window in tokens, for models learn does not know.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def command(scope: Scope, model: str | None, context_window: int | None, as_json: bool) -> None:
    """Say what a run would read and cost, without calling a model."""
    from learn.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    print_plan(scope, config, model=model, context_window=context_window, as_json=as_json)


def print_plan(scope: Scope, config: Config, *, model: str | None = None,
               context_window: int | None = None, as_json: bool = False) -> None:
    """Print the plan (shared with `learn run --dry-run`)."""
    from learn.mining.plan import describe_plan

    try:
        plan, cache, discovery = plan_as_a_run_reads(scope, config, model=model,
                                                     context_window=context_window)
    except ValueError as exc:  # a window too small for any chunk
        raise click.UsageError(str(exc)) from None
    stages = _later_stages(plan, cache, config)
    total_calls = plan.calls + sum(s.calls for s in stages)
    total_cost = plan.est_cost_usd + sum(s.cost_usd for s in stages)
    if as_json:
        click.echo(json.dumps({
            "scope": scope.describe(discovery.project),
            "model": plan.model,
            "context_window": plan.context_window,
            "chunk_chars": plan.chunk_chars,
            "sessions": plan.sessions,
            "to_mine": [
                {"session_id": p.session_id, "path": str(p.path), "project": p.project,
                 "bytes": p.size_bytes, "rendered_chars": p.rendered_chars, "calls": p.chunks}
                for p in plan.to_mine
            ],
            "cached": len(plan.cached),
            "nothing_to_mine": len(plan.nothing_to_mine),
            "unreadable": [str(p) for p in plan.unreadable],
            "calls": plan.calls,
            "est_input_tokens": plan.est_input_tokens,
            "est_output_tokens": plan.est_output_tokens,
            "est_cost_usd": round(plan.est_cost_usd, 4),
            # Naming, coverage and judging, estimated (learn.reduce.price).
            "stages": [{"step": st.step, "model": st.model, "calls": st.calls, "items": st.items,
                        "est_input_tokens": st.input_tokens,
                        "est_output_tokens": st.output_tokens,
                        "est_cost_usd": round(st.cost_usd, 4)} for st in stages],
            "est_total_calls": total_calls,
            "est_total_cost_usd": round(total_cost, 4),
        }, indent=2))
        return
    click.echo(f"Scope: {scope.describe(discovery.project)}")
    from learn.transcripts.files.skip_note import skipped_note

    # Those discovery could not read and those gone by the time they were planned:
    # the plan's "N unreadable" below, the same number.
    note = skipped_note({**discovery.skipped, "unreadable": len(plan.unreadable)},
                        discovery.skipped_files)
    if note:
        click.echo(f"Skipped: {note}")
    for line in describe_plan(plan):
        click.echo(line)
    later = [st for st in stages if st.calls]
    if later:
        calls = ", ".join(f"~{st.calls} {_STEP_WORDS[st.step]}" for st in later)
        models = sorted({st.model for st in later})
        click.echo(f"then {calls} call{'s' if sum(st.calls for st in later) != 1 else ''} "
                   f"({', '.join(models)}): ~${sum(st.cost_usd for st in later):.2f}")
    click.echo(f"in all: ~{total_calls} model call{'s' if total_calls != 1 else ''}, at most "
               f"~${total_cost:.2f} (estimated; actual costs: `learn stats`)")
    from learn.commands.sessions import known_ids, short_ids

    # As `learn sessions` shows them: unique among every session the scan saw, in any
    # project (`learn show` looks in all): an id cut to 8 characters could be two
    # Codex sessions' (UUIDv7, time first).
    ids = short_ids(known_ids(discovery))
    for p in plan.to_mine[:20]:
        click.echo(f"  {ids.get(p.session_id, p.session_id)}  {p.size_bytes / 1024:6.0f} KB -> "
                   f"{p.rendered_chars:>8,} chars  {p.chunks} call{'s' if p.chunks != 1 else ' '}  "
                   f"{home_relative(p.project) if p.project else ''}".rstrip())
    if len(plan.to_mine) > 20:
        click.echo(f"  … and {len(plan.to_mine) - 20} more")
    if not plan.to_mine:
        click.echo("Nothing to mine: a run would make no model calls.")


def plan_as_a_run_reads(scope: Scope, config: Config, *, model: str | None = None,
                        context_window: int | None = None,
                        include_programmatic: bool = False) -> tuple[MiningPlan, Any, Discovery]:
    """The mining plan of `scope` as a run would read it (`_as_a_run_reads`), its mining
    cache and the discovery it planned; `learn run` asks it whether a run needs a model
    at all (learn.pipeline.deferred). Raises ValueError for a window too small."""
    from learn.index.indexed import CachedHeads, indexed_views
    from learn.mining.indexed_cache import IndexedMineCache
    from learn.mining.plan import plan_mining
    from learn.store import open_store
    from learn.transcripts.files.discover import SessionFile, with_unread
    from learn.transcripts.view.replay import replay_fingerprints
    from learn.transcripts.view.replay_files import load_templates

    model = model or config.models.mine
    context_window = context_window or config.models.context_window
    fingerprints = replay_fingerprints(load_templates(None if scope.all_projects else scope.project))
    # Through the session index: unchanged files are neither opened, parsed nor hashed.
    with open_store(local_only=True) as local:
        index = local.index
        heads = CachedHeads(index)
        discovery = scope.scan(heads)
        heads.save()
        unread: list[tuple[SessionFile, str]] = []
        items = indexed_views(discovery.files, index=index, fingerprints_for=lambda _: fingerprints,
                              min_confidence=config.mining.min_signal_confidence,
                              unread=lambda f, why: unread.append((f, why)))
        discovery = with_unread(discovery, unread)  # as `learn run` and `learn sessions` count
        cache = IndexedMineCache({i.file.path: i.digest for i in items})
        plan = plan_mining(discovery.files, cache, model, fingerprints=fingerprints,
                           context_window=context_window,
                           views=_as_a_run_reads(items, fingerprints,
                                                 include_programmatic=include_programmatic),
                           unreadable=unreadable_skips(discovery))
    return _nothing_sent_apart(plan, cache), cache, discovery


def _nothing_sent_apart(plan: MiningPlan, cache: Any) -> MiningPlan:
    """`plan` with the cached sessions whose answer was made of no call (nothing typed to
    send: none typed, or only a prompt repeated across sessions, cut) counted with nothing
    to mine, as they are before their first run: all 16 of a Codex home were "cached"
    here while the digest counted 13 and left 3 unexplained (the real-transcript check)."""
    from dataclasses import replace

    cached: list[PlannedSession] = []
    empty = list(plan.nothing_to_mine)
    for planned in plan.cached:
        entry = cache.get(planned.key) if planned.key else None
        (empty if entry is not None and entry.chunks == 0 else cached).append(planned)
    if len(cached) == len(plan.cached):
        return plan
    return replace(plan, cached=tuple(cached), nothing_to_mine=tuple(empty))


def unreadable_skips(discovery: Discovery) -> list[Path]:
    """The files discovery could not read (`Discovery.skipped_files`), for `plan_mining`."""
    return [s.path for s in discovery.skipped_files if s.reason == "unreadable"]


_STEP_WORDS = {"name": "naming", "coverage": "coverage", "judge": "judging"}


def _later_stages(plan: Any, cache: Any, config: Config) -> list[Any]:
    """Naming, coverage and judging of a run after this plan's mining (learn.reduce.price):
    the cached sessions' candidates, less the texts a model has named already, and an
    estimate for each session still to mine."""
    from collections import Counter

    from learn.reduce.price import reduce_estimates

    named = _named_texts()
    seen: set[tuple[str, str]] = set()
    to_name: Counter[str] = Counter()
    known = 0
    for planned in plan.cached:
        entry = cache.get(planned.key) if planned.key else None
        for c in entry.candidates.candidates if entry is not None else ():
            known += 1
            if (c.kind, c.text) not in seen:
                seen.add((c.kind, c.text))
                if named(c.kind, c.text) is None:
                    to_name[c.kind] += 1
    return reduce_estimates(
        to_name=to_name, candidates=known, new_sessions=len(plan.to_mine),
        models={step: config.models.for_step(step) for step in ("name", "coverage", "judge")},
        max_per_kind=config.thresholds.max_per_kind)


def _named_texts() -> Callable[[str, str], str | None]:
    """The name cache of the store, read only (none yet: nothing named)."""
    from learn.reduce.stored import named_labels
    from learn.store import open_store
    from learn.store.db import SchemaMismatchError, StoreError

    try:
        with open_store(readonly=True) as store:
            return named_labels(store)
    except (StoreError, SchemaMismatchError, OSError):
        return lambda kind, text: None


def _as_a_run_reads(items: Sequence[Any], fingerprints: Sequence[str], *,
                    include_programmatic: bool = False) -> dict[Path, Session]:
    """The views as `learn run` mines them (transcripts.scripted.machinery): prompts and
    templates repeated across sessions cut, and a session a program started left with
    nothing to mine (unless `include_programmatic`, as `learn run` says)."""
    from dataclasses import replace

    from learn.transcripts.templates.scripted import machinery

    judged = machinery([i.session for i in items], fingerprints,
                       include_programmatic=include_programmatic).views
    return {i.file.path: (replace(v, failures=(), tool_calls=(), timeline=())
                          if v.origin == "programmatic" and not include_programmatic else v)
            for i, v in zip(items, judged, strict=True)}
