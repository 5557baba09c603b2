"""Did the rule work: one message pasted into sessions side by side is said once since.

Proposals count a fan-out (the same message pasted into two or three sessions within a
minute, to compare the agents' answers) as one saying (learn.reduce.counting.one_saying,
tests/test_f2_fanout_counting.py); "Did the rules work?" still counted each copy, so a
rule's point pasted into two Codex sessions 24 s apart after the rule was applied was
"said again in 2 sessions since". It is counted by the same function now
(learn.reduce.outcomes.said_of), in the session it was first typed in.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.counting import FANOUT_SECONDS, occurrences
from learn.reduce.outcomes import InPlace, RuleOutcome, rule_outcomes, said_of

APPLIED = "2026-03-10T00:00:00+00:00"
QUOTE = "read the log file and give the cause only with proof from it"
LABEL = "answer-from-log-evidence"
PROJECT = "/home/dev/app"
T0 = datetime(2026, 3, 12, 6, 39, 50, tzinfo=UTC)


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def _session(sid: str, seconds: float) -> SessionCandidates:
    return SessionCandidates(
        session_id=sid, provider="codex", project=PROJECT, last_activity=_at(seconds),
        candidates=(MinedCandidate(kind="directive", text=QUOTE, at=_at(seconds)),),
    )


# Sessions since the rule that did not say it: enough for a verdict either way.
QUIET = {f"quiet-{i}": _at(3600 * (i + 1)) for i in range(5)}


def _outcome(sessions: list[SessionCandidates]) -> RuleOutcome:
    starts = {**QUIET, **{s.session_id: s.last_activity for s in sessions}}
    said = said_of(occurrences(sessions, [LABEL] * len(sessions)), starts)
    rule = InPlace(f"directive:{LABEL}", "Give the cause from the log, with proof.",
                   f"{PROJECT}/AGENTS.md", APPLIED, project=PROJECT)
    [o] = rule_outcomes([rule], said, starts)
    return o


def test_a_fan_out_since_the_rule_is_said_in_one_session_since() -> None:
    o = _outcome([_session("s-a", 0), _session("s-b", 24)])
    assert (o.sessions_since, o.said_since, o.verdict) == (7, 1, "ignored")
    assert [q.session_id for q in o.quotes_since] == ["s-a"]
    assert o.per_day == (("2026-03-12", 1),)


def test_a_three_way_fan_out_is_one_saying_and_the_window_runs_from_the_first_copy() -> None:
    o = _outcome([_session("s-c", FANOUT_SECONDS), _session("s-a", 0), _session("s-b", 40)])
    assert o.said_since == 1
    assert [q.session_id for q in o.quotes_since] == ["s-a"]


def test_the_same_words_minutes_later_in_another_session_are_two_sayings() -> None:
    o = _outcome([_session("s-a", 0), _session("s-b", 5 * 60)])
    assert o.said_since == 2
    assert _outcome([_session("s-a", 0), _session("s-b", FANOUT_SECONDS + 1)]).said_since == 2


def test_the_run_measures_its_rules_without_the_copies(tmp_path: Path) -> None:
    """The pipeline's own measure (learn.pipeline.judge._outcomes), from a rule applied
    in learn's store and the sessions a run read."""
    from learn.pipeline.judge import _outcomes
    from learn.store import open_store
    from learn.transcripts.view.model import Session

    app = tmp_path / "app"
    app.mkdir()
    rule = "Give the cause from the log, with proof."
    (app / "AGENTS.md").write_text(f"# app\n\n- {rule}\n")
    where = str(app)
    p = Proposal("directive", LABEL, QUOTE, 2, 2, "2026-03-01T00:00:00+00:00",
                 (Quote("old-1", QUOTE, "2026-03-01T00:00:00+00:00", where),
                  Quote("old-2", QUOTE, "2026-03-02T00:00:00+00:00", where)),
                 verdict=Verdict(True, rule, "debugging", "project", 1.0))
    cands = [dataclasses.replace(s, project=where) for s in (_session("s-a", 0),
                                                             _session("s-b", 24))]
    sessions = [Session(id=c.session_id, provider="codex", path=None, project=where,
                        started_at=datetime.fromisoformat(c.last_activity or ""),
                        last_activity=datetime.fromisoformat(c.last_activity or ""),
                        timeline=(), human_turns=(), tool_calls=(), failures=(), denials=(),
                        interrupts=(), turns=2)
                for c in cands]
    with open_store(tmp_path / "learn.db") as store:
        store.proposals.record_applied(project=where, proposal=p, decision="accepted",
                                       form="rule", rule_text=rule,
                                       target_file=str(app / "AGENTS.md"), backup_file=None,
                                       at=APPLIED)
        outcomes, _ = _outcomes(store, where, sessions, cands, [LABEL, LABEL], [p], None,
                                {c.session_id: where for c in cands})
    [o] = outcomes
    assert (o["sessions_since"], o["said_since"]) == (2, 1)
    assert [q["session_id"] for q in o["quotes_since"]] == ["s-a"]
