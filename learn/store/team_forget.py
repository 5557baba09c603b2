"""`learn share --forget`: every row and vector derived from one person's shares goes.

What a person shared is their rows of team_candidates. What team runs derived
from them lives in the team's tables: the cached vectors and names of their
quotes, the label examples (and their pgvector rows) made from those vectors,
the verdicts judged on groups their words were in (the proposal event, its
verdict, its evidence text and evidence vector), and the stored results of team
runs that quote their sessions. All of it is deleted in one transaction; a
cache entry or label example of a text someone else also shared stays (it is
theirs too), and a verdict their words went into is dropped and judged again
by the next team run from the words that remain.

On PostgreSQL the database limits the DELETE on team_candidates to the
connected member's own rows, whatever `author` says: row-level security for a
member, a trigger for the admin and superusers, who may delete another role's
rows only while removing that person (learn.store.pg_team).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from learn.store import vectors
from learn.store.connection import placeholders
from learn.store.feedback import EVIDENCE_PURPOSE, FeedbackStore
from learn.store.feedback_rows import PROPOSAL_SOURCE_KIND
from learn.store.label_tables import LABEL_PURPOSE


def _in(column: str, values: list[Any], start: int = 1) -> str:
    return f"{column} IN ({placeholders(len(values), start)})"


def _chunks(values: Iterable[Any], size: int = 500) -> Iterable[list[Any]]:
    items = list(values)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _stored_runs(
    team: FeedbackStore, sessions: set[str]
) -> list[tuple[int, set[str], set[str], bool]]:
    """Each stored run result: its id, its proposal keys, the keys of its proposals
    quoting one of `sessions` (a team run's quote names its session hash), and
    whether it names one of them anywhere."""
    out: list[tuple[int, set[str], set[str], bool]] = []
    for r in team.sql("SELECT id, result_full_json FROM runs WHERE result_full_json IS NOT NULL"):
        data = json.loads(r["result_full_json"])
        keys: set[str] = set()
        quoting: set[str] = set()
        for p in data.get("proposals") or ():
            key = f"{p.get('kind')}:{p.get('label')}"
            keys.add(key)
            if any(str(q.get("session_id", "")).split(":")[0] in sessions
                   for q in p.get("quotes") or ()):
                quoting.add(key)
        named = bool(quoting) or any(h in r["result_full_json"] for h in sessions)
        out.append((int(r["id"]), keys, quoting, named))
    return out


def forget(team: FeedbackStore, author: str) -> int:
    """Delete everything `author` shared and what team runs derived from it; returns
    the shared rows deleted."""
    with team.atomic(), team._use(write=True) as conn:
        # What was deleted, not what was asked for: on PostgreSQL the database
        # decides which rows a role may delete (learn.store.pg_team).
        mine = team.sql("DELETE FROM team_candidates WHERE author = $1 "
                        "RETURNING session_hash, kind, text_hash", (author,))
        n = len(mine)
        sessions = {r["session_hash"] for r in mine}
        hashes = sorted({r["text_hash"] for r in mine})
        if not hashes:
            return n
        still = {r["text_hash"] for r in team.sql("SELECT DISTINCT text_hash FROM team_shared")}
        gone = [h for h in hashes if h not in still]

        runs = _stored_runs(team, sessions)
        keys: set[str] = set()
        for _, _, quoting, _ in runs:
            keys |= quoting
        for chunk in _chunks(hashes):
            for r in team.sql(f"SELECT kind, label FROM name_cache WHERE {_in('text_hash', chunk)}",
                              chunk):
                keys.add(f"{r['kind']}:{r['label']}")
        # Label examples are keyed by the hash of the vector, which the embedding
        # cache holds for each quote's text.
        example_hash: dict[str, str] = {}
        for chunk in _chunks(hashes):
            for r in team.sql("SELECT text_hash, vector FROM embedding_cache WHERE "
                              f"{_in('text_hash', chunk)}", chunk):
                example_hash[hashlib.sha256(bytes(r["vector"])).hexdigest()] = r["text_hash"]
        gone_set = set(gone)
        touched_labels: set[int] = set()
        for chunk in _chunks(example_hash):
            rows = team.sql(
                "SELECT e.id, e.space, e.vector_hash, l.id AS label_id, l.label, l.kind "
                "FROM label_examples e JOIN labels l ON l.id = e.label_id "
                f"WHERE {_in('e.vector_hash', chunk)}", chunk)
            for r in rows:
                keys.add(f"{r['kind']}:{r['label']}")
                if example_hash[r["vector_hash"]] not in gone_set:
                    continue
                found = vectors.find_table(conn, LABEL_PURPOSE, r["space"])
                if found is not None:
                    vectors.delete(conn, found[0], int(r["id"]))
                team.execute("DELETE FROM label_examples WHERE id = $1", (int(r["id"]),))
                touched_labels.add(int(r["label_id"]))
        for lid in touched_labels:
            team.execute("DELETE FROM labels WHERE id = $1 AND NOT EXISTS "
                         "(SELECT 1 FROM label_examples WHERE label_id = $2)", (lid, lid))

        # Verdicts their words went into: evidence vectors, then the proposal event
        # (its verdict and evidence rows go with it, ON DELETE CASCADE).
        for chunk in _chunks(sorted(keys)):
            for r in team.sql(f"SELECT id, space FROM verdict_evidence WHERE {_in('dedup_key', chunk)}",
                              chunk):
                found = vectors.find_table(conn, EVIDENCE_PURPOSE, r["space"])
                if found is not None:
                    vectors.delete(conn, found[0], int(r["id"]))
            team.execute(f"DELETE FROM feedback_events WHERE source_kind = $1 AND "
                         f"{_in('dedup_key', chunk, 2)}", (PROPOSAL_SOURCE_KIND, *chunk))
        # A run that quotes them, or proposes a group their words were in (a
        # proposal keeps a sample of its quotes, so theirs may not be shown).
        stale = [(i,) for i, run_keys, _, named in runs if named or run_keys & keys]
        team.executemany("UPDATE runs SET result_json = NULL, result_full_json = NULL "
                         "WHERE id = $1", stale)
        for chunk in _chunks(gone):
            team.execute(f"DELETE FROM embedding_cache WHERE {_in('text_hash', chunk)}", chunk)
            team.execute(f"DELETE FROM name_cache WHERE {_in('text_hash', chunk)}", chunk)
    return n
