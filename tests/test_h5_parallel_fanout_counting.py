"""One message sent to several agents at once is said once, not once per session.

Found running learn on real Codex sessions: the person opened two or three Codex
sessions side by side and pasted the same prompt into each within seconds (to
compare the answers). The prompt's directive ("answer from the log with certainty")
was counted in 2 distinct sessions and proposed as "said in 2 of your last 12
sessions", and an investigate-first habit said on 4 occasions was shown as "said in
7 sessions". The README's promise is that counts are of distinct times the person
said it ("an afternoon of repeating yourself is one claim, not five"); a fan-out of
one typed message is one saying, like a resumed session's copied turns.

Module: learn/reduce/counting.py (`build_proposal` counts distinct session ids; the
quotes' `at` times are there and equal to the second).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.reduce.counting import CountConfig, count_points, occurrences, over_threshold

QUOTE = "read the log file and give the cause only with proof from it"


def _session(sid: str, at: str) -> SessionCandidates:
    return SessionCandidates(
        session_id=sid, provider="codex", project="/home/dev/app", last_activity=at,
        candidates=(MinedCandidate(kind="directive", text=QUOTE, at=at),),
    )


def _proposed(sessions: list[SessionCandidates]) -> list[int]:
    occs = occurrences(sessions, ["answer-from-log-evidence"] * len(sessions))
    return [p.sessions for p in over_threshold(count_points(occs), CountConfig())]


def test_same_message_sent_to_parallel_sessions_counts_once() -> None:
    fanned_out = [_session("s-a", "2026-03-02T06:39:50.830Z"),
                  _session("s-b", "2026-03-02T06:40:14.853Z")]
    assert _proposed(fanned_out) == []


def test_same_words_on_two_days_are_two_sessions() -> None:
    repeated = [_session("s-a", "2026-03-02T06:39:50.830Z"),
                _session("s-b", "2026-03-05T10:12:01.000Z")]
    assert _proposed(repeated) == [2]
