"""Rules in place, from the proposal book: what outcomes measure against.

Two ways a rule is in place: `learn apply` wrote it (applied_rules, decision
accepted/edited), or coverage found the person had already written it
themselves (status `restated`: the proposal matches a line of their files). The
second is recorded the first time a run sees it, as decision `written`, dated by
the file's git history (the commit that added the line, `git log -S`) when the file
is in a repository, else by the run's time: first sight only ever makes "since"
shorter, never wrong.

Each function takes the store's proposal book (`Store.proposals`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from learn.projects import quote_projects
from learn.records.proposal import Proposal
from learn.reduce.loaded import Seen
from learn.reduce.outcomes import (
    InPlace,
    RuleOutcome,
    Said,
    rule_outcomes,
    similar_by,
    started_before,
)
from learn.reduce.rule_target import target_of
from learn.reduce.surfaces import is_memory_file

if TYPE_CHECKING:
    from learn.store.proposals import ProposalBook
    from learn.transcripts.instructions import Records

RecordsOf = Callable[[Sequence[str]], Mapping[str, "Records"]]

WRITTEN = "written"


def rules_in_place(book: ProposalBook, project: str | None) -> list[InPlace]:
    """Every rule written in `project` (every project when None), with the quotes it
    was proposed on (the anchor for matching its correction by meaning)."""
    evidence: dict[str, tuple[str, ...]] = {}
    for row in book.rows(project):
        evidence.setdefault(row.key, tuple(q.text for q in row.proposal.quotes))
    return [
        InPlace(key=a.key, rule_text=a.rule_text, target_file=a.target_file,
                applied_at=a.applied_at, project=a.project, canonical_key=a.canonical_key,
                origin=WRITTEN if a.decision == WRITTEN else "apply",
                evidence=evidence.get(a.key, ()))
        for a in book.applied(project=project)
        if a.form in ("rule", "path-rule")  # a line the agent reads, whose outcome is said
    ]


GIT_SECONDS = 5


def written_at(file: str, line: str) -> str | None:
    """When `line` entered `file`, from git (the oldest commit whose diff adds it); None
    when the file is not tracked, git is missing or slow, or no commit added it."""
    import subprocess
    from pathlib import Path

    path = Path(file)
    if not line.strip() or not path.is_file():
        return None
    try:
        proc = subprocess.run(
            ["git", "-C", str(path.parent), "log", "--format=%aI", "--reverse", "-S", line,
             "--", path.name], capture_output=True, text=True, timeout=GIT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    first = proc.stdout.strip().splitlines()[:1] if proc.returncode == 0 else []
    return first[0] if first else None


def record_written(book: ProposalBook, proposals: Sequence[Proposal], project: str | None,
                   *, at: str | None = None) -> list[str]:
    """Record, once per (project, key), each restated proposal as a rule the person
    wrote; returns the keys recorded now."""
    recorded: list[str] = []
    for p in proposals:
        if (p.status != "restated" or not p.existing_rule or p.people is not None
                or is_memory_file(p.existing_rule_file)):  # the agent's memory, not a rule
            continue
        for where in quote_projects(p.quotes) or ([project] if project else []):
            if any(a.project == where for a in book.applied(key=p.key)):
                continue
            dated = at or written_at(p.existing_rule_file or "", p.existing_rule)
            book.record_applied(project=where, proposal=p, decision=WRITTEN, form="rule",
                                rule_text=p.existing_rule, target_file=p.existing_rule_file or "",
                                backup_file=None, at=dated)
            recorded.append(p.key)
    return recorded


def measure(book: ProposalBook, project: str | None, *, session_starts: Mapping[str, str | None],
            said: Sequence[Said], proposals: Sequence[Proposal], embedder: Any | None,
            session_projects: Mapping[str, str | None] | None = None,
            seen: Mapping[str, Seen] | None = None,
            records: RecordsOf | None = None) -> list[RuleOutcome]:
    """Record what coverage found written, then every rule in place against this run.

    With `seen`, only the sessions that loaded a rule count for it; `records`
    reads what was recorded about loading (learn.transcripts.instructions), asked
    only for the sessions that started after the oldest rule in place."""
    record_written(book, proposals, project)
    rules = rules_in_place(book, project)
    if not rules:
        return []
    similar, threshold = similar_by(embedder) if embedder is not None else (None, 1.0)
    targets = {r.key: target_of(r.target_file, r.rule_text) for r in rules} if seen else None
    if seen and records is not None:
        first = min(r.applied_at for r in rules)
        since = [sid for sid in seen if not started_before(session_starts.get(sid), first)]
        found = records(since) if since else {}
        seen = {sid: dataclasses.replace(s, records=found[sid]) if sid in found else s
                for sid, s in seen.items()}
    from learn.reduce.checks import checks_in_place

    checks = checks_in_place(sorted({r.project for r in rules if r.project}))
    return rule_outcomes(rules, said, session_starts, proposals=proposals, similar=similar,
                         similarity=threshold, session_projects=session_projects,
                         seen=seen, targets=targets, checks=checks)
