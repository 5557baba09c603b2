"""What a mining run would read and cost, without calling a model.

`learn plan` prints this and `learn run` asks before acting on a large one.
Both go through `plan_mining`, so the confirmation counts the same sessions the
run mines (hoocode's prompt once said 12 reads while the run did 3, because the
two used different selection logic).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import click

from learn.mining.cache import MineCache
from learn.mining.miner import default_chunk_chars
from learn.mining.prompt import system_prompt
from learn.models.catalog import model_info
from learn.render.chunk import TOOL_SCHEMA_TOKENS, as_sent, chunk_blocks
from learn.render.render import render_blocks
from learn.transcripts.files.discover import SessionFile
from learn.transcripts.view.model import Session

# Estimates use ~4 chars/token (what English-heavy transcripts measure); chunk
# sizing uses a pessimistic 3 so it never overflows. The two differ on purpose.
ESTIMATE_CHARS_PER_TOKEN: Final = 4
# A typical mining answer: most chunks yield a handful of candidates or none.
EST_OUTPUT_TOKENS_PER_CALL: Final = 400
# Ask before mining more than this many uncached sessions (config: mining.confirm_above).
DEFAULT_CONFIRM_ABOVE: Final = 10


@dataclass(frozen=True, slots=True)
class PlannedSession:
    path: Path
    session_id: str
    provider: str
    project: str | None
    size_bytes: int
    key: str | None = None  # cache key (None when the file could not be hashed)
    rendered_chars: int = 0
    chunks: int = 0  # model calls this session needs (0: nothing to mine)
    # The parsed view, so `learn run` does not parse the file a second time.
    session: Session | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MiningPlan:
    model: str
    context_window: int
    chunk_chars: int
    to_mine: tuple[PlannedSession, ...]
    cached: tuple[PlannedSession, ...]
    nothing_to_mine: tuple[PlannedSession, ...]
    unreadable: tuple[Path, ...]
    raw_bytes: int  # of the sessions to mine
    rendered_chars: int
    calls: int
    est_input_tokens: int
    est_output_tokens: int
    est_cost_usd: float

    @property
    def sessions(self) -> int:
        return len(self.to_mine) + len(self.cached) + len(self.nothing_to_mine) + len(self.unreadable)


def _file_facts(item: SessionFile | Path) -> tuple[Path, str | None, str | None, str | None]:
    if isinstance(item, SessionFile):
        return item.path, item.session_id, item.provider, item.project
    return item, None, None, None


def plan_mining(
    session_files: Sequence[SessionFile | Path],
    cache: MineCache | None,
    model: str,
    *,
    fingerprints: Sequence[str] = (),
    context_window: int | None = None,
    views: Mapping[Path, Session] | None = None,
    unreadable: Sequence[Path] = (),
) -> MiningPlan:
    """Hash every file against the cache; parse and render only the uncached ones.

    `views` are views already built (the session index's): a file found there
    is not parsed again. `unreadable` are the files discovery could not read
    (`Discovery.skipped_files`): counted with those found unreadable here, so the
    plan's "N unreadable" is the count `learn plan`'s "Skipped:" line says.
    """
    from learn.transcripts.files.listing import (
        aside_paths_for,
    )
    from learn.transcripts.files.sources import source_stat
    from learn.transcripts.parser import parse
    from learn.transcripts.view.many import read_asides
    from learn.transcripts.view.session import build_session

    info = model_info(model, context_window=context_window)
    budget = default_chunk_chars(model, context_window=context_window)
    prompt_tokens = len(system_prompt()) // ESTIMATE_CHARS_PER_TOKEN + TOOL_SCHEMA_TOKENS
    to_mine: list[PlannedSession] = []
    cached: list[PlannedSession] = []
    empty: list[PlannedSession] = []
    not_read: list[Path] = list(unreadable)
    told = set(unreadable)  # counted already: a file listed but not read (discover.with_unread)
    raw_bytes = chars = calls = input_tokens = 0
    for item in session_files:
        path, sid, provider, project = _file_facts(item)
        if path in told:
            continue
        try:
            key = cache.key_for_file(path) if cache is not None else None
            # A session a store holds is `<file>/<id>`, no file to stat: it was filed
            # unreadable and left out of the plan and its price (review of 2026-12).
            known = source_stat(path)
        except OSError:
            not_read.append(path)
            continue
        if known is None:
            not_read.append(path)
            continue
        size = known.size
        if cache is not None and key is not None and cache.get(key) is not None:
            cached.append(PlannedSession(path, sid or path.stem, provider or "claude", project, size, key))
            continue
        try:
            session = (views or {}).get(path) or build_session(
                parse(path), fingerprints=fingerprints, asides=read_asides(aside_paths_for(path)))
        except OSError:
            not_read.append(path)
            continue
        # A store's stamp counts rows, not bytes: the view knows the bytes it read.
        size = session.size_bytes or size
        planned = PlannedSession(
            path, session.id, session.provider, session.project, size, key, session=session
        )
        if not session.human_turns and not session.failures:
            empty.append(planned)
            continue
        blocks = render_blocks(session, fingerprints)
        if cache is not None and cache.as_sent(session.id, blocks) is not None:
            # Its text as sent was answered under another of learn's versions: the miner
            # reuses that answer (learn.mining.cache.rendered_key), no call to price.
            cached.append(planned)
            continue
        # Priced as sent: a turn bigger than any window is cut by the miner.
        chunks = [as_sent(c, budget) for c in chunk_blocks(blocks, budget)]
        rendered = sum(len(c) for c in chunks)
        planned = PlannedSession(
            path, session.id, session.provider, session.project, size, key,
            rendered_chars=rendered, chunks=len(chunks), session=session,
        )
        to_mine.append(planned)
        raw_bytes += size
        chars += rendered
        calls += len(chunks)
        input_tokens += rendered // ESTIMATE_CHARS_PER_TOKEN + prompt_tokens * len(chunks)
    output_tokens = calls * EST_OUTPUT_TOKENS_PER_CALL
    return MiningPlan(
        model=model,
        context_window=info.context_window,
        chunk_chars=budget,
        to_mine=tuple(to_mine),
        cached=tuple(cached),
        nothing_to_mine=tuple(empty),
        unreadable=tuple(not_read),
        raw_bytes=raw_bytes,
        rendered_chars=chars,
        calls=calls,
        est_input_tokens=input_tokens,
        est_output_tokens=output_tokens,
        # Upper bound: prompt caching makes every call after the first cheaper.
        est_cost_usd=info.cost(input_tokens, output_tokens),
    )


def describe_plan(plan: MiningPlan) -> list[str]:
    """The plan in a few plain lines (what `learn plan` prints and `learn run` asks about)."""
    lines = [
        f"{plan.sessions} session{'' if plan.sessions == 1 else 's'}: {len(plan.to_mine)} to mine, "
        f"{len(plan.cached)} cached, "
        f"{len(plan.nothing_to_mine)} with nothing to mine, {len(plan.unreadable)} unreadable",
        f"model {plan.model} ({plan.context_window:,}-token window, chunks up to "
        f"{plan.chunk_chars:,} chars)",
        f"mining: {plan.calls} model call{'' if plan.calls == 1 else 's'}, "
        f"~{plan.est_input_tokens:,} input + ~{plan.est_output_tokens:,} output tokens, "
        f"at most ~${plan.est_cost_usd:.2f}",
    ]
    if plan.raw_bytes:
        ratio = plan.rendered_chars / plan.raw_bytes
        lines.append(
            f"{amount(plan.raw_bytes)} of transcript render to {plan.rendered_chars:,} chars "
            f"({ratio:.1%}) for the model"
        )
    return lines


def amount(n: int) -> str:
    """`2.4 MB`, `36.2 KB`, `512 bytes`, in the 1,024s of the sessions' sizes listed
    under it (and of `learn sessions`): a small home's transcript said "0.0 MB"."""
    if n >= 1024 * 1024 // 10:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n} byte{'' if n == 1 else 's'}"


class PlanRefused(click.ClickException):
    """A large plan needs confirmation and there is no terminal to ask on.

    A usage error (exit 2), as `learn apply` without a terminal is: the way out is a flag
    (`--yes`), and nothing failed."""

    exit_code = 2


def needs_confirmation(plan: MiningPlan, *, confirm_above: int = DEFAULT_CONFIRM_ABOVE) -> bool:
    return len(plan.to_mine) > confirm_above


def confirm_plan(
    plan: MiningPlan,
    yes: bool,
    *,
    confirm_above: int = DEFAULT_CONFIRM_ABOVE,
    interactive: bool | None = None,
) -> bool:
    """True to go ahead. Small plans and `--yes` go ahead; a large plan asks.

    Without a terminal a large plan is refused (PlanRefused, with the way out in
    the message) rather than silently spending money or silently doing nothing.
    """
    if yes or not needs_confirmation(plan, confirm_above=confirm_above):
        return True
    tty = sys.stdin.isatty() if interactive is None else interactive
    summary = (
        f"{len(plan.to_mine)} uncached sessions, {plan.calls} mining call"
        f"{'' if plan.calls == 1 else 's'}, at most ~${plan.est_cost_usd:.2f} with {plan.model} "
        "(naming and judging after: `learn plan` prices them)"
    )
    if not tty:
        raise PlanRefused(
            f"this run would mine {summary}; re-run with --yes to go ahead "
            f"(or narrow it with --since / --limit)"
        )
    return click.confirm(f"Mine {summary}?", default=False)
