"""What `learn digest`, `apply` and `report` read back (pending rows) comes in the order
the run showed it: newest run first, each run's proposals most said first.

The fixtures are written for these tests (not copied from any transcript).
"""

from __future__ import annotations

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage
from learn.report.digest import render_digest_markdown
from learn.store import open_store
from learn.store.runs import load_proposals

PROJECT = "/home/dev/shop"


def _point(label: str, sessions: int, kind: str = "directive") -> Proposal:
    quotes = tuple(Quote(f"{label}-s{i}", f"{label.replace('-', ' ')} please, as before {i}",
                         f"2026-11-1{i % 10}T10:00:00+00:00", PROJECT) for i in range(sessions))
    return Proposal(kind, label, quotes[0].text, sessions, sessions, quotes[0].at, quotes)  # type: ignore[arg-type]


def _labels(result: RunResult | None) -> list[str]:
    assert result is not None
    return [p.label for p in result.proposals]


def test_a_later_run_ranks_its_refreshed_and_new_rows_by_count() -> None:
    # `cite-the-logs` was stored by the first run (lowest id) and refreshed in place by
    # the second; `id DESC` put it last, under two rows said in fewer sessions.
    with open_store() as store:
        store.proposals.record([_point("cite-the-logs", 3)], run_id=None,
                               fallback_project=PROJECT, at="2026-12-01T09:00:00+00:00")
        store.proposals.record([_point("investigate-first", 6), _point("cite-the-logs", 4),
                                _point("read-official-docs", 2)], run_id=None,
                               fallback_project=PROJECT, at="2026-12-02T09:00:00+00:00")
    assert _labels(load_proposals(None, PROJECT)) == [
        "investigate-first", "cite-the-logs", "read-official-docs"]


def test_the_newest_run_comes_first_and_each_run_keeps_its_rank() -> None:
    with open_store() as store:
        store.proposals.record([_point("old-seven", 7), _point("old-two", 2)], run_id=None,
                               fallback_project=PROJECT, at="2026-12-01T09:00:00+00:00")
        store.proposals.record([_point("new-three", 3), _point("new-two", 2)], run_id=None,
                               fallback_project=PROJECT, at="2026-12-02T09:00:00+00:00")
        pending = [r.proposal.label for r in store.proposals.pending(PROJECT)]
    assert pending == ["new-three", "new-two", "old-seven", "old-two"]
    assert _labels(load_proposals(None, PROJECT)) == pending


def test_the_digest_shows_a_stored_run_as_the_run_printed_it() -> None:
    # The run appends an escalation after its counted points; ranked by count alone it
    # would open the section.
    from learn.reduce.stored import record_run

    printed = (_point("investigate-first", 3), _point("cite-the-logs", 2),
               _point("no-force-push-enforced", 5))
    run = RunResult(proposals=printed, funnel=Funnel(), usage=RunUsage(), offline=True,
                    projects=(PROJECT,))
    with open_store() as store:
        record_run(store, run, project=PROJECT)
    shown = load_proposals(None, PROJECT)
    assert _labels(shown) == [p.label for p in printed]
    assert shown is not None

    def order(markdown: str) -> list[str]:
        return sorted((p.label for p in printed), key=lambda label: markdown.index(label))

    assert order(render_digest_markdown(shown)) == order(render_digest_markdown(run))
