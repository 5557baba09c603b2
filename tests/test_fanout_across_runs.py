"""A message pasted into sessions side by side is one saying across runs too.

Within a run, the same words typed in another session within FANOUT_SECONDS of their
first saying are a copy (learn.reduce.counting.one_saying). A run keeps what earlier
runs counted in sessions it did not read (learn.store.proposals.widest), so a fan-out
whose first session an earlier run counted and whose copy only this run read (the
copy's session went on for days, or was written after that run, and the newer window
no longer holds the first) was counted in both: said in 5 sessions where the person
said it in 4. The fan-out rule now runs over what earlier runs counted and this run's
sessions together.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.pipeline import RunOptions, run_pipeline
from learn.records.candidate import CandidateKind, MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote
from learn.reduce.counting import FANOUT_SECONDS, earlier_sayings, without_copies
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


def _two_runs(copy_after: float) -> tuple[int, set[str], dict[str, str]]:
    """Run 1 reads a (REASON typed at T0) and c (said again two days later). Written
    after it: the copy b, typed `copy_after` seconds after a's and worked in for a week,
    and d and e, said again on days 4 and 5. Run 2's window holds b, d and e only."""
    home = Path.home()
    ids = {"a": _denying(home, "a", T0), "c": _denying(home, "c", T0 + timedelta(days=2))}
    _run(T0 - timedelta(days=1))
    assert _stored() == (2, {ids["a"], ids["c"]})
    ids["b"] = _denying(home, "b", T0 + timedelta(seconds=copy_after),
                        busy_until=T0 + timedelta(days=7))
    ids["d"] = _denying(home, "d", T0 + timedelta(days=4))
    ids["e"] = _denying(home, "e", T0 + timedelta(days=5))
    _run(T0 + timedelta(days=3))
    sessions, quoted = _stored()
    return sessions, quoted, ids


def test_a_copy_read_by_a_later_run_is_the_saying_an_earlier_run_counted() -> None:
    sessions, quoted, ids = _two_runs(24)
    # a (with its copy in b), c, d and e: four sayings, b not among them (it was 5).
    assert sessions == 4
    assert quoted == {ids["a"], ids["c"], ids["d"], ids["e"]}


def test_the_same_words_over_a_minute_later_in_a_later_run_are_another_saying() -> None:
    sessions, quoted, ids = _two_runs(FANOUT_SECONDS + 30)
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
