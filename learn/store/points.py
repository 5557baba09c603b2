"""Whether two proposals make the same point, under whatever key, and an index that asks
it of many stored proposals at once.

The one test of "the same point" a decision carries over by (learn.store.proposals:
a key declined under another label; the proposal book's backfill, proposals_ddl): the
judge gave both the same canonical key, or most of the new point's evidence (its
distinct (session, quote) pairs) was the old one's. The label of a point changes
between an offline run and a model run; its quotes do not.

`Points` is that test against many stored proposals. A run asks it for every point
it counts against every declined row of the project: asked pair by pair, each row's
quotes were folded again for every point, and 1,000 declined rows x 300 points x 10
quotes took 6.0 s of CPU (a synthetic bench: random 30-word quotes). Here each
stored proposal's quotes are folded once, and a point is compared only with the
proposals that share its canonical key or one of its sessions (a proposal sharing
neither cannot hold most of its evidence); the answers are the pairwise test's
(tests/test_store_points.py), and the same bench takes 0.06 s, the index built.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from learn.records.proposal import Proposal
from learn.textfold import fold

# A quote shorter than this (folded) is too generic for containment to say "the same
# utterance": "no" is in every message.
_MIN_CONTAINED = 20

T = TypeVar("T")


def _same_quote(a: str, b: str) -> bool:
    """Folded quotes `a` and `b` are one utterance: equal, or one cut from the other (a
    model quotes a part of what the person typed, an offline run the whole turn)."""
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _MIN_CONTAINED and short in long


def _canonical(p: Proposal) -> str | None:
    return p.verdict.canonical_key if p.verdict else None


def _said(p: Proposal) -> set[tuple[str, str]]:
    """`p`'s evidence: its distinct (session, folded quote) pairs, blank quotes left out."""
    return {(q.session_id, fold(q.text)) for q in p.quotes if q.text.strip()}


def _by_session(p: Proposal) -> dict[str, list[str]]:
    """`p`'s folded quotes by session."""
    out: dict[str, list[str]] = {}
    for q in p.quotes:
        out.setdefault(q.session_id, []).append(fold(q.text))
    return out


def _holds_most(said: set[tuple[str, str]], before: dict[str, list[str]]) -> bool:
    """Whether most of `said` was said before (`before`: folded quotes by session)."""
    shared = sum(1 for sid, text in said if any(_same_quote(text, t) for t in before.get(sid, ())))
    return 2 * shared > len(said)


def same_point(new: Proposal, old: Proposal) -> bool:
    """Whether `new` is the point `old` already made, under whatever key (the module
    doc). A point with mostly other quotes is another point, whatever it shares."""
    mine = _canonical(new)
    if mine and mine == _canonical(old):
        return True
    said = _said(new)
    return bool(said) and _holds_most(said, _by_session(old))


class Points(Generic[T]):
    """Stored proposals, each with an item of the caller's (its row), indexed for
    `holding`: each proposal's quotes folded once, looked up by canonical key and by
    session id."""

    def __init__(self, entries: Iterable[tuple[Proposal, T]] = ()) -> None:
        self._items: list[T] = []
        self._folded: list[dict[str, list[str]]] = []
        self._canonical: dict[str, list[int]] = {}
        self._sessions: dict[str, list[int]] = {}
        for proposal, item in entries:
            self.add(proposal, item)

    def add(self, proposal: Proposal, item: T) -> None:
        i = len(self._items)
        self._items.append(item)
        folded = _by_session(proposal)
        self._folded.append(folded)
        canonical = _canonical(proposal)
        if canonical:
            self._canonical.setdefault(canonical, []).append(i)
        for sid in folded:
            self._sessions.setdefault(sid, []).append(i)

    def holding(self, point: Proposal) -> list[T]:
        """The items whose proposal `point` makes the same point as (`same_point(point,
        proposal)`), in the order they were added."""
        mine = _canonical(point)
        hits = set(self._canonical.get(mine, ())) if mine else set()
        said = _said(point)
        if said:
            near = {i for sid in {sid for sid, _ in said} for i in self._sessions.get(sid, ())}
            hits.update(i for i in near - hits if _holds_most(said, self._folded[i]))
        return [self._items[i] for i in sorted(hits)]

    def __len__(self) -> int:
        return len(self._items)
