"""The store: one SQLite database (apsw + sqlite-vec) holding the feedback ledger,
verdicts with vector evidence, and learn's own tables.

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
