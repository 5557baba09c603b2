"""A declined point stays declined under a new name; an undone apply is not "accepted".

M1: `learn run --offline`, `learn decline no-mocking-database` (said in 2 sessions, so
not again before 4), then a model run: the same quotes came back as the new pending
proposal `no-mocked-db`, said in 2 sessions, and `learn apply` would write it. The
decline was about the point, not its label (an offline label, then a model's).

L6: `learn apply --yes` then `learn apply --undo --yes`: `learn stats` said "1
accepted" while the proposal was pending again.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.stored import StoreShownState
from learn.reduce.suppress import is_held_back
from learn.report.stats import summarize
from learn.store import open_store

PROJECT = "/home/dev/shop"

# What the person typed, in two sessions.
SAID = {"s1": "don't mock the database, use the sqlite test fixture instead please",
        "s2": "no mocking the database. real sqlite fixture, like I said"}


def quote(session: str, text: str, day: int = 1) -> Quote:
    return Quote(session, text, f"2026-12-0{day}T10:00:00+00:00", PROJECT)


def offline_point() -> Proposal:
    """As `learn run --offline` names it: no verdict, the whole turns quoted."""
    quotes = tuple(quote(s, t, i + 1) for i, (s, t) in enumerate(SAID.items()))
    return Proposal("directive", "no-mocking-database", SAID["s1"], 2, 2, quotes[-1].at, quotes)


def model_point(*extra: Quote, canonical: str = "tests.no-mocked-db") -> Proposal:
    """As a model run names the same point: another label, a verdict, and the quotes cut
    to what the model picked out of the same turns (plus `extra` sessions)."""
    quotes = (quote("s1", "don't mock the database, use the sqlite test fixture", 1),
              quote("s2", "no mocking the database. real sqlite fixture", 2), *extra)
    sessions = len({q.session_id for q in quotes})
    return Proposal("directive", "no-mocked-db", quotes[0].text, sessions, len(quotes),
                    quotes[-1].at, quotes,
                    verdict=Verdict(True, "Use the sqlite fixture; never mock the database.",
                                    "testing", "project", 0.9, canonical_key=canonical))


def other_point() -> Proposal:
    """Another point said in the same sessions, in other words."""
    quotes = (quote("s1", "use pnpm here, never npm, for the frontend", 1),
              quote("s2", "pnpm please, not npm", 2))
    return Proposal("directive", "use-pnpm", quotes[0].text, 2, 2, quotes[-1].at, quotes,
                    verdict=Verdict(True, "Use pnpm, never npm.", "tooling", "project", 0.9,
                                    canonical_key="tooling.pnpm"))


def declined_offline() -> None:
    """The repro's first two steps: an offline run's proposal, declined at 2 sessions."""
    with open_store() as store:
        store.proposals.record([offline_point()], run_id=None, fallback_project=PROJECT)
        store.proposals.decide("directive:no-mocking-database", "declined", PROJECT)


def state_of(key: str) -> tuple[str, int | None]:
    with open_store() as store:
        (row,) = store.proposals.rows(PROJECT, key=key)
        return row.state, row.decided_sessions


def test_a_point_declined_offline_is_declined_under_the_model_s_name() -> None:
    declined_offline()
    with open_store() as store:
        store.proposals.record([model_point()], run_id=None, fallback_project=PROJECT)
        assert store.proposals.pending(PROJECT) == []  # nothing for `learn apply` to write
        # The promise `learn decline` made: not before twice the 2 sessions.
        assert store.proposals.reoffer_threshold("directive:no-mocked-db", PROJECT) == 4
    assert state_of("directive:no-mocked-db") == ("declined", 2)


def test_the_new_name_is_offered_once_said_in_twice_the_sessions() -> None:
    declined_offline()
    with open_store() as store:
        store.proposals.record([model_point(quote("s3", "mocking the db again, no", 3))],
                               run_id=None, fallback_project=PROJECT)
    assert state_of("directive:no-mocked-db")[0] == "declined"  # 3 sessions: not yet
    more = (quote("s3", "mocking the db again, no", 3), quote("s4", "stop mocking the db", 4))
    with open_store() as store:
        store.proposals.record([model_point(*more)], run_id=None, fallback_project=PROJECT)
        assert [r.key for r in store.proposals.pending(PROJECT)] == ["directive:no-mocked-db"]


def test_a_run_holds_the_renamed_point_back_before_showing_it() -> None:
    """Suppression, before the judge: the run does not show it as new either."""
    declined_offline()
    with open_store() as store:
        state = StoreShownState(store, PROJECT)
        unjudged = Proposal("directive", "no-mocked-db", "x", 2, 2, None, model_point().quotes)
        assert is_held_back(unjudged, state)
        assert not is_held_back(other_point(), state)


def test_the_same_canonical_key_in_other_words_is_the_same_point() -> None:
    with open_store() as store:
        store.proposals.record([model_point()], run_id=None, fallback_project=PROJECT)
        store.proposals.decide("directive:no-mocked-db", "declined", PROJECT)
        again = (quote("s5", "please don't stub out the db in tests", 5),
                 quote("s6", "the db is never mocked here", 6))
        renamed = Proposal("directive", "never-mock-db", again[0].text, 2, 2, again[1].at,
                           again, verdict=model_point().verdict)
        store.proposals.record([renamed], run_id=None, fallback_project=PROJECT)
        assert store.proposals.pending(PROJECT) == []
    assert state_of("directive:never-mock-db") == ("declined", 2)


def test_a_different_point_with_other_evidence_is_still_proposed() -> None:
    declined_offline()
    with open_store() as store:
        store.proposals.record([other_point()], run_id=None, fallback_project=PROJECT)
        assert [r.key for r in store.proposals.pending(PROJECT)] == ["directive:use-pnpm"]
        # One quote in common (a turn that made two points) is not the same point.
        shared = dataclasses_replace_quotes(other_point(), (
            quote("s1", SAID["s1"], 1), quote("s2", "pnpm please, not npm", 2),
            quote("s3", "pnpm, again", 3)))
        store.proposals.record([shared], run_id=None, fallback_project=PROJECT)
        assert {r.key for r in store.proposals.pending(PROJECT)} == {
            "directive:use-pnpm", "directive:pnpm-only"}


def dataclasses_replace_quotes(p: Proposal, quotes: tuple[Quote, ...]) -> Proposal:
    """`p` unjudged, as `pnpm-only`, with `quotes` as its evidence."""
    return dataclasses.replace(p, label="pnpm-only", quotes=quotes,
                               sessions=len({q.session_id for q in quotes}), verdict=None)


# L6 ---------------------------------------------------------------------------------

MINE = "# shop\n\n- Keep PRs small.\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A project with its own CLAUDE.md and one pending proposal."""
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(MINE)
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                   verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    with open_store() as store:
        # A run on record: `learn stats` prints the decisions line only after one.
        rid = store.runs.start_run({}, started_at="2026-03-22T00:00:00+00:00")
        store.runs.finish_run(rid, usage={"model_calls": 0}, result={"proposals": []},
                              finished_at="2026-03-22T00:01:00+00:00")
        store.proposals.record([bun], run_id=rid, fallback_project=str(project))
    return project


def test_stats_does_not_count_an_undone_apply_as_accepted(shop: Path) -> None:
    applied = run("apply", "--yes", "--only", "directive:use-bun", "--project", str(shop))
    assert applied.exit_code == 0, applied.output
    stats = json.loads(run("stats", "--json").output)
    assert stats["decisions"]["accepted"] == 1 and stats.get("undone", 0) == 0

    undone = run("apply", "--undo", "--yes")
    assert undone.exit_code == 0, undone.output
    assert (shop / "CLAUDE.md").read_text() == MINE
    with open_store() as store:  # what undo does: pending again
        assert [r.key for r in store.proposals.pending(str(shop))] == ["directive:use-bun"]
    stats = json.loads(run("stats", "--json").output)
    assert stats["decisions"] == {"accepted": 0, "edited": 0, "dismissed": 0}
    assert stats["decisions_by_kind"] == {}
    assert stats["undone"] == 1
    assert "decisions: 0 applied, 0 edited, 0 declined, 1 undone" in run("stats").output

    again = run("apply", "--yes", "--only", "directive:use-bun", "--project", str(shop))
    assert again.exit_code == 0, again.output
    stats = json.loads(run("stats", "--json").output)  # applied again: accepted again
    assert stats["decisions"]["accepted"] == 1 and stats["undone"] == 0


def test_summarize_trusts_a_decision_with_no_proposal_rows() -> None:
    """A decision from before the proposal book has nothing to contradict it."""
    decisions = [{"key": "directive:a", "decision": "accepted"},
                 {"key": "directive:b", "decision": "accepted"},
                 {"key": "directive:c", "decision": "edited"}]
    s = summarize([], [], decisions, {"directive:b": {"pending"}, "directive:c": {"edited"}})
    assert dict(s.decisions) == {"accepted": 1, "edited": 1, "dismissed": 0}
    assert s.undone == 1
