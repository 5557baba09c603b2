"""Proposals as shown (for suppression: was it shown, where, when, and what was its
last occurrence then) and the person's decisions on them (`learn apply`, `decline`).

Shown is per project (migration 0019): a point shown in one project says nothing
about another. The project '' is a row from before learn kept where (shown
somewhere), which counts for every project until the key is shown in one.

Every method goes through FeedbackStore's write path, so it joins the caller's
open transaction() or commits on its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from learn.isotime import now_iso as _now
from learn.store.connection import Connection
from learn.store.feedback import FeedbackStore
from learn.store.run_table import loads as _loads

Decision = Literal["accepted", "edited", "dismissed"]


ANYWHERE = ""  # a row from before 0019: shown in some project, not known which


@dataclass(frozen=True, slots=True)
class ShownProposal:
    key: str
    first_shown_at: str
    last_shown_at: str
    last_occurrence: str | None  # the newest occurrence when it was last shown
    covered_when_shown: bool
    shown_count: int
    text: str
    verdict: dict[str, Any] | None
    project: str = ANYWHERE


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    id: int
    key: str
    decision: Decision
    text: str
    target_file: str | None
    at: str


class ShownTable:
    """The proposals (as shown) and decisions tables over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def mark_shown(
        self,
        key: str,
        *,
        project: str = ANYWHERE,
        last_occurrence: str | None,
        covered: bool = False,
        text: str = "",
        verdict: Mapping[str, Any] | None = None,
        at: str | None = None,
    ) -> None:
        """Record that proposal `key` ("kind:label") was shown in `project`, with its
        newest occurrence then."""
        when = at or _now()
        self.store.execute(
            "INSERT INTO shown_proposals (project, key, first_shown_at, last_shown_at, "
            "last_occurrence, covered_when_shown, shown_count, text, verdict_json) "
            "VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8) "
            "ON CONFLICT(project, key) DO UPDATE SET last_shown_at = excluded.last_shown_at, "
            "last_occurrence = excluded.last_occurrence, "
            "covered_when_shown = excluded.covered_when_shown, "
            "shown_count = shown_proposals.shown_count + 1, text = excluded.text, "
            "verdict_json = excluded.verdict_json",
            (project, key, when, when, last_occurrence, int(covered), text,
             None if verdict is None else json.dumps(dict(verdict), default=str)),
        )

    def shown_in(self, key: str) -> dict[str, ShownProposal]:
        """Where `key` was shown: project -> its record (ANYWHERE: before learn kept where)."""
        return {r["project"]: _row(r) for r in self.store.sql(
            "SELECT * FROM shown_proposals WHERE key = $1", (key,))}

    def shown(self, key: str) -> ShownProposal | None:
        """`key` as last shown, in whichever project."""
        rows = sorted(self.shown_in(key).values(), key=lambda sp: sp.last_shown_at)
        return rows[-1] if rows else None

    def shown_all(self) -> dict[str, ShownProposal]:
        out: dict[str, ShownProposal] = {}
        for r in self.store.sql("SELECT * FROM shown_proposals ORDER BY last_shown_at"):
            out[r["key"]] = _row(r)  # the newest wins
        return out

    def record_decision(
        self, key: str, decision: Decision, *, text: str = "", target_file: str | None = None,
        at: str | None = None,
    ) -> int:
        if decision not in ("accepted", "edited", "dismissed"):
            raise ValueError(f"decision must be accepted, edited or dismissed, not {decision!r}")

        def run(conn: Connection) -> int:
            (did,) = conn.execute(
                "INSERT INTO decisions (key, decision, text, target_file, at) "
                "VALUES ($1, $2, $3, $4, $5) RETURNING id",
                (key, decision, text, target_file, at or _now()),
            ).fetchone()
            return int(did)

        return self.store._write(run)

    def decisions(self, key: str | None = None) -> list[DecisionRecord]:
        where, params = ("WHERE key = $1", (key,)) if key is not None else ("", ())
        return [
            DecisionRecord(id=int(r["id"]), key=r["key"], decision=r["decision"], text=r["text"],
                           target_file=r["target_file"], at=r["at"])
            for r in self.store.sql(f"SELECT * FROM decisions {where} ORDER BY at, id", params)
        ]

    def shown_counts(self) -> list[dict[str, Any]]:
        """(key, shown_count) of every proposal shown, by key (all projects): `learn stats`."""
        return self.store.sql("SELECT key, SUM(shown_count) AS shown_count FROM shown_proposals "
                              "GROUP BY key ORDER BY key")

    def decision_rows(self) -> list[dict[str, Any]]:
        """(key, decision) of every decision, oldest first: `learn stats`."""
        return self.store.sql("SELECT key, decision FROM decisions ORDER BY at, id")


def _row(r: Mapping[str, Any]) -> ShownProposal:
    return ShownProposal(
        key=r["key"], first_shown_at=r["first_shown_at"], last_shown_at=r["last_shown_at"],
        last_occurrence=r["last_occurrence"], covered_when_shown=bool(r["covered_when_shown"]),
        shown_count=int(r["shown_count"]), text=r["text"], verdict=_loads(r["verdict_json"]),
        project=r["project"],
    )
