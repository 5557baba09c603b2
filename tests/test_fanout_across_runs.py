"""A message pasted into sessions side by side is one saying across runs too.

Within a run, the same words typed in another session within FANOUT_SECONDS of their
first saying are a copy (learn.reduce.counting.one_saying). A run keeps what earlier
runs counted in sessions it did not read (learn.store.proposals.widest), so a fan-out
whose first session an earlier run counted and whose copy only this run read (the
copy's session went on for days, or was written after that run, and the newer window
no longer holds the first) was counted in both: said in 5 sessions where the person
said it in 4. The fan-out rule now runs over what earlier runs counted and this run's
sessions together.

The other order too: run 1 read only the copy (b, typed 24 s after a, written before a's
transcript reached the disk), run 2 only the original (a, worked in for a week) and not
b, which fell out of its window: b's stored quote was added to run 2's count of a. The
copies are found over the stored sayings and the run's together and left out of what
the store keeps (learn.reduce.counting.copies_of_this_run).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.pipeline import RunOptions, run_pipeline
from learn.records.candidate import CandidateKind, MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote
from learn.reduce.counting import (
    FANOUT_SECONDS,
    copies_of_this_run,
    earlier_sayings,
    without_copies,
)
from learn.store import open_store

REASON = "keep the lockfile as it is, never regenerate it"
T0 = datetime(2026, 10, 5, 8, 0, tzinfo=UTC)


def _denying(home: Path, name: str, start: datetime, *, busy_until: datetime | None = None) -> str:
    """A session whose person turns down an edit of the lockfile with REASON; with
    `busy_until`, it goes on with other work until then (its last activity)."""
    project = home / "code" / "shop"
    project.mkdir(parents=True, exist_ok=True)
    s = ClaudeSession(session_id(f"across-{name}"), str(project), start)
    s.user("bump the test runner")
    s.denied_tool("Edit", {"file_path": f"{project}/package-lock.json"}, REASON)
    if busy_until is not None:
        s.user("carry on with the changelog",
               seconds=int((busy_until - s.last_time).total_seconds()))
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


def _two_runs(first: str, late: str, late_after: float) -> tuple[int, set[str], dict[str, str]]:
    """Run 1 reads `first` (REASON typed at T0) and c (said again two days later). Written
    after it: `late`, typed `late_after` seconds after T0 (before it when negative) and
    worked in for a week, and d and e, said again on days 4 and 5. Run 2's window holds
    `late`, d and e only."""
    home = Path.home()
    ids = {first: _denying(home, first, T0), "c": _denying(home, "c", T0 + timedelta(days=2))}
    _run(T0 - timedelta(days=1))
    assert _stored() == (2, {ids[first], ids["c"]})
    ids[late] = _denying(home, late, T0 + timedelta(seconds=late_after),
                         busy_until=T0 + timedelta(days=7))
    ids["d"] = _denying(home, "d", T0 + timedelta(days=4))
    ids["e"] = _denying(home, "e", T0 + timedelta(days=5))
    _run(T0 + timedelta(days=3))
    sessions, quoted = _stored()
    return sessions, quoted, ids


# (read by run 1, read by run 2, seconds between): a, the original, then b its copy 24 s later.
ORDERS = [("a", "b", 24), ("b", "a", -24)]


@pytest.mark.parametrize(("first", "late", "late_after"), ORDERS,
                         ids=["copy-read-later", "original-read-later"])
def test_a_fanout_split_between_two_runs_is_one_saying(first: str, late: str,
                                                        late_after: float) -> None:
    sessions, quoted, ids = _two_runs(first, late, late_after)
    # a (with its copy in b), c, d and e: four sayings, b not among them (it was 5).
    assert sessions == 4
    assert quoted == {ids["a"], ids["c"], ids["d"], ids["e"]}


@pytest.mark.parametrize(("first", "late", "late_after"), ORDERS,
                         ids=["copy-read-later", "original-read-later"])
def test_the_same_words_over_a_minute_apart_in_two_runs_are_two_sayings(
        first: str, late: str, late_after: float) -> None:
    apart = (FANOUT_SECONDS + 30) * (1 if late_after > 0 else -1)
    sessions, quoted, ids = _two_runs(first, late, apart)
    assert sessions == 5
    assert quoted == set(ids.values())


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def _said(sid: str, seconds: float, *, kind: CandidateKind = "directive",
          at: str | None = "") -> SessionCandidates:
    typed = _at(seconds) if at == "" else at
    return SessionCandidates(sid, "codex", "/home/dev/shop", _at(seconds), (
        MinedCandidate(kind=kind, text=REASON, at=typed),
    ))


def _left(sessions: list[SessionCandidates], *, stored: tuple[tuple[str, float], ...] = (
        ("s-a", 0),)) -> list[str]:
    """The sessions left with a candidate when the store's point quotes `stored`
    (session, seconds after T0) and this run read `sessions`."""
    quotes = tuple(Quote(sid, REASON, _at(t), "/home/dev/shop") for sid, t in stored)
    point = Proposal("directive", "keep-lockfile", REASON, len(quotes), len(quotes),
                     None, quotes)
    earlier = earlier_sayings([point], {s.session_id for s in sessions})
    return [s.session_id for s in without_copies(sessions, earlier) if s.candidates]


def test_the_window_runs_from_the_earlier_runs_saying() -> None:
    # 50 s after a's saying is a's; 100 s after it is a new saying, as in one run.
    assert _left([_said("s-b", 50), _said("s-c", 100)]) == ["s-c"]
    # With no earlier saying, b is the first and c its copy, which counting leaves out.
    assert _left([_said("s-b", 50), _said("s-c", 100)], stored=()) == ["s-b", "s-c"]


def test_a_stored_quote_of_a_session_this_run_read_is_not_an_earlier_saying() -> None:
    # r's stored quote is what an earlier run read of it; this run reads r afresh.
    assert _left([_said("s-r", 3600), _said("s-b", 30)], stored=(("s-r", 0),)) == [
        "s-r", "s-b"]


def test_a_fix_and_an_untimed_quote_are_never_copies() -> None:
    assert _left([_said("s-f", 20, kind="fix"), _said("s-u", 20, at=None)]) == ["s-f", "s-u"]
    assert _left([_said("s-b", 20)]) == []


def _copies(read: dict[str, float], stored: dict[str, float]) -> set[tuple[str, str]]:
    """The stored quotes (session, text) that copy a saying of this run, when the store's
    point quotes `stored` and the run read `read` (session -> seconds after T0)."""
    quotes = tuple(Quote(sid, REASON, _at(t), "/home/dev/shop") for sid, t in stored.items())
    point = Proposal("directive", "keep-lockfile", REASON, len(quotes), len(quotes),
                     None, quotes)
    sessions = [SessionCandidates(sid, "claude", "/home/dev/shop", _at(t), (
        MinedCandidate(kind="directive", text=REASON, at=_at(t)),)) for sid, t in read.items()]
    return copies_of_this_run(sessions, earlier_sayings([point], set(read)))


def test_only_a_stored_quote_after_the_runs_own_saying_is_its_copy() -> None:
    assert _copies({"s-a": 0}, {"s-b": 24}) == {("s-b", REASON)}
    # The stored saying came first: it is the saying, and the run's the copy.
    assert _copies({"s-b": 24}, {"s-a": 0}) == set()
    # A minute and more apart, or a stored quote of a session this run read: no copy.
    assert _copies({"s-a": 0}, {"s-b": FANOUT_SECONDS + 1}) == set()
    assert _copies({"s-a": 0, "s-b": 3600}, {"s-b": 24}) == set()
