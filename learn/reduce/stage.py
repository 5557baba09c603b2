"""The reduce stage end to end: name → count → threshold/suppress/cap → coverage → judge →
commands.

Coverage and judging run on the shown proposals only: held-back and cut items
are not displayed, so paying for their calls buys nothing this run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from learn.models.base import Backend, CallUsage
from learn.models.catalog import DEFAULT_MODELS
from learn.records.candidate import SessionCandidates
from learn.records.proposal import Funnel, Proposal
from learn.reduce.commands import wants_body, write_commands
from learn.reduce.counting import CountConfig, count_points, flatten_candidates, occurrences
from learn.reduce.coverage import check_coverage
from learn.reduce.judge import judge_proposals
from learn.reduce.naming import MAX_BATCH, NamingResult, NamingStats, name_candidates
from learn.reduce.onepoint import one_point, requests_as_commands
from learn.reduce.protocols import (
    AnswerMemory,
    LabelIndex,
    ShownRecord,
    ShownState,
    VerdictMemory,
)
from learn.reduce.rules import RuleCorpus
from learn.reduce.suppress import select
from learn.reduce.wording import rule_from_quote

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.windows import QuoteContext


@dataclass(frozen=True, slots=True)
class ReduceOutcome:
    proposals: tuple[Proposal, ...]  # shown, with coverage status and verdicts
    held_back: tuple[Proposal, ...]
    cut: tuple[Proposal, ...]
    below_threshold: tuple[Proposal, ...]
    funnel: Funnel
    naming: NamingStats
    coverage_failed: bool = False
    judged: int = 0
    reused_verdicts: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    failures: tuple[str, ...] = ()
    # The labels themselves (one per candidate, flattened in session order), for
    # the store to remember on each candidate and for the evals to score.
    named: NamingResult | None = None

    @property
    def may_write_state(self) -> bool:
        """Suppression state is written only when coverage did not fail: a
        failed check left everything `new`, which must not be recorded as seen
        that way."""
        return not self.coverage_failed


def reduce_sessions(
    sessions: Sequence[SessionCandidates],
    *,
    embedder: Embedder,
    backend: Backend | None,
    models: Mapping[str, str] = DEFAULT_MODELS,
    label_index: LabelIndex | None = None,
    verdicts: VerdictMemory | None = None,
    shown_state: ShownState | None = None,
    corpus: RuleCorpus | None = None,
    config: CountConfig | None = None,
    show_all: bool = False,
    remember_labels: bool = True,
    threshold: float | None = None,
    name_batch: int | None = None,
    context: QuoteContext | None = None,
    admit: Callable[[Sequence[Proposal]], list[Proposal]] | None = None,
    labelled: Callable[[str, str], str | None] | None = None,
    on_named: Callable[[NamingResult], object] | None = None,
    on_name_answer: Callable[[Sequence[tuple[str, str, str]]], object] | None = None,
    answers: AnswerMemory | None = None,
) -> ReduceOutcome:
    """Everything after mining. `backend=None` runs offline (fallback names, no
    coverage, no verdicts). New labels (also below-threshold ones, so their
    names stay stable while they accumulate) go to `label_index`. `admit` maps the
    counted groups to those that may be proposed (a team run counts people on
    them and drops the groups too few people said) before thresholds apply.
    `on_named` gets the naming as soon as it is done, so a run interrupted while
    judging keeps the model's names (the caller stores them); `on_name_answer` gets
    each naming answer as it is parsed (name_candidates' on_answer), so a run killed
    while naming keeps the batches already answered. `answers` keeps each coverage
    answer by its request (learn.reduce.coverage)."""
    config = config or CountConfig()
    candidates = flatten_candidates(sessions)
    naming = name_candidates(
        candidates, embedder=embedder, backend=backend, model=models["name"],
        index=label_index, threshold=threshold, max_batch=name_batch or MAX_BATCH,
        labelled=labelled, on_answer=on_name_answer,
    )
    if on_named is not None:
        on_named(naming)
    if remember_labels and label_index is not None:
        naming.remember(label_index)
    # One point said as a directive and as a request is one count (learn.reduce.onepoint).
    occs = one_point(occurrences(sessions, naming.labels), embedder)
    # Offline, a proposal opens with the sentence its quotes share (learn.reduce.headline):
    # the longest quote carried its unrelated context into the rule.
    points = count_points(occs, head=_shared_head(embedder) if backend is None else None)
    if admit is not None:
        points = admit(points)
    chosen = select(points, candidates=len(occs), config=config,
                    state=shown_state, show_all=show_all)
    usage = naming.stats.usage
    failures = list(naming.failures)
    shown = list(chosen.shown)
    coverage_failed = False
    if corpus is not None and shown:
        cov = check_coverage(shown, corpus, backend=backend, model=models["coverage"],
                             embedder=embedder, answers=answers)
        shown, coverage_failed = list(cov.proposals), cov.failed
        usage = usage + cov.usage
        failures.extend(cov.failures)
    judged = reused = 0
    if backend is None:
        # No model to word the rules: the shared sentence, addressed to no one
        # (learn.reduce.wording).
        shown = [dataclasses.replace(p, worded=rule_from_quote(p.text)) for p in shown]
    if shown:
        verdict = judge_proposals(shown, backend=backend, model=models["judge"], embedder=embedder,
                                  memory=verdicts, context=context)
        shown = requests_as_commands(verdict.proposals, config.threshold("request"))
        judged, reused = verdict.judged, verdict.reused
        usage = usage + verdict.usage
        failures.extend(verdict.failures)
        # Each accepted request's command, written from all of its quotes.
        commands = write_commands(shown, backend=backend,
                                  model=models.get("command") or models["judge"], memory=verdicts)
        shown = list(commands.proposals)
        usage = usage + commands.usage
        failures.extend(commands.failures)
    return ReduceOutcome(
        proposals=tuple(shown), held_back=chosen.held_back, cut=chosen.cut,
        below_threshold=chosen.below_threshold, funnel=chosen.funnel, naming=naming.stats,
        coverage_failed=coverage_failed, judged=judged, reused_verdicts=reused, usage=usage,
        failures=tuple(failures), named=naming,
    )


def _shared_head(embedder: Embedder) -> Callable[[Sequence[str]], str]:
    from learn.reduce.headline import shared_sentence

    return lambda texts: shared_sentence(texts, embedder.embed)


def shown_records(proposals: Sequence[Proposal], shown_at: str) -> dict[str, ShownRecord]:
    """What to write to the suppression state for the proposals just shown."""
    return {
        p.key: ShownRecord(shown_at=shown_at, last_seen=p.last_seen, covered=p.status != "new")
        for p in proposals
    }



def reduce_failures(outcome: ReduceOutcome, *, judged_by_model: bool) -> list[str]:
    """Which of naming, coverage, judging and writing commands still failed after their
    retries. A command stage failed as a judge did: an accepted request the model was
    asked for and still has no body (its call failed, or every answer was refused as a
    copy of one quote or too long); it was reported under "What failed" and the run
    exited 0 (a real-transcript check: a refused write_commands call)."""
    out: list[str] = []
    if outcome.naming.failed_calls:
        out.append("name")
    if outcome.coverage_failed:
        out.append("coverage")
    if judged_by_model and any(p.verdict is None for p in outcome.proposals):
        out.append("judge")
    if judged_by_model and any(wants_body(p) for p in outcome.proposals):
        out.append("command")
    return out
