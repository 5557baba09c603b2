"""Nothing pending is lost on an upgrade: a store from before the proposal book (0011)
keeps every run's pending proposals, a store 0011 filled from the newest run alone gets
them back (0026), and a request an older learn stored without its command's text is
shown again by the next run so its model writes it.

The upgrade audit (/tmp/audit58/upgrade, F1): a daily `learn run` mostly proposes
nothing new, so the newest run of a pre-0011 store showed nothing, the book stayed
empty, digest and apply said "nothing pending", and the next run held all 7 back as
shown before. F2: 4a342da's pending `request:open-release-pr` had no command body;
apply refused it and said to run `learn run`, which held it back.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.stored import StoreShownState
from learn.reduce.suppress import is_held_back
from learn.store import open_store
from learn.store.core import open_connection
from learn.store.dialects import dialect_of
from learn.store.proposals_ddl import ddl
from learn.store.schema import STEP_NAMES, StoreSchema, migrate


def repo(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    return path


def point(project: Path, label: str, *texts: str, kind: str = "directive",
          canonical: str | None = None, judged: bool = True, body: str | None = None,
          sessions: str | None = None) -> Proposal:
    """`texts` said in sessions of their own (`<sessions>-<n>`, `s-<label>-<n>` by default)."""
    quotes = tuple(Quote(f"{sessions or 's-' + label}-{i}", t,
                         f"2026-11-0{i + 1}T10:00:00+00:00", str(project))
                   for i, t in enumerate(texts))
    verdict = Verdict(True, f"Rule {label}.", "tooling", "project", 0.9,
                      canonical_key=canonical) if judged else None
    return Proposal(kind, label, texts[0], len(texts), len(texts), quotes[-1].at,  # type: ignore[arg-type]
                    quotes, verdict=verdict, command_body=body)


def result(*proposals: Proposal, offline: bool = False) -> str:
    return json.dumps(dataclasses.asdict(RunResult(proposals=proposals, funnel=Funnel(),
                                                   usage=RunUsage(), offline=offline)))


def old_store(target: Path | str, runs: list[tuple[str, str]]) -> None:
    """A store as a learn from before 0011 left it: `runs` (finished_at, full result)."""
    conn, _, _ = open_connection(target)
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0011_proposal_states"))
    conn.execute("BEGIN")
    for finished, full in runs:
        conn.execute("INSERT INTO runs (started_at, finished_at, args_json, result_full_json) "
                     "VALUES ($1, $1, '{}', $2)", (finished, full))
    conn.execute("COMMIT")
    conn.close()


def states(target: Path | str, project: Path) -> dict[str, str]:
    with open_store(target) as store:
        return {r.key: r.state for r in store.proposals.rows(str(project))}


def test_a_store_from_before_the_book_keeps_every_runs_pending_proposals(
        tmp_path: Path, store_target: Path | str) -> None:
    api, web = repo(tmp_path / "shop-api"), repo(tmp_path / "web-app")
    ruff = point(api, "run-ruff", "run ruff check before you commit")
    structlog = point(api, "use-structlog", "log with structlog, never print")
    bun = point(web, "use-bun", "use bun, never npm")
    generated = point(web, "leave-generated", "leave the generated files alone")
    old_store(store_target, [
        ("2026-11-28T09:00:00+00:00", result(ruff, structlog, bun, generated)),
        ("2026-11-29T09:00:00+00:00", result()),  # the daily run: nothing new to show
    ])
    conn, _, _ = open_connection(store_target)
    conn.execute("INSERT INTO decisions (key, decision, at) VALUES "
                 "('directive:use-bun', 'accepted', '2026-11-28T10:00:00+00:00'), "
                 "('directive:leave-generated', 'dismissed', '2026-11-28T10:01:00+00:00')")
    conn.close()
    assert states(store_target, api) == {"directive:run-ruff": "pending",
                                         "directive:use-structlog": "pending"}
    assert states(store_target, web) == {"directive:use-bun": "applied",
                                         "directive:leave-generated": "declined"}


def test_a_rule_written_in_one_project_is_no_decision_in_another(
        tmp_path: Path, store_target: Path | str) -> None:
    # The same point proposed in two projects and written into one's CLAUDE.md: the
    # other's stays pending (taken by key alone it was `applied` there, nothing written).
    # A rule written to the person's own file, and a decline, hold everywhere.
    api, web = repo(tmp_path / "shop-api"), repo(tmp_path / "web-app")
    bun = dataclasses.replace(point(api, "use-bun", "use bun, never npm"), quotes=(
        *point(api, "use-bun", "use bun, never npm").quotes,
        *point(web, "use-bun", "use bun, never npm", sessions="w").quotes))
    ruff = dataclasses.replace(point(api, "run-ruff", "run ruff first"), quotes=(
        *point(api, "run-ruff", "run ruff first").quotes,
        *point(web, "run-ruff", "run ruff first", sessions="w").quotes))
    mine = dataclasses.replace(point(api, "short-commits", "short commit messages"), quotes=(
        *point(api, "short-commits", "short commit messages").quotes,
        *point(web, "short-commits", "short commit messages", sessions="w").quotes))
    old_store(store_target, [("2026-11-28T09:00:00+00:00", result(bun, ruff, mine))])
    conn, _, _ = open_connection(store_target)
    conn.execute("INSERT INTO decisions (key, decision, target_file, at) VALUES "
                 "('directive:use-bun', 'accepted', $1, '2026-11-28T10:00:00+00:00'), "
                 "('directive:run-ruff', 'dismissed', NULL, '2026-11-28T10:01:00+00:00'), "
                 "('directive:short-commits', 'accepted', $2, '2026-11-28T10:02:00+00:00')",
                 (str(web / "CLAUDE.md"), str(tmp_path / "home" / ".claude" / "CLAUDE.md")))
    conn.close()
    assert states(store_target, web) == {"directive:use-bun": "applied",
                                         "directive:run-ruff": "declined",
                                         "directive:short-commits": "applied"}
    assert states(store_target, api) == {"directive:use-bun": "pending",
                                         "directive:run-ruff": "declined",
                                         "directive:short-commits": "applied"}


def test_each_proposal_is_carried_as_the_newest_run_counted_it(
        tmp_path: Path, store_target: Path | str) -> None:
    api = repo(tmp_path / "shop-api")
    first = point(api, "run-ruff", "run ruff check before you commit")
    later = point(api, "run-ruff", "run ruff check before you commit", "ruff first, then commit")
    old_store(store_target, [("2026-11-20T09:00:00+00:00", result(first)),
                             ("2026-11-27T09:00:00+00:00", result(later)),
                             ("2026-11-28T09:00:00+00:00", result())])
    with open_store(store_target) as store:
        (row,) = store.proposals.rows(str(api))
    assert (row.state, row.sessions) == ("pending", 2)
    assert row.first_proposed_at == "2026-11-20T09:00:00+00:00"
    assert row.last_proposed_at == "2026-11-27T09:00:00+00:00"


def test_an_older_runs_label_of_a_point_a_newer_run_named_anew_gives_way(
        tmp_path: Path, store_target: Path | str) -> None:
    # An offline run's label, then a model run's for the same quotes: one point, not
    # two pending proposals for `learn apply` to write twice.
    api = repo(tmp_path / "shop-api")
    said = ("don't mock the database, use the sqlite test fixture instead please",
            "no mocking the database. real sqlite fixture, like I said")
    offline = point(api, "no-mocking-database", *said, judged=False, sessions="s")
    model = point(api, "no-mocked-db", *said, canonical="tests.no-mocked-db", sessions="s")
    old_store(store_target, [("2026-11-20T09:00:00+00:00", result(offline, offline=True)),
                             ("2026-11-27T09:00:00+00:00", result(model))])
    with open_store(store_target) as store:
        rows = {r.key: r for r in store.proposals.rows(str(api))}
    assert rows["directive:no-mocked-db"].state == "pending"
    old = rows["directive:no-mocking-database"]
    assert (old.state, old.superseded_by) == ("superseded", "directive:no-mocked-db")


def newest_only_0011(target: Path | str, applied_at: str) -> None:
    """Migration 0011 as learn ran it until 2026-12-05, on a store whose newest run
    proposed nothing: the tables, and no row. Then the steps up to 0026."""
    conn, _, _ = open_connection(target)
    conn.execute("BEGIN")
    for statement in ddl(dialect_of(conn)).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT INTO _migrations (name, applied_at) VALUES ('0011_proposal_states', $1)",
                 (applied_at,))
    conn.execute("COMMIT")
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0026_proposal_states_every_run"))
    conn.close()


def test_a_store_0011_filled_from_the_newest_run_alone_gets_its_pending_proposals_back(
        tmp_path: Path, store_target: Path | str) -> None:
    api = repo(tmp_path / "shop-api")
    ruff = point(api, "run-ruff", "run ruff check before you commit")
    structlog = point(api, "use-structlog", "log with structlog, never print")
    bun = point(api, "use-bun", "use bun, never npm")
    old_store(store_target, [("2026-11-28T09:00:00+00:00", result(ruff, structlog, bun)),
                             ("2026-11-29T09:00:00+00:00", result())])
    newest_only_0011(store_target, "2026-11-30T09:00:00+00:00")
    # Since that upgrade a run proposed `use-bun` again, and the person applied it.
    conn, _, _ = open_connection(store_target)
    conn.execute(
        "INSERT INTO proposal_states (project, key, kind, accepted, state, sessions, "
        "proposal_json, first_proposed_at, last_proposed_at, decided_at, decided_sessions) "
        "VALUES ($1, 'directive:use-bun', 'directive', $2, 'applied', 1, $3, $4, $4, $4, 1)",
        (str(api), True, json.dumps(dataclasses.asdict(bun)), "2026-12-01T09:00:00+00:00"))
    conn.close()
    with open_store(store_target) as store:
        rows = {r.key: r for r in store.proposals.rows(str(api))}
    # Run 1's other two come back pending, first proposed when run 1 proposed them; the
    # decision taken since stands.
    assert {k: r.state for k, r in rows.items()} == {
        "directive:run-ruff": "pending", "directive:use-structlog": "pending",
        "directive:use-bun": "applied"}
    assert rows["directive:run-ruff"].first_proposed_at == "2026-11-28T09:00:00+00:00"
    assert rows["directive:use-bun"].first_proposed_at == "2026-11-28T09:00:00+00:00"


def test_runs_after_the_book_existed_are_not_read_again(
        tmp_path: Path, store_target: Path | str) -> None:
    # 0026 reads only the runs from before 0011: later runs recorded their own proposals,
    # and what the person did with them since (a rename, a decision) stands.
    api = repo(tmp_path / "shop-api")
    old_store(store_target, [])
    newest_only_0011(store_target, "2026-11-30T09:00:00+00:00")
    conn, _, _ = open_connection(store_target)
    conn.execute("INSERT INTO runs (started_at, finished_at, args_json, result_full_json) "
                 "VALUES ('2026-12-01T09:00:00+00:00', '2026-12-01T09:00:00+00:00', '{}', $1)",
                 (result(point(api, "renamed-since", "keep pull requests small please")),))
    conn.close()
    assert states(store_target, api) == {}


# -- a request stored without its command's text (F2) ---------------------------------


def request(project: Path, body: str | None = None, *, accepted: bool = True) -> Proposal:
    p = point(project, "open-release-pr", "open a release PR with the changelog once merged",
              "open the release PR with the changelog", kind="request", body=body)
    assert p.verdict is not None
    return dataclasses.replace(p, verdict=dataclasses.replace(p.verdict, accepted=accepted))


def shown_before(project: Path, p: Proposal) -> None:
    with open_store() as store:
        store.proposals.record([p], run_id=None, fallback_project=None)
        store.shown.mark_shown(p.key, project=str(project), last_occurrence=p.last_seen)


def held_back(project: Path, p: Proposal) -> bool:
    counted = dataclasses.replace(p, verdict=None, command_body=None)  # as a run counts it
    with open_store() as store:
        return is_held_back(counted, StoreShownState(store, str(project)))


def test_a_pending_request_without_its_command_text_is_shown_again(tmp_path: Path) -> None:
    web = repo(tmp_path / "web-app")
    shown_before(web, request(web))
    assert not held_back(web, request(web))
    # The run judges it and its model writes the body: pending still, now with the
    # text `learn apply` writes, and held back from then on.
    with open_store() as store:
        store.proposals.record([request(web, "Open a release PR with the changelog.")],
                               run_id=None, fallback_project=None)
        (row,) = store.proposals.pending(str(web))
    assert row.proposal.command_body == "Open a release PR with the changelog."
    assert held_back(web, request(web))


def test_a_request_with_its_text_or_one_the_judge_rejected_stays_held_back(
        tmp_path: Path) -> None:
    web, api = repo(tmp_path / "web-app"), repo(tmp_path / "shop-api")
    shown_before(web, request(web, "Open a release PR."))
    assert held_back(web, request(web))
    shown_before(api, request(api, accepted=False))
    assert held_back(api, request(api))


def test_a_request_without_text_in_another_project_is_not_shown_again_here(
        tmp_path: Path) -> None:
    web, api = repo(tmp_path / "web-app"), repo(tmp_path / "shop-api")
    shown_before(web, request(web))
    shown_before(api, request(api, "Open a release PR."))
    with open_store() as store:
        state = StoreShownState(store)  # a run over every project
        counted = dataclasses.replace(request(api), verdict=None, command_body=None)
        assert is_held_back(counted, state)
