"""What a run reads of the store, as one fingerprint (`state_fingerprint`).

A run's result depends on its sessions and on what earlier runs and the person
left in the store: verdicts and labels remembered, proposals shown, pending,
applied or declined. When two runs in a row find the same fingerprint before
and after the later one wrote (its writes changed nothing the next run reads),
a third with the same sessions would compute the same result
(learn.pipeline.warm). The run's own bookkeeping (its row in `runs`, the
sessions scanned and their candidates, rewritten each run) is left out.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from learn.store.api import Store

# Tables whose rows change in place (a proposal shown again, a state decided):
# hashed whole. They hold a row per proposal or label, hundreds at most.
_UPDATED: Final = ("verdicts", "labels", "name_cache", "shown_proposals", "proposal_states")
# Not what a run reads: how often a proposal was shown (`learn stats` counts it) and
# when, where its newest occurrence says it (learn.reduce.stored reads the time shown
# only for a proposal without one), and which run proposed it last and when (`learn
# report --since` reads that, no run does). `learn run --all` shows every proposal
# again, so each run bumped them, never found the store as it left it, and paid a
# coverage call each time over nothing new (crash audit 61 F4).
_QUERIES: Final = {
    "shown_proposals": (
        "SELECT project, key, first_shown_at, last_occurrence, covered_when_shown, text, "
        "verdict_json, CASE WHEN last_occurrence IS NULL THEN last_shown_at END AS shown_at "
        "FROM shown_proposals"),
    "proposal_states": (
        "SELECT id, project, key, canonical_key, kind, accepted, state, sessions, "
        "proposal_json, first_run_id, first_proposed_at, decided_at, decided_sessions, "
        "superseded_by FROM proposal_states"),
}
# Tables rows are only added to or deleted from (the examples and evidence carry
# vectors): their count and newest row say whether they changed.
_APPENDED: Final = ("label_examples", "verdict_evidence", "decisions", "applied_rules",
                    "feedback_events")


def state_fingerprint(store: Store) -> str | None:
    """The fingerprint of what a run reads of `store`; None for a PostgreSQL store
    (whose tables other machines write: never taken as unchanged)."""
    if store.backend != "sqlite":
        return None
    h = hashlib.sha256()
    for table in _UPDATED:
        # Sorted here, not by rowid: some of these tables are WITHOUT ROWID.
        query = _QUERIES.get(table, f"SELECT * FROM {table}")
        rows = sorted(repr(tuple(row.values())) for row in store.ledger.sql(query))
        for text in rows:
            h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    for table in _APPENDED:
        row = store.ledger.sql(f"SELECT count(*) AS n, max(rowid) AS newest FROM {table}")[0]
        h.update(f"{table}:{row['n']}:{row['newest']}\0".encode())
    return h.hexdigest()
