"""A stored result's rules in place and learn's checks are the asked project's wherever the
stored proposals are loaded (learn.report.runs.load_proposals), not only where a command
remembers to scope them.

A run over every project stores every project's outcomes and checks, and
`RunResult.to_json` carries `extra` whole: `learn digest --project infra` listed shop-api's
rules until digest, outcomes, report, apply and decline each called
learn.report.outcomes.for_project (tests/test_fix_digest_project_scope.py). A command
that loads proposals without it (as `learn apply` and its recovery did) showed them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from learn.records.proposal import Funnel, RunResult, RunUsage
from learn.report import runs

RULES = [{"key": "directive:a", "label": "a", "project": "/w/shop"},
         {"key": "directive:c", "label": "c", "project": "/w/shop-web"},
         {"key": "directive:d", "label": "d", "project": None}]
CHECKS = [{"key": "directive:x", "project": "/w/shop-web"},
          {"key": "directive:y", "project": "/w/shop"}]


@pytest.fixture
def every_projects_run() -> Iterator[list[tuple[str | None, bool]]]:
    """A loader whose newest run read every project; the calls it was asked."""
    asked: list[tuple[str | None, bool]] = []

    def loader(since: datetime | None, project: str | None, every_state: bool) -> RunResult:
        asked.append((project, every_state))
        # As a loader that does not say which project it read for.
        return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                         extra={"outcomes": RULES, "checks": CHECKS})

    runs.set_proposal_loader(loader)
    try:
        yield asked
    finally:
        runs.set_proposal_loader(None)


def test_loaded_proposals_carry_only_the_asked_projects_rules_and_checks(
        every_projects_run: list[tuple[str | None, bool]]) -> None:
    for every_state in (False, True):
        got = runs.load_proposals(None, "/w/shop", every_state=every_state)
        assert got is not None
        assert [o["label"] for o in got.extra["outcomes"]] == ["a", "d"]
        assert [c["key"] for c in got.extra["checks"]] == ["directive:y"]
        # What to_json writes (the digest's JSON, the report's data) is scoped too.
        shown = got.to_json()
        assert "/w/shop-web" not in repr(shown), shown
    assert every_projects_run == [("/w/shop", False), ("/w/shop", True)]


def test_every_project_asked_shows_every_projects_rules(
        every_projects_run: list[tuple[str | None, bool]]) -> None:
    got = runs.load_proposals(None, None)
    assert got is not None
    assert [o["label"] for o in got.extra["outcomes"]] == ["a", "c", "d"]
    assert [c["key"] for c in got.extra["checks"]] == ["directive:x", "directive:y"]


def test_nothing_stored_is_still_none() -> None:
    runs.set_proposal_loader(lambda since, project, every_state: None)
    try:
        assert runs.load_proposals(None, "/w/shop") is None
    finally:
        runs.set_proposal_loader(None)
