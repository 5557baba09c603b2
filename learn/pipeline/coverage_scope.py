"""Which rule files a run's points are covered by: the ones that load where each was said.

A run over every project reads every project's rules (`rule_corpora`: each project's own
files along its tree, and the person's own), and coverage asks once over all of them; a
point is then covered only by a file that loads where it was said (`covered_where_said`).
Apart from judge.py, which wires the stage, so that module stays one stage's wiring.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from learn.reduce.stage import ReduceOutcome

if TYPE_CHECKING:
    from pathlib import Path

    from learn.embed.base import Embedder
    from learn.models.meter import UsageMeter
    from learn.pipeline.types import RunOptions
    from learn.records.proposal import Proposal
    from learn.reduce.protocols import AnswerMemory
    from learn.reduce.rules import RuleCorpus
    from learn.transcripts.files.discover import SessionFile


def rule_corpora(files: Sequence[SessionFile],
                 options: RunOptions) -> dict[Path | None, RuleCorpus]:
    """The rules and skills that load in each project read, by its folder (learn.reduce.
    rules: its own files along its tree, and the person's own in every project)."""
    from learn.projects import as_folder
    from learn.reduce.rules import collect_rules

    if not options.all_projects:
        return {options.project_dir(): collect_rules(options.project_dir())}
    folders = sorted({folder for f in files if f.project_id
                      and (folder := as_folder(f.project_id)) is not None})
    return {p: collect_rules(p) for p in folders} or {None: collect_rules(None)}


def merged(corpora: dict[Path | None, RuleCorpus]) -> RuleCorpus:
    from learn.reduce.rules import RuleCorpus

    return next(iter(corpora.values())) if len(corpora) == 1 else \
        RuleCorpus.merge(list(corpora.values()))


def covered_where_said(outcome: ReduceOutcome, corpora: dict[Path | None, RuleCorpus], *,
                       backend: UsageMeter | None, model: str, embedder: Embedder,
                       answers: AnswerMemory) -> ReduceOutcome:
    """Each point covered only by a file that loads where it was said (learn.reduce.
    rules.loads_in): coverage asks once over every project's rules, and a notes-api
    point was called restated by shopfront's CLAUDE.md, which notes-api never loads;
    `learn apply --project notes-api` then rewrote shopfront's line (e2e audit, 2026-12).
    A point so freed is asked again against its own projects' rules alone."""
    from learn.projects import as_folder, quote_projects
    from learn.reduce.coverage import check_coverage
    from learn.reduce.rules import collect_rules, loads_in
    from learn.report.targets import placed_quotes

    if len(corpora) < 2:
        return outcome  # one project's rules: every file of them loads there

    def said_in(p: Proposal) -> tuple[Path | None, ...]:
        return tuple(sorted({f for x in quote_projects(placed_quotes(p))
                             if (f := as_folder(x)) is not None})) or (None,)

    freed: dict[tuple[Path | None, ...], dict[int, Proposal]] = {}
    for i, p in enumerate(outcome.proposals):
        file = p.existing_rule_file
        if p.status != "new" and file and not any(loads_in(file, f) for f in said_in(p)):
            freed.setdefault(said_in(p), {})[i] = dataclasses.replace(
                p, status="new", existing_rule=None, existing_rule_file=None)
    proposals, result = list(outcome.proposals), outcome
    for folders, points in freed.items():
        corpus = merged({f: corpora.get(f) or collect_rules(f) for f in folders})
        cov = check_coverage(list(points.values()), corpus, backend=backend, model=model,
                             embedder=embedder, answers=answers)
        for i, p in zip(points, cov.proposals, strict=True):
            proposals[i] = p
        result = dataclasses.replace(result, usage=result.usage + cov.usage,
                                     failures=(*result.failures, *cov.failures),
                                     coverage_failed=result.coverage_failed or cov.failed)
    return dataclasses.replace(result, proposals=tuple(proposals))
