"""The store as the rest of learn uses it: one Store, opened by open_store(), with
one named part per group of tables.

    with open_store(target, readonly=True) as store:
        store.runs.last_run()

| Part | Class (module) | Tables |
|---|---|---|
| `ledger` | FeedbackStore (feedback) | the seed's feedback ledger: feedback_events, files, verdicts with evidence |
| `runs` | RunTable (run_table) | runs |
| `scans` | ScanTables (scan_tables) | sessions_scanned, candidates |
| `labels` | LabelTables (label_tables) | labels, label_examples, name_cache, embedding_cache |
| `shown` | ShownTable (shown_table) | proposals (as shown), decisions |
| `proposals` | ProposalBook (proposals) | proposal_states, applied_rules |
| `verdicts` | VerdictTable (verdict_table) | verdicts as the judge's memory |
| `team` | TeamTable (team) | team_candidates, team_shared |
| `index` | SessionIndex (session_index) | session_index, session_heads (this machine's) |
| `batches` | BatchTable (mine_batches) | mine_batches (this machine's) |
| `journal` | ApplyJournal (apply_journal) | apply_writes: what `learn apply` wrote, for `--undo` (this machine's) |
| `answers` | AnswerTable (answer_table) | answer_cache: model answers by their request (this machine's) |

The parts share the ledger's one connection and its transactions
(`store.atomic()`, `store.transaction()`). The session index, the batch table,
the apply journal and the answer cache are per machine, kept in the local SQLite
file (beside the cache when the store is a PostgreSQL database:
learn.store.session_index.session_index_path); they have a connection of their
own, opened on first use and closed with the store.
`open_store(..., local_only=True)` opens only those: listing sessions must not
wait for a shared database, nor load sqlite-vec.
"""

from __future__ import annotations

import contextlib
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Self

from learn.store.db import StoreError
from learn.store.target import default_store_target

# Each part's module is imported when the part is first used: listing sessions
# opens only the index, and importing the ledger, its tables and every migration
# was a sixth of `learn show`'s 0.3 s.
if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.store.answer_table import AnswerTable
    from learn.store.apply_journal import ApplyJournal
    from learn.store.db import SqliteConnection
    from learn.store.feedback import FeedbackStore
    from learn.store.label_tables import LabelTables
    from learn.store.mine_batches import BatchTable
    from learn.store.proposals import ProposalBook
    from learn.store.run_table import RunTable
    from learn.store.scan_tables import ScanTables
    from learn.store.schema import StoreSchema
    from learn.store.session_index import SessionIndex
    from learn.store.shown_table import ShownTable
    from learn.store.team import TeamTable
    from learn.store.verdict_table import VerdictTable


class Store:
    """One open store: the seed's ledger and learn's tables as named parts."""

    def __init__(self, target: Path | str, ledger: FeedbackStore | None) -> None:
        self.target = target
        self._ledger = ledger
        self._local: SqliteConnection | None = None  # the index's own connection, opened on first use

    # -- the shared database ---------------------------------------------------------

    @property
    def ledger(self) -> FeedbackStore:
        """The seed's FeedbackStore: the connection every part below writes through."""
        if self._ledger is None:
            raise StoreError(f"{self.target} was opened local_only: only its index and batches")
        return self._ledger

    @cached_property
    def runs(self) -> RunTable:
        from learn.store.run_table import RunTable

        return RunTable(self.ledger)

    @cached_property
    def scans(self) -> ScanTables:
        from learn.store.scan_tables import ScanTables

        return ScanTables(self.ledger)

    @cached_property
    def labels(self) -> LabelTables:
        from learn.store.label_tables import LabelTables

        return LabelTables(self.ledger)

    @cached_property
    def shown(self) -> ShownTable:
        from learn.store.shown_table import ShownTable

        return ShownTable(self.ledger)

    @cached_property
    def proposals(self) -> ProposalBook:
        from learn.store.proposals import ProposalBook

        return ProposalBook(self.ledger)

    @cached_property
    def verdicts(self) -> VerdictTable:
        from learn.store.verdict_table import VerdictTable

        return VerdictTable(self.ledger)

    @cached_property
    def team(self) -> TeamTable:
        from learn.store.team import TeamTable

        return TeamTable(self.ledger)

    @property
    def location(self) -> str:
        """Where the store is, printable (a URL without its password)."""
        return self.ledger.location

    @property
    def backend(self) -> str:
        return self.ledger.backend

    def atomic(self) -> contextlib.AbstractContextManager[FeedbackStore]:
        """One transaction, or the caller's own open one joined (FeedbackStore.atomic)."""
        return self.ledger.atomic()

    def transaction(self) -> contextlib.AbstractContextManager[FeedbackStore]:
        return self.ledger.transaction()

    # -- this machine's tables ---------------------------------------------------------

    def _local_conn(self) -> SqliteConnection:
        if self._local is None:
            from learn.store.db import connect
            from learn.store.schema import StoreSchema, migrate
            from learn.store.session_index import session_index_path

            # No sqlite-vec: neither table has a vector, and loading it imports numpy.
            conn = connect(session_index_path(self.target), vectors=False)
            try:
                migrate(conn, StoreSchema())
            except BaseException:
                conn.close()
                raise
            self._local = conn
        return self._local

    @cached_property
    def index(self) -> SessionIndex:
        from learn.store.session_index import SessionIndex

        return SessionIndex(self._local_conn())

    @cached_property
    def batches(self) -> BatchTable:
        from learn.store.mine_batches import BatchTable

        return BatchTable(self._local_conn())

    @cached_property
    def journal(self) -> ApplyJournal:
        from learn.store.apply_journal import ApplyJournal

        return ApplyJournal(self._local_conn())

    @cached_property
    def answers(self) -> AnswerTable:
        from learn.store.answer_table import AnswerTable

        return AnswerTable(self._local_conn())

    # -- lifecycle ---------------------------------------------------------------

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None
        if self._ledger is not None:
            self._ledger.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(
    target: Path | str | None = None, *, readonly: bool = False, local_only: bool = False,
    embedder: Embedder | None = None, schema: StoreSchema | None = None,
) -> Store:
    """The store at `target` (a SQLite file or a `postgresql://` URL; default
    default_store_target()), created and migrated unless `readonly` (then attested,
    and any write raises ReadOnlyStoreError). `local_only` opens only this
    machine's index and batch table. `embedder` makes the verdicts' evidence vectors
    (FeedbackStore.open). Close it, or use it as a context manager."""
    where = target if target is not None else default_store_target()
    if local_only:
        return Store(where, None)
    from learn.store.feedback import FeedbackStore

    return Store(where, FeedbackStore.open(where, schema, readonly=readonly, embedder=embedder))

