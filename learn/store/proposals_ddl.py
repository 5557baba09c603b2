"""The proposal book's tables (learn.store.proposals): migration 0011, and its backfill.

A leaf the migration list (learn.store.migrations) imports without importing the
book, which opens the store. One DDL for both engines; the dialect says the types.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Literal

from learn.isotime import now_iso
from learn.projects import quote_projects
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
    _backfill(conn)


_DECIDED: dict[str, State] = {"accepted": "applied", "edited": "edited", "dismissed": "declined"}


def _backfill(conn: Connection) -> None:
    """The newest stored run's proposals become rows, so the first `learn apply` after the
    upgrade still finds what that run proposed; a decision already taken on a key
    (the decisions ledger) gives its state."""
    row = conn.execute("SELECT id, finished_at, result_full_json FROM runs WHERE "
                       "result_full_json IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return
    from learn.store.run_json import result_from_full_json

    result = result_from_full_json(json.loads(row[2]))
    when = str(row[1] or now_iso())
    for p in result.proposals:
        if p.people is not None or (p.verdict is None and not result.offline):
            continue
        decided = conn.execute("SELECT decision, at FROM decisions WHERE key = $1 "
                               "ORDER BY at DESC, id DESC LIMIT 1", (p.key,)).fetchone()
        state: State = _DECIDED.get(str(decided[0]), "pending") if decided else "pending"
        for project in projects_of(p):
            conn.execute(
                "INSERT INTO proposal_states (project, key, canonical_key, kind, accepted, state, "
                "sessions, proposal_json, first_run_id, last_run_id, first_proposed_at, "
                "last_proposed_at, decided_at, decided_sessions) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) "
                "ON CONFLICT (project, key) DO NOTHING",
                (project, p.key, p.verdict.canonical_key if p.verdict else None, p.kind,
                 accepted_of(p), state, p.sessions, proposal_json(p), int(row[0]), int(row[0]),
                 when, when, decided[1] if decided else None,
                 p.sessions if decided else None))
