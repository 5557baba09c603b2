"""The store: the feedback ledger, verdicts with vector evidence, and learn's own tables,
in a local SQLite file (apsw + sqlite-vec) or a shared PostgreSQL database (pgvector).

Layers, each importing only those below it (tests/test_store_layers.py fails on
an import that points up):
  connection       connection (the typed Connection both engines implement), db
                   (SQLite via apsw), target (where the store is), postgres
                   (PostgreSQL via psycopg)
  definitions      layout (StoreSchema), dialects (every DDL difference between
                   the engines), run_json (a run's stored form), vector_tables,
                   feedback_rows (the ledger's row shapes)
  table DDL        session_index_ddl, proposals_ddl (tables whose code lives above)
  migration steps  migrations (one definition per step, both engines)
  migration engine schema (apply the steps once, in order; verify)
  vector index     pg_vectors, vectors (sqlite-vec; dispatches to pgvector)
  tables           core (open, transactions) -> feedback (the seed's FeedbackStore,
                   the API the rest of learn opens) -> label_tables -> learn_tables,
                   proposals, session_index, mine_batches, team*, runs,
                   reduce_protocols -> adapters (LearnStore, the pipeline's steps)

SQL is written once, with numbered placeholders `$1, $2, ...` (`$n` is the n-th
parameter), which both engines read as written: nothing rewrites SQL text. A
list built at run time is numbered by learn.store.connection.placeholders.

Importing this package imports no heavy library: apsw, sqlite_vec and numpy are
loaded when a store is opened.
"""

from __future__ import annotations

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

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "SCHEMA_VERSION",
    "CandidateLike",
    "FeedbackStore",
    "Fidelity",
    "ReadOnlyStoreError",
    "SchemaMismatchError",
    "Stats",
    "StoreBusyError",
    "StoreClosedError",
    "StoreError",
    "StoreSchema",
    "TransactionConflictError",
    "VerdictLike",
]
