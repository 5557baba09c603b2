"""The store: the feedback ledger, verdicts with vector evidence, and learn's own tables,
in a local SQLite file (apsw + sqlite-vec) or a shared PostgreSQL database (pgvector).

The rest of learn uses one API: `open_store(target, readonly=...)` gives a Store
(learn.store.api) whose named parts reach every table: `ledger` (the seed's
FeedbackStore), `runs`, `scans`, `labels`, `shown`, `proposals`, `verdicts`,
`team`, and this machine's `index` and `batches`. No SQL is written outside
this package. FeedbackStore.open stays as the seed defines it.

Layers, each importing only those below it (tests/test_store_layers.py fails on
an import that points up):
  connection       connection (the typed Connection both engines implement), db
                   (SQLite via apsw), target (where the store is), postgres
                   (PostgreSQL via psycopg)
  definitions      layout (StoreSchema), dialects (every DDL difference between
                   the engines), run_json (a run's stored form), vector_tables,
                   feedback_rows (the ledger's row shapes), points (whether two
                   proposals make the same point)
  table DDL        session_index_ddl, proposals_ddl (tables whose code lives above),
                   project_keys (migration 0018: stored project keys made identities)
  migration steps  migrations (one definition per step, both engines)
  migration engine schema (apply the steps once, in order; verify)
  vector index     pg_vectors, vectors (sqlite-vec; dispatches to pgvector)
  ledger           core (open, transactions, generic SQL) -> feedback (the seed's
                   FeedbackStore)
  tables           one class per group of tables over the ledger: label_tables,
                   run_table, scan_tables, shown_table, proposals, verdict_table,
                   pg_team -> pg_members (a team database's roles and members),
                   team_forget -> team;
                   session_index, mine_batches (this machine's, own connection)
  API              api (Store, open_store) -> runs (the hooks learn.report.runs
                   finds by name: the latest run, pending proposals, decisions)

Nothing here runs the pipeline's logic: the protocols learn.reduce asks for are
implemented over the Store in learn.reduce.stored, the scan is recorded by
learn.pipeline.stored, what is shared is built by learn.reduce.sharing.

SQL is written once, with numbered placeholders `$1, $2, ...` (`$n` is the n-th
parameter), which both engines read as written: nothing rewrites SQL text. A
list built at run time is numbered by learn.store.connection.placeholders.

Importing this package imports no heavy library: apsw, sqlite_vec and numpy are
loaded when a store is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learn.store.api import Store, open_store
    from learn.store.db import (
        DEFAULT_BUSY_TIMEOUT_MS,
        SchemaMismatchError,
        StoreBusyError,
        StoreClosedError,
        StoreError,
        TransactionConflictError,
    )
    from learn.store.feedback import (
        CandidateLike,
        FeedbackStore,
        Fidelity,
        ReadOnlyStoreError,
        Stats,
        VerdictLike,
    )
    from learn.store.schema import SCHEMA_VERSION, StoreSchema

# Each name from the module that defines it, on first use: a command that opens
# only this machine's session index (`learn sessions`, `learn show`) does not
# import the ledger, its tables and every migration (~0.05 s of a 0.3 s budget).
_HOME = {
    "Store": "api", "open_store": "api",
    "DEFAULT_BUSY_TIMEOUT_MS": "db", "SchemaMismatchError": "db", "StoreBusyError": "db",
    "StoreClosedError": "db", "StoreError": "db", "TransactionConflictError": "db",
    "CandidateLike": "feedback", "FeedbackStore": "feedback", "Fidelity": "feedback",
    "ReadOnlyStoreError": "feedback", "Stats": "feedback", "VerdictLike": "feedback",
    "SCHEMA_VERSION": "schema", "StoreSchema": "schema",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "SCHEMA_VERSION",
    "CandidateLike",
    "FeedbackStore",
    "Fidelity",
    "ReadOnlyStoreError",
    "SchemaMismatchError",
    "Stats",
    "Store",
    "StoreBusyError",
    "StoreClosedError",
    "StoreError",
    "StoreSchema",
    "TransactionConflictError",
    "VerdictLike",
    "open_store",
]
