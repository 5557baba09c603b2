"""Proposals as shown (for suppression: was it shown, when, and what was its last
occurrence then) and the person's decisions on them (`learn apply`, `decline`).

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
        last_occurrence: str | None,
        covered: bool = False,
        text: str = "",
        verdict: Mapping[str, Any] | None = None,
        at: str | None = None,
    ) -> None:
        """Record that proposal `key` ("kind:label") was shown, with its newest occurrence then."""
        when = at or _now()
        self.store.execute(
            "INSERT INTO proposals (key, first_shown_at, last_shown_at, last_occurrence, "
            "covered_when_shown, shown_count, text, verdict_json) VALUES ($1, $2, $3, $4, $5, 1, $6, $7) "
            "ON CONFLICT(key) DO UPDATE SET last_shown_at = excluded.last_shown_at, "
            "last_occurrence = excluded.last_occurrence, "
            "covered_when_shown = excluded.covered_when_shown, "
            "shown_count = proposals.shown_count + 1, text = excluded.text, "
            "verdict_json = excluded.verdict_json",
            (key, when, when, last_occurrence, int(covered), text,
             None if verdict is None else json.dumps(dict(verdict), default=str)),
        )

    def shown(self, key: str) -> ShownProposal | None:
        rows = self.store.sql("SELECT * FROM proposals WHERE key = $1", (key,))
        if not rows:
            return None
        r = rows[0]
        return ShownProposal(
            key=r["key"], first_shown_at=r["first_shown_at"], last_shown_at=r["last_shown_at"],
            last_occurrence=r["last_occurrence"], covered_when_shown=bool(r["covered_when_shown"]),
            shown_count=int(r["shown_count"]), text=r["text"], verdict=_loads(r["verdict_json"]),
        )

    def shown_all(self) -> dict[str, ShownProposal]:
        out: dict[str, ShownProposal] = {}
        for r in self.store.sql("SELECT key FROM proposals"):
            sp = self.shown(r["key"])
            if sp is not None:
                out[sp.key] = sp
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
        """(key, shown_count) of every proposal shown, by key: `learn stats`."""
        return self.store.sql("SELECT key, shown_count FROM proposals ORDER BY key")

    def decision_rows(self) -> list[dict[str, Any]]:
        """(key, decision) of every decision, oldest first: `learn stats`."""
        return self.store.sql("SELECT key, decision FROM decisions ORDER BY at, id")
