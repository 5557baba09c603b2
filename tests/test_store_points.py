"""The declined rows indexed once (learn.store.points.Points, proposals.DeclinedRows) answer
exactly as the pairwise test did: the same row for every point, on random data where
sessions, quotes cut from one another, canonical keys and keys collide often."""

from __future__ import annotations

import random
from collections.abc import Iterable

from learn.records.proposal import Proposal, Quote, Verdict
from learn.store.points import Points, same_point
from learn.store.proposals import DeclinedRows, ProposalState, declined_at_threshold
from learn.textfold import fold

WORDS = ["use", "bun", "never", "npm", "edit", "generated", "files", "run", "tests", "before",
         "commit", "keep", "pull", "requests", "small", "please", "always", "the", "a"]


def reference_same_point(new: Proposal, old: Proposal) -> bool:
    """same_point as it was before the index (2026-12-05), kept as the oracle."""
    mine = new.verdict.canonical_key if new.verdict else None
    theirs = old.verdict.canonical_key if old.verdict else None
    if mine and mine == theirs:
        return True
    said = {(q.session_id, fold(q.text)) for q in new.quotes if q.text.strip()}
    if not said:
        return False
    before: dict[str, list[str]] = {}
    for q in old.quotes:
        before.setdefault(q.session_id, []).append(fold(q.text))

    def same(a: str, b: str) -> bool:
        if a == b:
            return True
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        return len(short) >= 20 and short in long

    shared = sum(1 for sid, text in said if any(same(text, t) for t in before.get(sid, ())))
    return 2 * shared > len(said)


def reference_declined_like(point: Proposal, rows: Iterable[ProposalState]) -> ProposalState | None:
    found = [r for r in rows if r.state == "declined" and r.key != point.key
             and reference_same_point(point, r.proposal)]
    return max(found, key=declined_at_threshold, default=None)


def random_proposal(rng: random.Random, label: str, pool: list[tuple[str, str]]) -> Proposal:
    quotes = []
    for _ in range(rng.randrange(0, 6)):
        sid, text = rng.choice(pool)
        roll = rng.random()
        if roll < 0.3:  # a cut of a pooled quote (a model quotes a part of the turn)
            start = rng.randrange(0, max(1, len(text) - 5))
            text = text[start: start + rng.randrange(3, 40)]
        elif roll < 0.4:
            text = "  " + text.upper() + " \n"  # folds to the same
        elif roll < 0.45:
            text = "   "
        quotes.append(Quote(sid, text, None, "/p"))
    canonical = rng.choice([None, None, "c1", "c2", ""])
    verdict = None if rng.random() < 0.3 else Verdict(True, "x", "c", "project", 0.9,
                                                      canonical_key=canonical)
    n = len({q.session_id for q in quotes})
    return Proposal("directive", label, "t", n, len(quotes), None, tuple(quotes), verdict=verdict)


def random_row(rng: random.Random, i: int, pool: list[tuple[str, str]]) -> ProposalState:
    label = f"l{rng.randrange(8)}"
    return ProposalState(
        id=i, project="/p", key=f"directive:{label}", canonical_key=None, kind="directive",
        accepted=True, state=rng.choice(["declined", "declined", "pending", "applied"]),
        sessions=rng.randrange(1, 6), proposal=random_proposal(rng, label, pool),
        first_proposed_at="", last_proposed_at="", decided_at=None,
        decided_sessions=rng.choice([None, 1, 2, 3, 5]), superseded_by=None)


def test_the_index_finds_the_row_the_pairwise_test_found() -> None:
    rng = random.Random(20261205)
    for _ in range(300):
        pool = [(f"s{rng.randrange(6)}", " ".join(rng.choice(WORDS) for _ in range(
            rng.randrange(1, 9)))) for _ in range(8)]
        rows = [random_row(rng, i, pool) for i in range(rng.randrange(0, 12))]
        index = DeclinedRows(rows)
        for _ in range(10):
            p = random_proposal(rng, f"l{rng.randrange(8)}", pool)
            assert index.like(p) is reference_declined_like(p, rows)
            for r in rows:
                assert same_point(p, r.proposal) is reference_same_point(p, r.proposal)


def test_the_index_gives_every_holder_in_the_order_added() -> None:
    said = "don't mock the database, use the sqlite fixture"
    a = Proposal("directive", "a", "t", 1, 1, None, (Quote("s1", said, None, "/p"),))
    b = Proposal("directive", "b", "t", 1, 1, None, (Quote("s1", said + " please", None, "/p"),))
    other = Proposal("directive", "c", "t", 1, 1, None, (Quote("s2", said, None, "/p"),))
    points = Points([(b, "b"), (other, "c"), (a, "a")])
    assert points.holding(a) == ["b", "a"]
    assert len(points) == 3
