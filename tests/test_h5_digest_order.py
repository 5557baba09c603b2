"""`learn digest` lists one run's proposals in the order `learn run` printed them.

Found running learn on real sessions: `learn run` printed its three directives most
said first (7 sessions, 2, 2); `learn digest` right after printed the same three
reversed, the one said in 7 sessions last. The store reads pending rows
`ORDER BY last_proposed_at DESC, id DESC` (learn/store/proposals.py `rows`), and one
run's rows share `last_proposed_at` and were inserted in the run's order, so `id DESC`
reverses it (learn/store/runs.py `load_proposals` keeps that order).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from learn.records.proposal import Proposal, Quote
from learn.store import open_store
from learn.store.runs import load_proposals

PROJECT = "/home/dev/shop"


def _point(label: str, sessions: int) -> Proposal:
    quotes = tuple(Quote(f"{label}-s{i}", f"{label.replace('-', ' ')} please, as before {i}",
                         f"2026-11-1{i % 10}T10:00:00+00:00", PROJECT) for i in range(sessions))
    return Proposal("directive", label, quotes[0].text, sessions, sessions, quotes[0].at, quotes)


def test_digest_keeps_the_runs_order() -> None:
    run_order = [_point("investigate-before-fixing", 7), _point("cite-the-logs", 2),
                 _point("read-official-docs", 2)]
    with open_store() as store:
        store.proposals.record(run_order, run_id=None, fallback_project=PROJECT,
                               at="2026-12-01T09:00:00+00:00")
    shown = load_proposals(None, PROJECT)
    assert shown is not None
    assert [p.label for p in shown.proposals] == [p.label for p in run_order]
