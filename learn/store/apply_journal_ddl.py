"""The apply journal's table (learn.store.apply_journal), migration 0017: a leaf the
migration list imports without importing the store."""

from __future__ import annotations

from learn.store.connection import Connection
from learn.store.dialects import Dialect


def create_table(conn: Connection, d: Dialect) -> None:
    if d.postgres:
        return  # this machine's files: never in a shared database (learn.store.api)
    conn.execute(
        f"""
        CREATE TABLE apply_writes (
            id {d.rowid},
            batch TEXT NOT NULL,
            action TEXT NOT NULL,
            project TEXT,
            path TEXT NOT NULL,
            before_hash TEXT NOT NULL,
            after_hash TEXT NOT NULL,
            backup_file TEXT,
            keys TEXT NOT NULL,
            written_at TEXT NOT NULL,
            undone_at TEXT
        )
        """
    )
    conn.execute("CREATE INDEX apply_writes_by_batch ON apply_writes(batch)")


def made_folders(conn: Connection, d: Dialect) -> None:
    """Migration 0023: the folders a write made (a JSON list), so an undo takes them away
    again when it leaves them empty. NULL in the rows from before: nothing is known to
    be learn's, and their undo removes no folder."""
    if d.postgres:
        return
    conn.execute("ALTER TABLE apply_writes ADD COLUMN made_folders TEXT")


def pending_state(conn: Connection, d: Dialect) -> None:
    """Migration 0025: a write is journaled "pending" before its file is renamed into
    place and "done" after (learn.store.apply_journal), so no crash leaves a write the
    journal does not know. The rows from before were recorded after their write: done.
    `decisions` (a JSON list, NULL before): what the write decides about its proposals,
    recorded after the rename, so a write found made by the next apply is decided then."""
    if d.postgres:
        return
    conn.execute("ALTER TABLE apply_writes ADD COLUMN state TEXT NOT NULL DEFAULT 'done'")
    conn.execute("ALTER TABLE apply_writes ADD COLUMN decisions TEXT")
