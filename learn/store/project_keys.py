"""Migrations 0018 and 0024: every stored project key becomes the project's identity (learn.projects).

Stores written before kept a project as the root of a folder read with this
machine's POSIX rules, relative to learn's own cwd: a sibling worktree was a
project of its own, a Windows vault was stored as `/<cwd>/C:\\Users\\…\\VAULT`,
a `packages/` sub-folder of a checkout from another machine was its own
project. Here each key is decided again by `project_of` and the rows follow:

- `proposal_states`: rows of one (project, key) that now fall together become
  one; its state is the most decided of them (applied, edited, declined,
  pending, superseded, in that order: a decision taken in one worktree is the
  person's decision for the repository), its evidence every quote any of them
  had, its sessions the most any of them counted, its dates the earliest first
  proposal and the latest last one. Nothing pending, declined or applied is lost.
- `applied_rules` (append-only, the outcomes' baseline), `candidates` and
  `sessions_scanned`: the key is replaced, row for row.
- the quotes inside each stored proposal name their project's identity.

Migration 0024 runs it again for the keys the identity changed since: on WSL and
Windows a drive's folder is one key however it is spelled (`/mnt/c/Users/bob/proj` is
`c:\\users\\bob\\proj`, learn.projects.flavour), and `shown_proposals` (0019)
follows too.

What the disk shows is used where the folders are still there; the branches the
session heads recorded place a worktree deleted since (learn.projects rule 5).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Final

from learn.projects import Hints, Known, project_of
from learn.store.connection import Connection

# A Windows path joined to a POSIX cwd by the old key (`/home/u/proj/C:\Users\…`).
_GLUED: Final = re.compile(r"^/.*?/(?=[A-Za-z]:[\\/]|\\\\)")
_PRECEDENCE: Final = ("applied", "edited", "declined", "pending", "superseded")


def unglued(value: str) -> str:
    """The transcript's own path inside an old key glued to learn's cwd."""
    return _GLUED.sub("", value, count=1)


def _tables(conn: Connection) -> set[str]:
    if conn.dialect == "postgresql":
        rows = conn.execute("SELECT table_name FROM information_schema.tables "
                            "WHERE table_schema = current_schema()")
    else:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(r[0]) for r in rows}


def _knowledge(conn: Connection, tables: set[str], values: Iterable[str]) -> Known:
    known = Known()
    if "session_heads" in tables:
        cols = {str(r[1]) for r in conn.execute("PRAGMA table_info(session_heads)")} \
            if conn.dialect != "postgresql" else set()
        branch = "branch" if "branch" in cols else "NULL"
        known.add_folders((str(r[0]), Hints(branch=r[1]))
                          for r in conn.execute(f"SELECT cwd, {branch} FROM session_heads "
                                                "WHERE cwd IS NOT NULL"))
    known.add_folders((unglued(v), Hints()) for v in values)
    return known


def _quote_projects(proposal: dict[str, Any]) -> list[str]:
    return [str(q["project"]) for q in proposal.get("quotes") or ()
            if isinstance(q, dict) and q.get("project")]


def rekey(conn: Connection) -> None:
    """Migration 0018's store part (module docstring), on either engine."""
    tables = _tables(conn)
    if "proposal_states" not in tables:
        return
    states = conn.query_dicts("SELECT * FROM proposal_states ORDER BY id")
    applied = conn.query_dicts("SELECT id, project FROM applied_rules")
    scanned = [str(r[0]) for r in conn.execute(
        "SELECT DISTINCT project FROM candidates WHERE project IS NOT NULL")]
    scanned += [str(r[0]) for r in conn.execute(
        "SELECT DISTINCT project FROM sessions_scanned WHERE project IS NOT NULL")]
    proposals = {int(r["id"]): json.loads(r["proposal_json"]) for r in states}
    values = {str(r["project"]) for r in (*states, *applied)} | set(scanned)
    for p in proposals.values():
        values.update(_quote_projects(p))
    known = _knowledge(conn, tables, values)
    new = {v: project_of(unglued(v), known) or v for v in values}

    for table in ("candidates", "sessions_scanned"):
        conn.executemany(f"UPDATE {table} SET project = $1 WHERE project = $2",
                         [(n, v) for v, n in new.items() if n != v])
    conn.executemany("UPDATE applied_rules SET project = $1 WHERE id = $2",
                     [(new[str(r["project"])], int(r["id"])) for r in applied
                      if new[str(r["project"])] != r["project"]])

    if "shown_proposals" in tables:  # 0019 on: what was shown, by (project, key)
        _rekey_shown(conn, new)

    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in states:
        groups.setdefault((new[str(r["project"])], str(r["key"])), []).append(r)
    for (project, _key), rows in groups.items():
        keep, merged = _merge(rows, proposals, new)
        others = [(int(r["id"]),) for r in rows if r is not keep]
        if others:  # first: the kept row takes the project they may hold
            conn.executemany("DELETE FROM proposal_states WHERE id = $1", others)
        conn.execute(
            "UPDATE proposal_states SET project = $1, state = $2, sessions = $3, "
            "proposal_json = $4, first_run_id = $5, last_run_id = $6, first_proposed_at = $7, "
            "last_proposed_at = $8, decided_at = $9, decided_sessions = $10, superseded_by = $11 "
            "WHERE id = $12",
            (project, keep["state"], merged["sessions"], json.dumps(merged, ensure_ascii=False),
             _least(r["first_run_id"] for r in rows), _most(r["last_run_id"] for r in rows),
             min(str(r["first_proposed_at"]) for r in rows),
             max(str(r["last_proposed_at"]) for r in rows),
             keep["decided_at"], keep["decided_sessions"], keep["superseded_by"],
             int(keep["id"])))


def _rekey_shown(conn: Connection, new: dict[str, str]) -> None:
    """`shown_proposals` rows under their project's new key; where two spellings' rows of
    one point meet, the one shown last stands (what a digest holds back is by it)."""
    for old, key_now in new.items():
        if key_now == old:
            continue
        for row in conn.query_dicts("SELECT key, last_shown_at FROM shown_proposals "
                                    "WHERE project = $1", (old,)):
            there = conn.query_dicts("SELECT last_shown_at FROM shown_proposals "
                                     "WHERE project = $1 AND key = $2", (key_now, row["key"]))
            if there and str(there[0]["last_shown_at"]) >= str(row["last_shown_at"]):
                conn.execute("DELETE FROM shown_proposals WHERE project = $1 AND key = $2",
                             (old, row["key"]))
                continue
            if there:
                conn.execute("DELETE FROM shown_proposals WHERE project = $1 AND key = $2",
                             (key_now, row["key"]))
            conn.execute("UPDATE shown_proposals SET project = $1 WHERE project = $2 AND key = $3",
                         (key_now, old, row["key"]))


def _least(values: Iterable[Any]) -> Any:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _most(values: Iterable[Any]) -> Any:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _merge(rows: list[dict[str, Any]], proposals: dict[int, dict[str, Any]],
           new: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the row whose decision stands, the proposal with every row's quotes)."""
    keep = min(rows, key=lambda r: (_PRECEDENCE.index(r["state"])
                                    if r["state"] in _PRECEDENCE else len(_PRECEDENCE),
                                    str(r["last_proposed_at"])))
    newest = max(rows, key=lambda r: (str(r["last_proposed_at"]), int(r["id"])))
    merged = dict(proposals[int(newest["id"])])
    quotes: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for r in sorted(rows, key=lambda r: str(r["last_proposed_at"]), reverse=True):
        for q in proposals[int(r["id"])].get("quotes") or ():
            if not isinstance(q, dict):
                continue
            ident = (str(q.get("session_id")), str(q.get("text")))
            if ident in seen:
                continue
            seen.add(ident)
            q = dict(q)
            if q.get("project"):
                q["project"] = new.get(str(q["project"]), q["project"])
            quotes.append(q)
    quotes.sort(key=lambda q: str(q.get("at") or ""), reverse=True)
    merged["quotes"] = quotes
    sessions = {str(q.get("session_id")) for q in quotes}
    merged["sessions"] = max([int(r["sessions"]) for r in rows] + [len(sessions)])
    merged["count"] = max(int(merged.get("count") or 0), len(quotes))
    return keep, merged
