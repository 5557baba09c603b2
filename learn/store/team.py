"""The team's shared candidates: what people shared, and what a team run reads back.

A shared row has exactly the fields of SharedCandidate: the verified, redacted
quote, its kind and label, a hash of the session id keyed by the person, when it
was said, the repository's identity (learn.projects.remote.repository_id: never a URL with
credentials or a local path), the author and whether they chose to be named. The
rows are built (redacted again, a fix checked against what ran) by
learn.reduce.sharing.shareable before they reach this table.

On PostgreSQL the author is the member's login role (session_user), and the
database (learn.store.pg_team) refuses a row under any other name; member()
refuses the admin, a superuser and anyone `learn team init` did not set up. A
SQLite team store has no roles and takes the configured `[team] author`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from learn.isotime import now_iso
from learn.store.feedback import FeedbackStore
from learn.store.label_tables import text_hash
from learn.store.pg_team import REMOVING, Member
from learn.store.team_forget import forget as forget_rows

SHARED_FIELDS = ("author", "session_hash", "kind", "label", "quote", "occurred_at",
                 "project_remote", "show_name", "evidence")


@dataclass(frozen=True, slots=True)
class SharedCandidate:
    author: str  # sent: the sharer's identity; read back: an opaque key per person
    session_hash: str
    kind: str
    label: str | None
    quote: str  # a fix: the verified command that failed and later passed
    occurred_at: str | None
    project_remote: str  # learn.projects.remote.repository_id
    show_name: bool = False  # the author chose to be named next to team proposals
    evidence: tuple[str, ...] = ()  # a fix: verified commands run before it passed
    name: str | None = None  # read back only: the author's name, where they chose it

    def to_json(self) -> dict[str, Any]:
        return {f: list(self.evidence) if f == "evidence" else getattr(self, f)
                for f in SHARED_FIELDS}


def session_hash(session_id: str, identity: str) -> str:
    """The session's id, hashed with the person's identity: counts distinct sessions
    without naming them, and two people's sessions never merge on a shared id."""
    return hashlib.sha256(f"learn-session:{identity}:{session_id}".encode()).hexdigest()[:32]


def _evidence(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    loaded = json.loads(value)
    return tuple(str(s) for s in loaded) if isinstance(loaded, list) else ()


@dataclass(frozen=True, slots=True)
class TeamCount:
    kind: str
    label: str
    people: int
    sessions: int
    last_seen: str | None


class TeamTable:
    """team_candidates and the team_shared view over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    def is_postgres(self) -> bool:
        return self.store.backend == "postgresql"

    def member(self, configured: str | None) -> Member:
        """Who is sharing: on PostgreSQL the login role of a member `learn team init`
        set up (never a name typed in a config; TeamAccessError, in one line, for
        the admin, a superuser or anyone else); on a SQLite team store the
        configured author id."""
        if self.is_postgres():
            from learn.store.pg_team import member

            with self.store._use(write=False) as conn:
                return member(conn)
        if not (configured or "").strip():
            raise ValueError("an author id is needed to share (team.author in the config)")
        author = str(configured).strip()
        return Member(role=author, name=author)

    def share(self, rows: Sequence[SharedCandidate]) -> int:
        """Upsert rows into the team store in one transaction; returns rows written.

        A row already shared keeps its place and takes the newer label. On PostgreSQL a
        row whose author is not the connected role is refused by the database itself."""
        now = now_iso()
        return self.store.executemany(
            "INSERT INTO team_candidates (author, session_hash, kind, label, quote, text_hash, "
            "occurred_at, project_remote, shared_at, show_name, evidence) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
            "ON CONFLICT (author, session_hash, kind, text_hash) DO UPDATE SET "
            "label = excluded.label, occurred_at = excluded.occurred_at, "
            "show_name = excluded.show_name, evidence = excluded.evidence",
            [(r.author, r.session_hash, r.kind, r.label, r.quote, text_hash(r.quote), r.occurred_at,
              r.project_remote, now, r.show_name,
              json.dumps(list(r.evidence)) if r.evidence else None) for r in rows],
        )

    def shared_rows(self, project_remote: str) -> list[SharedCandidate]:
        """Everything shared for one repository, oldest first (what a team run reads),
        through team_shared: each author as an opaque per-person key, named only
        where they chose to be."""
        rows = self.store.sql(
            "SELECT person, name, session_hash, kind, label, quote, evidence, occurred_at, "
            "project_remote, show_name FROM team_shared WHERE project_remote = $1 "
            "ORDER BY occurred_at, id",
            (project_remote,),
        )
        return [SharedCandidate(
            author=r["person"], session_hash=r["session_hash"], kind=r["kind"], label=r["label"],
            quote=r["quote"], occurred_at=r["occurred_at"], project_remote=r["project_remote"],
            show_name=bool(r["show_name"]), evidence=_evidence(r["evidence"]), name=r["name"],
        ) for r in rows]

    def team_counts(
        self, project_remote: str, *, min_people: int = 2, min_sessions: int = 2
    ) -> list[TeamCount]:
        """Distinct people and distinct sessions per (kind, label) of one repository, counted
        in the database, keeping labels said by at least min_people people in at least
        min_sessions sessions; most people first. Names are never read: only counts."""
        rows = self.store.sql(
            "SELECT kind, label, COUNT(DISTINCT person) AS people, "
            "COUNT(DISTINCT person || ':' || session_hash) AS sessions, "
            "MAX(occurred_at) AS last_seen "
            "FROM team_shared WHERE project_remote = $1 AND label IS NOT NULL "
            "GROUP BY kind, label "
            "HAVING COUNT(DISTINCT person) >= $2 AND COUNT(DISTINCT person || ':' || session_hash) >= $3 "
            "ORDER BY people DESC, sessions DESC, kind, label",
            (project_remote, int(min_people), int(min_sessions)),
        )
        return [TeamCount(kind=r["kind"], label=r["label"], people=int(r["people"]),
                          sessions=int(r["sessions"]), last_seen=r["last_seen"]) for r in rows]

    def forget(self, author: str) -> int:
        """Delete everything `author` shared and what team runs derived from it
        (learn.store.team_forget); returns the shared rows deleted. On PostgreSQL
        the database deletes only the connected member's own rows."""
        return forget_rows(self.store, author)

    def remove(self, who: str) -> tuple[str, str | None, int, bool]:
        """The admin takes a person out (PostgreSQL): their shared rows and what team
        runs derived from them, their membership, and the role learn made for
        them, in one transaction. Returns (role, name, rows deleted, role dropped);
        `who` is a member's name or role, or a role that shared without being a
        member."""
        from learn.store.pg_members import drop_member, member_role

        with self.store.atomic(), self.store._use(write=True) as conn:
            role, name = member_role(conn, who)
            # The trigger lets the schema's owner delete this role's rows, in this
            # transaction only.
            conn.execute("SELECT set_config($1, $2, true)", (REMOVING, role))
            n = forget_rows(self.store, role)
            dropped = drop_member(conn, role) if name is not None else False
        return role, name, n, dropped
