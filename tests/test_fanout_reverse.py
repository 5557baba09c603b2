"""A fan-out's copy that an earlier run counted is not added to the saying a later run reads.

The other order of tests/test_fanout_across_runs.py: run 1 read only the copy (session b,
typed 24 s after a, written before a's transcript reached the disk), run 2 reads only the
original (a, worked in for a week) and not b, which fell out of its window. The store
keeps what earlier runs counted in sessions a run did not read
(learn.store.proposals.widest), so b's stored quote was added to run 2's count of a: one
message pasted into two sessions side by side counted as said in two. The copies are
now found over the stored sayings and the run's together (learn.reduce.counting.
one_saying) and left out of what the store keeps.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.pipeline import RunOptions, run_pipeline
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote
from learn.reduce.counting import FANOUT_SECONDS, copies_of_this_run, earlier_sayings
from learn.store import open_store

REASON = "leave the generated client alone, it is rebuilt from the schema"
T0 = datetime(2026, 10, 12, 9, 0, tzinfo=UTC)


def _denying(name: str, start: datetime, *, busy_until: datetime | None = None) -> str:
    """A session whose person turns down an edit of the generated client with REASON;
    with `busy_until`, it goes on with other work until then (its last activity)."""
    home = Path.home()
    project = home / "code" / "billing"
    project.mkdir(parents=True, exist_ok=True)
    s = ClaudeSession(session_id(f"reverse-{name}"), str(project), start)
    s.user("add the invoice totals endpoint")
    s.denied_tool("Edit", {"file_path": f"{project}/client/generated.ts"}, REASON)
    if busy_until is not None:
        s.user("now the release notes", seconds=int((busy_until - s.last_time).total_seconds()))
    s.write(home / ".claude")
    return s.session_id


def _run(since: datetime) -> None:
    run_pipeline(RunOptions(all_projects=True, offline=True, show_all=True, since=since),
                 load_config())


def _stored() -> tuple[int, set[str]]:
    """The stored proposal of REASON: its distinct sessions and the sessions quoted."""
    with open_store() as store:
        [row] = [r for r in store.proposals.rows() if r.proposal.text == REASON]
    return row.sessions, {q.session_id for q in row.proposal.quotes}


def _two_runs(original_before: float) -> tuple[int, set[str], dict[str, str]]:
    """Run 1 reads b (REASON typed at T0) and c (said again two days later). Written
    after it: the original a, typed `original_before` seconds before b and worked in for
    a week, and d and e, said again on days 4 and 5. Run 2's window holds a, d and e."""
    ids = {"b": _denying("b", T0), "c": _denying("c", T0 + timedelta(days=2))}
    _run(T0 - timedelta(days=1))
    assert _stored() == (2, {ids["b"], ids["c"]})
    ids["a"] = _denying("a", T0 - timedelta(seconds=original_before),
                        busy_until=T0 + timedelta(days=7))
    ids["d"] = _denying("d", T0 + timedelta(days=4))
    ids["e"] = _denying("e", T0 + timedelta(days=5))
    _run(T0 + timedelta(days=3))
    sessions, quoted = _stored()
    return sessions, quoted, ids


def test_an_earlier_runs_copy_of_what_a_later_run_read_is_not_counted_again() -> None:
    sessions, quoted, ids = _two_runs(24)
    # a (with its copy in b), c, d and e: four sayings, b not among them (it was 5).
    assert sessions == 4
    assert quoted == {ids["a"], ids["c"], ids["d"], ids["e"]}


def test_the_same_words_over_a_minute_apart_are_still_two_sayings() -> None:
    sessions, quoted, ids = _two_runs(FANOUT_SECONDS + 30)
    assert sessions == 5
    assert quoted == set(ids.values())


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def _copies(read: dict[str, float], stored: dict[str, float]) -> set[tuple[str, str]]:
    """The stored quotes (session, text) that copy a saying of this run, when the store's
    point quotes `stored` and the run read `read` (session -> seconds after T0)."""
    quotes = tuple(Quote(sid, REASON, _at(t), "/home/dev/billing") for sid, t in stored.items())
    point = Proposal("directive", "generated-client", REASON, len(quotes), len(quotes),
                     None, quotes)
    sessions = [SessionCandidates(sid, "claude", "/home/dev/billing", _at(t), (
        MinedCandidate(kind="directive", text=REASON, at=_at(t)),)) for sid, t in read.items()]
    return copies_of_this_run(sessions, earlier_sayings([point], set(read)))


def test_only_a_stored_quote_after_the_runs_own_saying_is_its_copy() -> None:
    assert _copies({"s-a": 0}, {"s-b": 24}) == {("s-b", REASON)}
    # The stored saying came first: it is the saying, and the run's the copy.
    assert _copies({"s-b": 24}, {"s-a": 0}) == set()
    # A minute and more apart, or a stored quote of a session this run read: no copy.
    assert _copies({"s-a": 0}, {"s-b": FANOUT_SECONDS + 1}) == set()
    assert _copies({"s-a": 0, "s-b": 3600}, {"s-b": 24}) == set()
