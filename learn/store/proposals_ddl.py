"""The proposal book's tables (learn.store.proposals): migration 0011, and its backfill
from the stored runs (again in 0026, for stores 0011 backfilled from the newest run only).

A leaf the migration list (learn.store.migrations) imports without importing the
book, which opens the store. One DDL for both engines; the dialect says the types.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import TYPE_CHECKING, Literal

from learn.isotime import now_iso
from learn.projects import is_path, key_within, path_key, quote_projects
from learn.store.connection import Connection
from learn.store.dialects import Dialect

# The records are read in a function: opening the store imports this module with
# every migration, and the proposal records cost more than the rest of it.
if TYPE_CHECKING:
    from learn.records.proposal import Proposal

State = Literal["pending", "applied", "edited", "declined", "superseded"]
STATES: tuple[State, ...] = ("pending", "applied", "edited", "declined", "superseded")



def ddl(d: Dialect) -> str:
    """Migration 0011's tables in dialect `d`."""
    return f"""
CREATE TABLE proposal_states (
    id {d.rowid},
    project TEXT NOT NULL,
    key TEXT NOT NULL,
    canonical_key TEXT,
    kind TEXT NOT NULL,
    accepted {d.boolean} NOT NULL,
    state TEXT NOT NULL,
    sessions {d.bigint} NOT NULL,
    proposal_json TEXT NOT NULL,
    first_run_id {d.bigint},
    last_run_id {d.bigint},
    first_proposed_at TEXT NOT NULL,
    last_proposed_at TEXT NOT NULL,
    decided_at TEXT,
    decided_sessions {d.bigint},
    superseded_by TEXT,
    UNIQUE (project, key)
);
CREATE INDEX proposal_states_by_key ON proposal_states(key);
CREATE TABLE applied_rules (
    id {d.rowid},
    project TEXT NOT NULL,
    key TEXT NOT NULL,
    canonical_key TEXT,
    decision TEXT NOT NULL,
    form TEXT NOT NULL,
    rule_text TEXT NOT NULL,
    target_file TEXT NOT NULL,
    backup_file TEXT,
    sessions {d.bigint} NOT NULL,
    last_seen TEXT,
    applied_at TEXT NOT NULL
);
CREATE INDEX applied_rules_by_key ON applied_rules(key);
"""


def projects_of(p: Proposal) -> list[str]:
    """The projects a proposal's quotes were said in (roots), most sessions first."""
    return quote_projects(p.quotes)


def proposal_json(p: Proposal) -> str:
    return json.dumps(dataclasses.asdict(p), ensure_ascii=False, default=str)


def proposal_from_json(text: str) -> Proposal:
    from learn.store.run_json import proposal_from_full_json

    return proposal_from_full_json(json.loads(text))


def accepted_of(p: Proposal) -> bool:
    return p.verdict is None or p.verdict.accepted


def create_tables(conn: Connection, d: Dialect) -> None:
    for statement in ddl(d).split(";"):
        if statement.strip():
            conn.execute(statement)
    carry_runs(conn)


_DECIDED: dict[str, State] = {"accepted": "applied", "edited": "edited", "dismissed": "declined"}


def carry_runs(conn: Connection, *, before: str | None = None) -> int:
    """Every stored run's proposals become rows of the book (only runs that finished
    before `before`, when given): what a learn from before the book proposed stays
    pending until the person decides. Returns the rows made.

    The runs are walked newest first, and each (project, key) is made once, from the
    newest run that proposed it (its latest count and wording); the oldest run that
    did gives when it was first proposed. A daily `learn run` mostly proposes nothing
    new (its points were shown before): taking the newest run alone left the book
    empty and lost every pending proposal on the upgrade. A row's state is the
    decision taken on its key (the decisions ledger); with none, a proposal whose
    point a row of another key already holds (a newer run's label of it, `same_point`)
    gives way to that row (`superseded`), and any other is pending. A (project, key)
    the book has is left as it is, but for an earlier first-proposed date."""
    clause, params = ("AND COALESCE(finished_at, started_at) < $1", (before,)) \
        if before is not None else ("", ())
    runs = conn.execute("SELECT id FROM runs WHERE result_full_json IS NOT NULL "
                        f"{clause} ORDER BY id DESC", params).fetchall()
    if not runs:
        return 0  # a new store (every first listing makes one): nothing to import for
    from learn.store.points import Points
    from learn.store.run_json import result_from_full_json

    book: dict[str, dict[str, tuple[int, str]]] = {}  # project -> key -> (id, first proposed)
    points: dict[str, Points[str]] = {}  # project -> its rows' proposals, each with its key

    def known(project: str) -> dict[str, tuple[int, str]]:
        if project not in book:
            rows = conn.query_dicts("SELECT id, key, first_proposed_at, proposal_json FROM "
                                    "proposal_states WHERE project = $1", (project,))
            book[project] = {str(r["key"]): (int(r["id"]), str(r["first_proposed_at"]))
                             for r in rows}
            points[project] = Points((proposal_from_json(r["proposal_json"]), str(r["key"]))
                                     for r in rows)
        return book[project]

    ledger: dict[str, list[tuple[str, str, str | None]]] = {}

    def decision(key: str, project: str, named: list[str]) -> tuple[str, str] | None:
        """The newest decision on `key` that holds in `project`: a decline (learn declined
        a key everywhere), or a write to a file in this project's folder, or to one in
        none of the projects it was proposed in (the person's own CLAUDE.md). A rule
        written into another project's file is no decision here: taken by key alone, a
        rule accepted in web-app was `applied` in shop-api, where nothing was written,
        and its pending proposal there was lost (review of migration 0026)."""
        if key not in ledger:
            ledger[key] = [(str(r[0]), str(r[1]), None if r[2] is None else str(r[2]))
                           for r in conn.execute(
                               "SELECT decision, at, target_file FROM decisions WHERE key = $1 "
                               "ORDER BY at DESC, id DESC", (key,)).fetchall()]
        for taken, at, target in ledger[key]:
            if taken == "dismissed" or not target or not is_path(target):
                return taken, at
            folder = path_key(os.path.dirname(target))
            if is_path(project) and key_within(folder, project):
                return taken, at
            if not any(is_path(p) and key_within(folder, p) for p in named):
                return taken, at
        return None

    made = 0
    for (run_id,) in runs:
        row = conn.execute("SELECT finished_at, started_at, result_full_json FROM runs "
                           "WHERE id = $1", (int(run_id),)).fetchone()
        result = result_from_full_json(json.loads(row[2]))
        when = str(row[0] or row[1] or now_iso())
        added: list[tuple[str, Proposal]] = []  # held against the older runs only
        for p in result.proposals:
            if p.people is not None or (p.verdict is None and not result.offline):
                continue
            named = projects_of(p)
            for project in named:
                rows = known(project)
                if p.key in rows:
                    rid, first = rows[p.key]
                    if when < first:
                        conn.execute("UPDATE proposal_states SET first_run_id = $1, "
                                     "first_proposed_at = $2 WHERE id = $3",
                                     (int(run_id), when, rid))
                        rows[p.key] = (rid, when)
                    continue
                taken = decision(p.key, project, named)
                holder = next((k for k in points[project].holding(p) if k != p.key), None)
                state: State = (_DECIDED.get(taken[0], "pending") if taken
                                else "superseded" if holder is not None else "pending")
                (rid,) = conn.execute(
                    "INSERT INTO proposal_states (project, key, canonical_key, kind, accepted, "
                    "state, sessions, proposal_json, first_run_id, last_run_id, "
                    "first_proposed_at, last_proposed_at, decided_at, decided_sessions, "
                    "superseded_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
                    "$13, $14, $15) RETURNING id",
                    (project, p.key, p.verdict.canonical_key if p.verdict else None, p.kind,
                     accepted_of(p), state, p.sessions, proposal_json(p), int(run_id),
                     int(run_id), when, when,
                     taken[1] if taken else (when if state == "superseded" else None),
                     p.sessions if taken else None,
                     holder if state == "superseded" else None)).fetchone()
                rows[p.key] = (int(rid), when)
                added.append((project, p))
                made += 1
        for project, p in added:
            points[project].add(p, p.key)
    return made
