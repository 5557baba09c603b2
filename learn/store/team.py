"""Sharing with a team store: what leaves the machine, built in one place, and forgetting.

A shared row has exactly the fields of SharedCandidate: the verified quote (run
through redact() again, so a secret that slipped past mining does not leave),
its kind and label, a hash of the session id, when it was said, the project's
remote URL and the author id the person chose. Never the session id itself, the
transcript, tool output, commands, error excerpts, edited files or the local
path: the candidate's payload is not read at all.

shareable() is pure (local rows in, shared rows out), so `learn share --dry-run`
prints exactly what share() would send.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from learn.render.redact import redact
from learn.store.feedback import FeedbackStore
from learn.store.learn_tables import StoredCandidate, text_hash

SHARED_FIELDS = ("author", "session_hash", "kind", "label", "quote", "occurred_at",
                 "project_remote")


@dataclass(frozen=True, slots=True)
class SharedCandidate:
    author: str
    session_hash: str
    kind: str
    label: str | None
    quote: str
    occurred_at: str | None
    project_remote: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def session_hash(session_id: str) -> str:
    """The session's id, hashed: counts distinct sessions without naming them."""
    return hashlib.sha256(f"learn-session:{session_id}".encode()).hexdigest()[:32]


def _under(project: str | None, root: Path) -> bool:
    if not project:
        return False
    p = Path(project).expanduser()
    return p == root or root in p.parents


def shareable(
    candidates: Iterable[StoredCandidate], projects: Mapping[Path, str], author: str
) -> list[SharedCandidate]:
    """The rows to share: local candidates of the opted-in `projects` (local root ->
    remote URL), nothing else, each reduced to the shared fields."""
    if not author.strip():
        raise ValueError("an author id is needed to share (team.author in the config)")
    out: list[SharedCandidate] = []
    for c in candidates:
        remote = next((url for root, url in projects.items() if _under(c.project, root)), None)
        if remote is None:
            continue
        out.append(SharedCandidate(
            author=author, session_hash=session_hash(c.session_id), kind=c.kind,
            label=c.label, quote=redact(c.text), occurred_at=c.occurred_at,
            project_remote=remote,
        ))
    return out


def share(team: FeedbackStore, rows: Sequence[SharedCandidate]) -> int:
    """Upsert rows into the team store in one transaction; returns rows written.

    A row already shared keeps its place and takes the newer label."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    return team.executemany(
        "INSERT INTO team_candidates (author, session_hash, kind, label, quote, text_hash, "
        "occurred_at, project_remote, shared_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (author, session_hash, kind, text_hash) DO UPDATE SET "
        "label = excluded.label, occurred_at = excluded.occurred_at",
        [(r.author, r.session_hash, r.kind, r.label, r.quote, text_hash(r.quote), r.occurred_at,
          r.project_remote, now) for r in rows],
    )


def forget(team: FeedbackStore, author: str) -> int:
    """Delete everything `author` shared; returns rows deleted."""
    return team.execute("DELETE FROM team_candidates WHERE author = ?", (author,))


@dataclass(frozen=True, slots=True)
class TeamCount:
    kind: str
    label: str
    people: int
    sessions: int
    last_seen: str | None


def team_counts(
    team: FeedbackStore, project_remote: str, *, min_people: int = 2, min_sessions: int = 2
) -> list[TeamCount]:
    """Distinct people and distinct sessions per (kind, label) of one repository, counted
    in the database, keeping labels said by at least min_people people in at least
    min_sessions sessions; most people first. Names are never read: only counts."""
    rows = team.sql(
        "SELECT kind, label, COUNT(DISTINCT author) AS people, "
        "COUNT(DISTINCT session_hash) AS sessions, MAX(occurred_at) AS last_seen "
        "FROM team_candidates WHERE project_remote = ? AND label IS NOT NULL "
        "GROUP BY kind, label "
        "HAVING COUNT(DISTINCT author) >= ? AND COUNT(DISTINCT session_hash) >= ? "
        "ORDER BY people DESC, sessions DESC, kind, label",
        (project_remote, int(min_people), int(min_sessions)),
    )
    return [TeamCount(kind=r["kind"], label=r["label"], people=int(r["people"]),
                      sessions=int(r["sessions"]), last_seen=r["last_seen"]) for r in rows]
