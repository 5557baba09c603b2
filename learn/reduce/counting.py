"""Counting: labelled occurrences → proposals, thresholded on distinct sessions.

"Two sessions is a claim about how you work; two lines in one session is a
claim about one afternoon": repeating something inside one session usually
means the agent ignored it the first time, so the threshold counts distinct
sessions, never occurrences. Requests need one session more ("a job you asked
for twice may just be a job that came up twice").

A session counts when the person said it there, not when a copy of what they
said landed there: one message pasted into two or three sessions side by side
(to compare the agents' answers) is one saying (`one_saying`), as a resumed
session's copied turns are (learn.pipeline.candidates drops those before counting).
That holds across runs: a copy a run read of a saying an earlier run counted, in a
session the run did not read, is that saying (`without_copies`), and a copy an earlier
run counted of a saying this run read is this run's saying (`copies_of_this_run`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice

from learn.isotime import parse_iso
from learn.records.candidate import KINDS, CandidateKind, MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote, rank_key
from learn.textfold import fold
from learn.transcripts.ids import PROVIDERS

DEFAULT_MIN_SESSIONS: Mapping[str, int] = {"directive": 2, "fix": 2, "request": 3}
DEFAULT_MAX_PER_KIND = 8
MAX_MERGED_LIST = 12


@dataclass(frozen=True, slots=True)
class CountConfig:
    min_sessions: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MIN_SESSIONS))
    max_per_kind: int = DEFAULT_MAX_PER_KIND

    def threshold(self, kind: str) -> int:
        return max(1, int(self.min_sessions.get(kind, 2)))


@dataclass(frozen=True, slots=True)
class Occurrence:
    session: SessionCandidates
    candidate: MinedCandidate
    label: str


def occurrences(
    sessions: Sequence[SessionCandidates], labels: Sequence[str]
) -> list[Occurrence]:
    """Pair each candidate (in `flatten_candidates` order) with its label."""
    flat = [(s, c) for s in sessions for c in s.candidates]
    if len(flat) != len(labels):
        raise ValueError(f"{len(labels)} labels for {len(flat)} candidates")
    return [Occurrence(s, c, label) for (s, c), label in zip(flat, labels, strict=True)]


def flatten_candidates(sessions: Sequence[SessionCandidates]) -> list[MinedCandidate]:
    """Every candidate of every session, in the order `occurrences` expects labels."""
    return [c for s in sessions for c in s.candidates]


def typed_at(o: Occurrence) -> str | None:
    """When the quote was typed; the session's last activity when that is not known."""
    return o.candidate.at or o.session.last_activity


# How far after a quote the same words typed in another session are a copy of it.
# The copies of a real fan-out (one prompt pasted into Codex sessions side by side)
# were typed 24 s apart (tests/test_h5_parallel_fanout_counting.py), so pasting into
# three sessions at that pace spans about 48 s from the first copy; a minute covers
# it. A genuine second saying in another session answers something that session's
# agent did: the person opens it, asks, and reads the agent go wrong again, which is
# minutes, not seconds. The window runs from the first copy (a chain of copies each
# under a minute apart does not stretch it). In the eval corpora the closest two
# sessions saying the same words are 25 h apart (the same point in other words, 16 h),
# so no `learn eval` figure moved when this came in.
FANOUT_SECONDS = 60
# What the person typed. A fix is told apart by its command (each session ran it),
# never by wording, so a fix is not a copy of another session's.
_SAID = ("directive", "request")


def one_saying(occs: Sequence[Occurrence], *,
               earlier: Sequence[Occurrence] = ()) -> list[Occurrence]:
    """`occs` without the copies of a fan-out: the same quote (learn.textfold.fold, as
    counting compares quotes) typed in another session within FANOUT_SECONDS of its
    first saying belongs to the session it was first typed in. Repeats inside that
    session stay (distinct sessions count them once); the same words after the window
    are a new saying, in any session. A quote with no typed time is never a copy.
    `earlier` are sayings counted before (`earlier_sayings`): each may be the first
    saying of a copy in `occs`, and none is returned."""
    every = [*earlier, *occs]
    copies = _first_sayings(every)
    return [o for i, o in enumerate(every) if i >= len(earlier) and i not in copies]


def _first_sayings(every: Sequence[Occurrence]) -> dict[int, int]:
    """Each copy in `every` (by index) -> the first saying it copies (`one_saying`)."""
    timed: dict[str, list[tuple[float, str, int]]] = {}
    for i, o in enumerate(every):
        when = parse_iso(o.candidate.at) if o.candidate.kind in _SAID else None
        if when is not None:
            timed.setdefault(fold(o.candidate.text), []).append(
                (when.timestamp(), o.session.session_id, i))
    copies: dict[int, int] = {}
    for same in timed.values():
        first_at, first_in, first = float("-inf"), "", -1
        for at, session, i in sorted(same):
            if at - first_at > FANOUT_SECONDS:
                first_at, first_in, first = at, session, i
            elif session != first_in:
                copies[i] = first
    return copies


def earlier_sayings(points: Iterable[Proposal],
                    sessions_read: Collection[str]) -> list[Occurrence]:
    """The quotes of points earlier runs counted (the store's proposals) in sessions this
    run did not read, as occurrences: what learn.store.proposals.widest adds to this
    run's counts. A quote's time stands for its typed time (a quote typed at an unknown
    time carries its session's last activity: `typed_at`)."""
    return [Occurrence(SessionCandidates(q.session_id, q.agent or "", q.project, q.at),
                       MinedCandidate(kind=p.kind, text=q.text, source=q.source, at=q.at),
                       p.label)
            for p in points for q in p.quotes if q.session_id not in sessions_read]


def without_copies(sessions: Sequence[SessionCandidates],
                   earlier: Sequence[Occurrence]) -> list[SessionCandidates]:
    """`sessions` without the candidates that are copies (`one_saying`) of a saying in
    `earlier`. The store keeps an earlier run's quotes of the sessions a run did not
    read beside the run's own count (learn.store.proposals.widest), so a fan-out whose
    first session one run counted and whose copy only a later run read (the copy's
    session went on for days, the first's fell out of the window) was counted in both:
    a message pasted into two sessions 24 s apart, then said in three more, was said in
    5 sessions (tests/test_fanout_across_runs.py).

    Unchanged when no earlier saying makes a copy. Else the candidates `one_saying`
    keeps over the earlier sayings and the run's at once, the run's own copies left out
    too (counting leaves them out anyway): a copy's copy is judged from the first saying,
    wherever it is (the window runs from the first copy, as in one run)."""
    occs = occurrences(sessions, [""] * sum(len(s.candidates) for s in sessions))
    kept = {id(o) for o in one_saying(occs, earlier=earlier)} if earlier else set()
    if not earlier or kept == {id(o) for o in one_saying(occs)}:
        return list(sessions)
    flat = iter(occs)
    out: list[SessionCandidates] = []
    for s in sessions:
        own = tuple(o.candidate for o in islice(flat, len(s.candidates)) if id(o) in kept)
        out.append(s if len(own) == len(s.candidates) else replace(s, candidates=own))
    return out


def copies_of_this_run(sessions: Sequence[SessionCandidates],
                       earlier: Sequence[Occurrence]) -> set[tuple[str, str]]:
    """The sayings in `earlier` (`earlier_sayings`) that are copies (`one_saying`) of a
    saying in `sessions`, as (session id, quote text): what learn.store.proposals.widest
    must not add to this run's count. The other order of `without_copies`: run 1 read
    only the copy (typed 24 s after the first saying), run 2 only the first (the copy's
    session fell out of its window), and the store added the copy's quote to run 2's
    count of the first, a message pasted into two sessions counted as said in two
    (tests/test_fanout_reverse.py)."""
    occs = occurrences(sessions, [""] * sum(len(s.candidates) for s in sessions))
    every = [*earlier, *occs]
    return {(every[i].session.session_id, every[i].candidate.text)
            for i, first in _first_sayings(every).items()
            if i < len(earlier) <= first}


def _iso_key(value: str | None) -> str:
    return value or ""


def _merged(values: Sequence[Sequence[str]]) -> tuple[str, ...]:
    out: list[str] = []
    for seq in values:
        for v in seq:
            if v not in out:
                out.append(v)
                if len(out) == MAX_MERGED_LIST:
                    return tuple(out)
    return tuple(out)


def _merge_identical_text(groups: dict[tuple[str, str], list[Occurrence]]) -> dict[tuple[str, str], list[Occurrence]]:
    """Merge groups of one kind that share a quote (same text, whitespace and case
    aside), keeping the lexicographically smallest label so the result does not
    depend on session order. Runs before the threshold: the same quote arrived
    under `stage-only-own-files` and `stage-only-changed-files`, each half below
    the bar."""
    parent: dict[tuple[str, str], tuple[str, str]] = {key: key for key in groups}

    def find(key: tuple[str, str]) -> tuple[str, str]:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    seen: dict[tuple[str, str], tuple[str, str]] = {}
    for key in sorted(groups):
        for occ in groups[key]:
            text_key = (key[0], fold(occ.candidate.text))
            other = seen.setdefault(text_key, key)
            a, b = find(other), find(key)
            if a != b:
                keep, drop = min(a, b), max(a, b)
                parent[drop] = keep
    merged: dict[tuple[str, str], list[Occurrence]] = {}
    for key in sorted(groups):
        merged.setdefault(find(key), []).extend(groups[key])
    return merged


# Kinds a miner confuses: "never force push" reported once as a request. A fix is
# told apart by its command, never by wording, so it is not reconciled.
_CONFUSABLE = ("directive", "request")


def _reconcile_kinds(groups: dict[tuple[str, str], list[Occurrence]]) -> dict[tuple[str, str], list[Occurrence]]:
    """Fold a label named under both confusable kinds into the kind most of its
    sessions gave it (ties: directive). With one directive reported as a request
    the directive's group lost a session and fell below its threshold
    (noisy eval, hard corpus: recall 1.0 -> 0.875, one count error)."""
    out = dict(groups)
    labels = {label for (kind, label) in groups if kind == _CONFUSABLE[0]}
    for label in sorted(labels):
        keys = [(kind, label) for kind in _CONFUSABLE if (kind, label) in out]
        if len(keys) < 2:
            continue
        sessions = {k: len({o.session.session_id for o in out[k]}) for k in keys}
        keep = max(keys, key=lambda k: (sessions[k], -_CONFUSABLE.index(k[0])))
        for k in keys:
            if k != keep:
                out[keep] = out[keep] + out.pop(k)
    return out


def build_proposal(kind: str, label: str, occs: Sequence[Occurrence]) -> Proposal:
    """One counted group. Quotes newest session first; text = the longest quote
    (`count_points` may pick another head)."""
    ordered = sorted(
        occs,
        key=lambda o: (_iso_key(typed_at(o)), o.session.session_id, o.candidate.text),
        reverse=True,
    )
    text = longest([o.candidate.text for o in ordered])
    quotes: list[Quote] = []
    seen: set[tuple[str, str]] = set()
    for o in ordered:
        ident = (o.session.session_id, o.candidate.text)
        if ident in seen:
            continue
        seen.add(ident)
        quotes.append(
            Quote(o.session.session_id, o.candidate.text, typed_at(o),
                  o.session.project, o.candidate.source, o.session.provider)
        )
    dated = [at for o in ordered if (at := typed_at(o))]
    cands = [o.candidate for o in ordered]
    return Proposal(
        kind=_kind(kind),
        label=label,
        text=text,
        sessions=len({o.session.session_id for o in ordered}),
        count=len(ordered),
        last_seen=max(dated) if dated else None,
        quotes=tuple(quotes),
        rationale=next((c.rationale for c in cands if c.rationale), None),
        command=next((c.command for c in cands if c.command), None),
        error_excerpt=next((c.error_excerpt for c in cands if c.error_excerpt), None),
        intervening_commands=_merged([c.intervening_commands for c in cands]),
        edited_files=_merged([c.edited_files for c in cands]),
        agents=agents_of(ordered),
    )


def agents_of(occs: Sequence[Occurrence]) -> tuple[tuple[str, int], ...]:
    """The agents a point was said to and each one's distinct sessions, most first.

    One count across agents: the sessions of every agent add up in `sessions`; this
    only says how they split, for the digest."""
    seen: dict[str, set[str]] = {}
    for o in occs:
        if o.session.provider in PROVIDERS:  # a team run's sessions are no agent's
            seen.setdefault(o.session.provider, set()).add(o.session.session_id)
    return tuple(sorted(((a, len(s)) for a, s in seen.items()), key=lambda an: (-an[1], an[0])))


def _kind(kind: str) -> CandidateKind:
    for known in KINDS:
        if kind == known:
            return known
    raise ValueError(f"unknown candidate kind {kind!r}")


# What a proposal opens with, chosen from its quotes' texts.
Head = Callable[[Sequence[str]], str]


def longest(texts: Sequence[str]) -> str:
    """The longest text (ties: the alphabetically first): the head a judged run shows,
    the judge's summary being its rule."""
    return min(texts, key=lambda t: (-len(t), t))


def count_points(occs: Sequence[Occurrence], head: Head | None = None) -> list[Proposal]:
    """Every group at threshold 1 (the funnel's `points`), a fan-out's copies left out
    (`one_saying`), sorted sessions desc, count desc, label asc. `head` picks each
    group's text from its quotes (default: the longest; an offline run: the sentence
    they share, learn.reduce.headline)."""
    groups: dict[tuple[str, str], list[Occurrence]] = {}
    for o in one_saying(occs):
        groups.setdefault((o.candidate.kind, o.label), []).append(o)
    merged = _merge_identical_text(_reconcile_kinds(groups))
    points = [build_proposal(k, label, g) for (k, label), g in merged.items()]
    if head is not None:
        points = [replace(p, text=head([q.text for q in p.quotes])) for p in points]
    return distinct_heads(sorted(points, key=rank_key), head)


def distinct_heads(points: Sequence[Proposal], head: Head | None = None) -> list[Proposal]:
    """No two proposals open with the same quote. One long detector excerpt (a
    denial reason holding two requests) was the longest quote of two groups and
    headed both, so the digest showed two proposals that read as one. A group
    whose head an earlier (larger) group already shows opens with the head of its
    other quotes (`head`, default the longest); a group with no other quote keeps it."""
    used: set[str] = set()
    out: list[Proposal] = []
    for p in points:
        text = p.text
        if fold(text) in used:
            others = [q.text for q in p.quotes if fold(q.text) not in used]
            if others:
                text = head(others) if head is not None else longest(others)
                if fold(text) in used:
                    text = longest(others)
        used.add(fold(text))
        out.append(p if text == p.text else replace(p, text=text))
    return out


def over_threshold(points: Sequence[Proposal], config: CountConfig) -> list[Proposal]:
    return [p for p in points if p.sessions >= config.threshold(p.kind)]
