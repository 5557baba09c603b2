"""A rule about the workflow is loaded always, whatever the agent was editing when it was said.

"run ruff format before committing", said in two sessions that each happened to edit one
file under `app/`, was proposed as `.claude/rules/<name>.md` with `paths: app/**`: Claude
Code loads it only when a file under `app/` is read, so a commit of anything else never
saw it (learn.reduce.pathscope). A rule about the code said only there keeps its scope.
"""

from __future__ import annotations

import dataclasses

import pytest
from _redteam_apply import world
from test_apply_attacks import Point, World, attack

from evals.builder import ClaudeSession
from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.pathscope import scope_to_paths

__all__ = ["world"]  # the fixture (tests/_redteam_apply.py)

FILES = {"a": ["/p/app/routes.py"], "b": ["/p/app/models.py"]}


def _proposal(said: str, rule: str) -> Proposal:
    quotes = tuple(Quote(s, said, f"2026-03-0{i + 1}T10:00:00+00:00", "/p")
                   for i, s in enumerate(("a", "b")))
    return Proposal("directive", "x", said, 2, 2, None, quotes,
                    verdict=Verdict(True, rule, "workflow", "project", 0.9))


@pytest.mark.parametrize(("said", "rule"), [
    ("run ruff format before you commit, the CI rejects it otherwise",
     "Run `ruff format .` before every commit."),
    ("never push to main yourself, I do that", "Never push to main."),
    ("open a pull request instead, don't merge it yourself", "Open a PR; never merge it."),
    ("make a new branch for every task please", "Work on a new branch for each task."),
    ("we use pnpm here, never reach for npm", "Use pnpm, not npm."),
    ("run the tests before you tell me it is done", "Run the test suite before saying done."),
    ("lint everything before you hand it back", "Lint before handing work back."),
])
def test_a_workflow_rule_said_while_editing_one_folder_is_not_scoped(said: str, rule: str) -> None:
    [p] = scope_to_paths([_proposal(said, rule)], FILES)
    assert p.surface is None and p.surface_rules == ()


@pytest.mark.parametrize(("said", "rule"), [
    ("in the api handlers return errors as values instead of raising",
     "In API handlers, return errors as values."),
    ("never write raw SQL, use the query builder", "Never write raw SQL; use the query builder."),
    ("for the migrations, never edit one that already ran", "Never edit an applied migration."),
    ("in tests use the sqlite fixture, don't mock the db", "Use the sqlite fixture in tests."),
])
def test_a_rule_about_the_code_there_keeps_its_scope(said: str, rule: str) -> None:
    [p] = scope_to_paths([_proposal(said, rule)], FILES)
    assert p.surface == "path-rule" and p.surface_rules == ("app/**",)


FORMAT = Point("run ruff format before you commit, the CI rejects unformatted code",
               "format-before-commit", "Run `ruff format .` before every commit.")
ERRORS = Point("in the app handlers return errors as values instead of raising",
               "errors-as-values", "In the app's handlers, return errors as values.")


def test_apply_writes_the_commit_rule_where_every_session_loads_it(world: World) -> None:
    notes = world.project("notes")

    def edit_app_file(s: ClaudeSession) -> None:
        s.tool("Edit", {"file_path": f"{notes}/app/routes.py", "old_string": "a",
                        "new_string": "b"}, "ok")

    world.points = [FORMAT, ERRORS]
    world.sessions(str(notes), FORMAT.said, ERRORS.said, calls=edit_app_file)
    out = attack(world, notes, [notes])
    assert out.apply.returncode == 0, out.apply.stderr
    assert "Run `ruff format .` before every commit." in (notes / "CLAUDE.md").read_text()
    rules = notes / ".claude" / "rules"
    assert [f.name for f in rules.iterdir()] == ["errors-as-values.md"]
    scoped = (rules / "errors-as-values.md").read_text()
    assert scoped.startswith('---\npaths:\n  - "app/**"\n---') and "ruff" not in scoped


def test_a_workflow_rule_an_earlier_learn_stored_scoped_is_loaded_always() -> None:
    from learn.reduce.pathscope import scoped_safely

    def stored(said: str, rule: str) -> Proposal:
        return dataclasses.replace(_proposal(said, rule), surface="path-rule",
                                   surface_rules=("app/**",))

    workflow = stored("run ruff format before you commit", "Run `ruff format .` before commits.")
    assert scoped_safely(workflow).surface is None
    code = stored("handlers return errors as values here", "Return errors as values.")
    assert scoped_safely(code).surface == "path-rule"
