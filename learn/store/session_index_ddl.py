"""The session index's tables (learn.store.session_index): migrations 0007, 0016, 0018, 0022
and 0028.

A leaf, so the migration list (learn.store.migrations) imports it without
importing the index, which opens the store through the migration engine. Local
SQLite only: the index is per machine and never goes to a shared database.
"""

from __future__ import annotations

from learn.store.connection import Connection


def create_table(conn: Connection) -> None:
    """The DDL of migration 0007_session_index (kept here, with the code that reads it;
    0016 reshapes it: `derived_only`)."""
    conn.execute(
        """
        CREATE TABLE session_index (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            head_hash TEXT NOT NULL,
            version TEXT NOT NULL,
            context TEXT NOT NULL,
            offset INTEGER NOT NULL,
            digest TEXT NOT NULL,
            summary TEXT NOT NULL,
            view BLOB NOT NULL,
            detected BLOB NOT NULL,
            prefix BLOB
        ) WITHOUT ROWID;
        CREATE TABLE session_heads (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            cwd TEXT,
            session_id TEXT,
            subagent TEXT,
            parent_id TEXT,
            last_activity REAL,
            has_last_activity INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        """
    )


def derived_only(conn: Connection) -> None:
    """Migration 0016: the index keeps derived, redacted data only (issue 20).

    0007's table kept, for files changed in the last two days, every decoded
    transcript record (tool output, file contents, agent text) as a zstd'd
    pickle (`prefix`) for tail reads. The table is rebuilt by copy without it
    (and without the tail read's offset and head hash); the summaries, the
    redacted views and candidates are kept, so a warm run stays warm. With
    secure_delete on, the pages the old blobs held are zeroed, not left in the
    file's free list (measured: 5,192 copies of a pickled string survived a
    plain DROP TABLE + checkpoint, none with it).
    """
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute(
        """
        CREATE TABLE session_index_derived (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            version TEXT NOT NULL,
            context TEXT NOT NULL,
            summary TEXT NOT NULL,
            prompts TEXT,
            digest TEXT,
            view BLOB,
            detected BLOB
        ) WITHOUT ROWID;
        INSERT INTO session_index_derived
            (path, size, mtime_ns, inode, version, context, summary, digest, view, detected)
            SELECT path, size, mtime_ns, inode, version, context, summary, digest, view, detected
            FROM session_index;
        DROP TABLE session_index;
        ALTER TABLE session_index_derived RENAME TO session_index;
        """
    )


def project_facts(conn: Connection) -> None:
    """Migration 0018 (local SQLite only): what a transcript's head says of its
    folder's repository (Claude Code's gitBranch; Codex's git branch, repository
    id and commit), and the project the disk said each folder belonged to.

    The heads stored before lack the new fields: they are dropped and read again
    from their files on the next scan (64 KB each), rather than kept with
    nothing to say of their repository."""
    conn.execute(
        """
        ALTER TABLE session_heads ADD COLUMN branch TEXT;
        ALTER TABLE session_heads ADD COLUMN repository TEXT;
        ALTER TABLE session_heads ADD COLUMN commit_hash TEXT;
        DELETE FROM session_heads;
        CREATE TABLE project_folders (
            folder TEXT PRIMARY KEY,
            project TEXT NOT NULL,
            seen_at TEXT NOT NULL
        ) WITHOUT ROWID;
        """
    )


def turn_keys(conn: Connection) -> None:
    """Migration 0022: each entry's human turns' keys (learn.transcripts.templates.keys),
    so judging sessions together reads digests, not every turn's text.

    The table is made again, as a rowid table with the small columns first and
    the large ones last. SQLite walks a row's overflow pages to reach a column
    after a large one, and in a WITHOUT ROWID table a row is a key, the whole
    of it read to find the next: selecting the summaries and keys of 1,000
    entries (200 MB, a memory plugin's home) took 0.43 s of CPU from 0007's
    table and 0.011 s from this one. Its entries are not copied: none carries
    the keys, so each would be read again anyway.
    """
    conn.execute(
        """
        DROP TABLE session_index;
        CREATE TABLE session_index (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            version TEXT NOT NULL,
            context TEXT NOT NULL,
            summary TEXT NOT NULL,
            digest TEXT,
            keys BLOB,
            prompts TEXT,
            detected BLOB,
            view BLOB
        );
        """
    )


def head_reader(conn: Connection) -> None:
    """Migration 0028: which reader stored each head (learn.transcripts.files.heads.
    HEAD_VERSION), so a head a reader since fixed read wrong is read again once.

    A head was kept while its file's stat held, whatever read it: one whose first line
    was two records a crash spliced together was stored with no cwd and no session id
    before the head reader recovered such lines (fixed late 2026), and its session stayed
    listed nowhere until the file changed (a finished session never does). The rows
    stored before get reader 0, older than any version: each is read again on the next
    listing and stored with the reader's version. A later fix to the reader bumps
    HEAD_VERSION, with no migration."""
    conn.execute("ALTER TABLE session_heads ADD COLUMN reader INTEGER NOT NULL DEFAULT 0")
