"""A message pasted into several sessions within a minute is one saying: the window's
edges, a three-way fan-out, a fan-out said again later, a fix, a resumed session's
copy, and the digest's count against its quotes.

The fixtures are written for these tests (not copied from any transcript).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Funnel, Proposal, RunResult, RunUsage
from learn.reduce.counting import (
    FANOUT_SECONDS,
    CountConfig,
    count_points,
    occurrences,
    over_threshold,
)
from learn.report.digest import render_digest_markdown

QUOTE = "read the log file and give the cause only with proof from it"
T0 = datetime(2026, 3, 2, 6, 39, 50, 830000, tzinfo=UTC)


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _session(sid: str, seconds: float, *, text: str = QUOTE, kind: str = "directive",
             command: str | None = None) -> SessionCandidates:
    return SessionCandidates(
        session_id=sid, provider="codex", project="/home/dev/app", last_activity=_at(seconds),
        candidates=(MinedCandidate(kind=kind, text=text, at=_at(seconds), command=command),),  # type: ignore[arg-type]
    )


def _points(sessions: list[SessionCandidates]) -> list[Proposal]:
    return count_points(occurrences(sessions, ["answer-from-log-evidence"] * len(sessions)))


def _proposed(sessions: list[SessionCandidates]) -> list[int]:
    return [p.sessions for p in over_threshold(_points(sessions), CountConfig())]


def test_a_copy_just_inside_the_window_is_the_same_saying() -> None:
    assert _proposed([_session("s-a", 0), _session("s-b", FANOUT_SECONDS)]) == []


def test_the_same_words_just_outside_the_window_are_two_sayings() -> None:
    assert _proposed([_session("s-a", 0), _session("s-b", FANOUT_SECONDS + 1)]) == [2]


def test_the_same_correction_minutes_later_in_a_new_session_is_two_sayings() -> None:
    assert _proposed([_session("s-a", 0), _session("s-b", 5 * 60)]) == [2]


def test_a_three_way_fan_out_is_one_saying() -> None:
    fanned = [_session("s-a", 0), _session("s-b", 24), _session("s-c", 48)]
    (point,) = _points(fanned)
    assert (point.sessions, point.count) == (1, 1)
    assert [q.session_id for q in point.quotes] == ["s-a"]  # where it was first typed
    assert _proposed(fanned) == []


def test_a_fan_out_said_again_later_is_two_sayings_and_its_quotes_agree() -> None:
    sessions = [_session("s-c", 48), _session("s-a", 0), _session("s-b", 24),
                _session("s-d", 3 * 3600)]
    (point,) = _points(sessions)
    assert point.sessions == 2
    assert sorted(q.session_id for q in point.quotes) == ["s-a", "s-d"]
    digest = render_digest_markdown(RunResult(
        proposals=(point,), funnel=Funnel(), usage=RunUsage(sessions_seen=12, sessions_mined=12)))
    assert "said in 2 of your last 12 sessions" in digest
    assert "these words in 2 sessions" in digest


def test_the_window_runs_from_the_first_copy_not_the_last() -> None:
    # Each 50 s after the one before: the third is 100 s after the first saying.
    assert _proposed([_session("s-a", 0), _session("s-b", 50), _session("s-c", 100)]) == [2]


def test_copies_are_the_same_words_after_folding_only() -> None:
    shouted = "READ the log file  and give the cause only with proof from it"
    assert _proposed([_session("s-a", 0), _session("s-b", 24, text=shouted)]) == []
    other = "read the log file and give the cause with proof from it"
    assert _proposed([_session("s-a", 0), _session("s-b", 24, text=other)]) == [2]


def test_repeats_inside_the_first_session_stay_and_count_once() -> None:
    (point,) = _points([_session("s-a", 0), _session("s-a", 30), _session("s-b", 40)])
    assert (point.sessions, point.count) == (1, 2)


def test_a_fix_run_in_two_sessions_side_by_side_counts_in_both() -> None:
    fixes = [_session(s, t, kind="fix", text="install the deps first",
                      command="npm ci") for s, t in (("s-a", 0), ("s-b", 24))]
    assert _proposed(fixes) == [2]


def test_a_resumed_copy_that_reached_counting_counts_once_not_zero() -> None:
    # learn.pipeline.candidates drops a resumed session's copied turns; if one got
    # through (its time is the original's), the fan-out rule keeps the original.
    (point,) = _points([_session("s-resumed", 0), _session("s-first", 0)])
    assert point.sessions == 1
    assert [q.session_id for q in point.quotes] == ["s-first"]


def test_a_resume_and_a_fan_out_in_one_run(tmp_path: Path) -> None:
    """Session a is resumed as b (b's copy of the denial is a's: dropped before
    counting) and the same denial was pasted into c 24 s after a's (a fan-out: one
    saying); d says it again two days later. Said twice: once by a (or b), once by d."""
    from evals.builder import ClaudeSession, session_id
    from learn.config import load_config
    from learn.pipeline import RunOptions, run_pipeline

    home = Path.home()
    claude, project = home / ".claude", home / "code" / "app"
    project.mkdir(parents=True)
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    a = ClaudeSession(session_id("fan-a"), str(project), start)
    a.user("ship the release branch")
    a.denied_tool("Bash", {"command": "git push --force"}, "never force push to main")
    b = ClaudeSession(session_id("fan-b"), str(project), start + timedelta(hours=1))
    b.resume_from(a)
    b.user("now tag it")
    c = ClaudeSession(session_id("fan-c"), str(project), start + timedelta(seconds=24))
    c.user("ship the release branch")
    c.denied_tool("Bash", {"command": "git push -f"}, "never force push to main")
    d = ClaudeSession(session_id("fan-d"), str(project), start + timedelta(days=2))
    d.user("release again")
    d.denied_tool("Bash", {"command": "git push --force-with-lease"}, "never force push to main")
    for s in (a, b, c, d):
        s.write(claude)
    result, _ = run_pipeline(RunOptions(all_projects=True, offline=True, show_all=True),
                             load_config())
    (point,) = [p for p in result.proposals if p.text == "never force push to main"]
    assert point.sessions == 2
    said_in = {q.session_id for q in point.quotes}
    # a's turn, which b's file also holds from its first line (the same time: own_turns
    # gives it to the one whose last activity is older, learn.transcripts.view.resume
    # .oldest_first), and d's.
    assert len(said_in & {a.session_id, b.session_id}) == 1
    assert d.session_id in said_in and c.session_id not in said_in
    assert result.extra["copied_from_resumed"] >= 1
