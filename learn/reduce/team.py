"""Team runs: what several people keep telling their agents in one repository.

`learn run --team` reads the candidates people shared (learn.store.team) for the
repository's remote URL and runs the same reduce stage a personal run does
(reduce_sessions: naming, counting, coverage, judging) on them, in the team
database: known labels come from its pgvector label index, verdicts are reused
from and stored in its verdict memory, once for the whole team. What differs:

- a shared session is its session hash, and who said it is its author id;
- each counted group also counts DISTINCT PEOPLE, and a group said by fewer
  than `[team] min_people` is not proposed however often one person said it
  (one person's habit belongs in their own CLAUDE.md, not the repository's);
- coverage reads only the repository's shared rule files (CLAUDE.md, AGENTS.md,
  .claude/CLAUDE.md, .claude/rules under its root), never a person's user-level
  files or their CLAUDE.local.md;
- nothing is held back as "already shown": the team digest is a snapshot.

Author ids are read only to count people (team_shared gives an opaque key per
person); a proposal names the authors who chose `[team] show_name = true` and
only them. What the run stores in the team database holds no path of this
machine (a rule file is named relative to the repository root; a shared session
has no project folder, the repository is the run's `projects`), and a verdict
it keeps for the team never restates a person's quote (strip_quotes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learn.records.candidate import KINDS, MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Verdict
from learn.reduce.rules import RuleCorpus, collect_rules
from learn.textfold import fold
from learn.visible import visible

if TYPE_CHECKING:
    from learn.config import Config
    from learn.models.base import Backend
    from learn.records.proposal import RunResult
    from learn.reduce.stored import StoreVerdictMemory
    from learn.store.team import SharedCandidate

PROVIDER = "team"
# A verdict restates a quote when it holds this many consecutive words of one
# (or the whole of a shorter quote): the judge writes the rule "in the user's own
# terms", which shares short phrases with them but not five words running.
QUOTE_SPAN = 5
# A stripped summary shorter than this says nothing: the label stands in for it.
MIN_SUMMARY_WORDS = 3
_WORD = re.compile(r"\w+(?:['’]\w+)*")


def team_sessions(
    rows: Sequence[SharedCandidate],
) -> tuple[list[SessionCandidates], dict[str, str]]:
    """Shared rows as sessions (one per person and session hash, newest quote as
    its time) and who said each session (session id -> person key). A fix becomes
    a candidate whose command is its verified command, with its verified steps."""
    grouped: dict[tuple[str, str], list[SharedCandidate]] = {}
    for r in rows:
        grouped.setdefault((r.author, r.session_hash), []).append(r)
    sessions: list[SessionCandidates] = []
    authors: dict[str, str] = {}
    for (author, sid), group in grouped.items():
        if sid in authors:  # two people, one session hash: never one person
            sid = f"{sid}:{len(authors)}"
        # A teammate's row is read as their words would be shown: what a SQLite team
        # file (anyone's to write) or a member's own rows hold past that (an ESC
        # sequence, a bidi override) never reaches a proposal, a digest or a terminal.
        candidates = tuple(
            MinedCandidate(kind=kind, text=visible(r.quote),
                           command=visible(r.quote) if kind == "fix" else None,
                           intervening_commands=tuple(map(visible, r.evidence))
                           if kind == "fix" else ())
            for r in group for kind in KINDS if kind == r.kind
        )
        dated = [r.occurred_at for r in group if r.occurred_at]
        # No project: a shared session belongs to the repository the run is for
        # (its id is the run's `projects`), and a session's project is read as a
        # folder of this machine.
        sessions.append(SessionCandidates(sid, PROVIDER, None,
                                          max(dated) if dated else None, candidates))
        authors[sid] = author
    return sessions, authors


def people_counter(
    authors: Mapping[str, str], names: Mapping[str, str], min_people: int
) -> Callable[[Sequence[Proposal]], list[Proposal]]:
    """The `admit` step of reduce_sessions for a team: count distinct people on each
    group (its quotes carry every session of the group), keep those said by at
    least min_people, and name only the people in `names` (person key -> the name
    they chose to show)."""

    def admit(points: Sequence[Proposal]) -> list[Proposal]:
        out: list[Proposal] = []
        for p in points:
            people = {authors[q.session_id] for q in p.quotes if q.session_id in authors}
            if len(people) >= min_people:
                out.append(replace(p, people=len(people),
                                   authors=tuple(sorted(names[x] for x in people if x in names))))
        return out

    return admit


def strip_quotes(text: str, quotes: Iterable[str], *, span: int = QUOTE_SPAN) -> str:
    """`text` without any run of `span` consecutive words of one of `quotes` (nor the
    whole of a shorter quote), compared folded; each cut run becomes "…"."""
    runs: set[tuple[str, ...]] = set()
    short: set[tuple[str, ...]] = set()
    for q in quotes:
        words = tuple(fold(w) for w in _WORD.findall(q))
        if 0 < len(words) < span:
            short.add(words)
        runs.update(words[i : i + span] for i in range(len(words) - span + 1))
    found = list(_WORD.finditer(text))
    said = [fold(m.group()) for m in found]
    cut = [False] * len(said)
    for size, wanted in ((span, runs), *((len(w), {w}) for w in short)):
        for i in range(len(said) - size + 1):
            if tuple(said[i : i + size]) in wanted:
                cut[i : i + size] = [True] * size
    if not any(cut):
        return text
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(found):
        if not cut[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(found) and cut[j + 1]:
            j += 1
        out.append(text[pos : found[i].start()])
        out.append("…")
        pos = found[j].end()
        i = j + 1
    out.append(text[pos:])
    return "".join(out)


class QuoteFreeVerdicts:
    """The team's verdict memory: reads as the store's, but what it records never
    restates one of the shared quotes (its summary and rationale through
    strip_quotes); the verdict of this run is shown as the judge wrote it."""

    def __init__(self, inner: StoreVerdictMemory, quotes: Iterable[str]) -> None:
        self._inner = inner
        self._quotes = tuple(quotes)
        self.space = inner.space

    def get(self, dedup_key: str, role: str, prompt_version: int) -> Verdict | None:
        return self._inner.get(dedup_key, role, prompt_version)

    def nearest_verdict(
        self, vector: Any, canonical_key: str | None, *, role: str, prompt_version: int,
        max_distance: float, kind: str | None = None,
    ) -> Verdict | None:
        return self._inner.nearest_verdict(vector, canonical_key, role=role,
                                           prompt_version=prompt_version,
                                           max_distance=max_distance, kind=kind)

    def record(
        self, dedup_key: str, role: str, prompt_version: int, verdict: Verdict, vector: Any
    ) -> None:
        summary = strip_quotes(verdict.summary, self._quotes)
        if len(_WORD.findall(summary)) < MIN_SUMMARY_WORDS:
            # Little but quotes was left: the label names the rule instead.
            summary = strip_quotes(dedup_key.partition(":")[2].replace("-", " "), self._quotes)
        clean = replace(verdict, summary=summary,
                        rationale=strip_quotes(verdict.rationale or "", self._quotes))
        self._inner.record(dedup_key, role, prompt_version, clean, vector)


def _relative(path: str | None, root: Path) -> str | None:
    """A rule file named relative to the repository (no path of this machine)."""
    if not path:
        return path
    p = Path(path)
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        return p.name


def shared_rules(root: Path) -> RuleCorpus:
    """The rule files the repository itself holds (what every teammate's agent reads),
    not the person's user-level files, parent directories or CLAUDE.local.md."""
    corpus = collect_rules(root)
    root = root.resolve()

    def in_repo(file: str) -> bool:
        p = Path(file).resolve()
        return root in p.parents and p.name != "CLAUDE.local.md"

    return RuleCorpus(
        rules=tuple(r for r in corpus.rules if r.scope == "project" and in_repo(r.file)),
        skills=tuple(s for s in corpus.skills if s.scope == "project" and in_repo(s.file)),
        files=tuple(f for f in corpus.files if in_repo(f)),
        unreadable=tuple(f for f in corpus.unreadable if in_repo(f)),
    )


def run_team(
    root: Path, remote: str, config: Config, *, backend: Backend | None, embedder: str = "minilm"
) -> RunResult:
    """Name, count (people and sessions), cover and judge the shared candidates of
    `remote` in the team database; the run and its verdicts are stored there."""
    from learn.embed import get_embedder
    from learn.models.meter import UsageMeter
    from learn.records.proposal import RunResult, RunUsage
    from learn.redaction.redact import redact_message
    from learn.reduce.counting import CountConfig
    from learn.reduce.stage import reduce_failures, reduce_sessions
    from learn.reduce.stored import CachedEmbedder, StoreLabelIndex, StoreVerdictMemory, record_run
    from learn.store import open_store
    from learn.store.run_usage import RunningUsage

    team = config.team
    if not team.database_url:
        raise ValueError("set [team] database_url in the config")
    # As a personal run's (learn.pipeline.run): every call goes through the meter,
    # failed ones included, and each one's usage is in the team's `runs` as it
    # returns, so a team run killed mid-way still counts the calls it paid for.
    meter = running = None
    if backend is not None:
        meter = UsageMeter(backend)
        running = RunningUsage(team.database_url, meter.run_usage)
        meter.on_usage = running.record
    # The row's own connection closes with the run, as the store's does.
    with open_store(team.database_url) as store, \
            closing(running) if running is not None else nullcontext():
        # Only a member runs the team's runs (TeamAccessError for the admin, a
        # superuser or anyone `learn team init` did not set up).
        if store.team.is_postgres():
            store.team.member(None)
        rows = store.team.shared_rows(remote)
        sessions, authors = team_sessions(rows)
        emb = CachedEmbedder(get_embedder(prefer="tfidf" if embedder == "tfidf" else "minilm"),
                             store)
        labels = StoreLabelIndex(store, emb.name)
        outcome = reduce_sessions(
            sessions,
            embedder=emb,
            backend=meter,
            models={step: config.models.for_step(step) for step in ("mine", "name", "coverage", "judge")},
            label_index=labels,
            verdicts=QuoteFreeVerdicts(StoreVerdictMemory(store, emb.name), {r.quote for r in rows}),
            shown_state=None,
            corpus=shared_rules(root),
            config=CountConfig(min_sessions=dict.fromkeys(KINDS, team.min_sessions),
                               max_per_kind=config.thresholds.max_per_kind),
            show_all=True,
            # Remembered below, in one transaction: one commit per label example made
            # `remember` 21 of a 28 s offline run at 50 people x 200 sessions
            # (2,924 examples; benchmarks/team_run.py --profile).
            remember_labels=False,
            name_batch=config.models.name_batch,
            admit=people_counter(authors, {r.author: r.name for r in rows if r.name},
                                 team.min_people),
        )
        if outcome.named is not None:
            with store.atomic():
                outcome.named.remember(labels)
        dated = [s.last_activity for s in sessions if s.last_activity]
        result = RunResult(
            proposals=tuple(replace(p, existing_rule_file=_relative(p.existing_rule_file, root))
                            for p in outcome.proposals),
            funnel=outcome.funnel,
            usage=replace(meter.run_usage() if meter is not None else RunUsage(),
                          sessions_seen=len(sessions)),
            window_start=min(dated) if dated else None,
            window_end=max(dated) if dated else None,
            projects=(remote,),
            # Through redaction, as a personal run's (learn.pipeline.judge): a failure
            # quotes the endpoint's error, which can echo its key, and this record
            # is read by every member of the team.
            failures=tuple(redact_message(f) for f in outcome.failures),
            coverage_failed=outcome.coverage_failed,
            offline=backend is None,
            failed_stages=tuple(reduce_failures(outcome, judged_by_model=backend is not None)),
            extra={"team": {"remote": remote, "people": len(set(authors.values())),
                            "sessions": len(sessions)}},
        )
        # The final books over the row the first paid call started (if one did): one
        # row per run, finished or not.
        record_run(store, result, remember_shown=False,
                   run_id=running.run_id if running is not None else None)
    return result
