"""A session's bytes and its identity on disk, whether it is a file or lives in a store.

Claude Code, Codex, Gemini CLI and Copilot CLI write one file per session: its
bytes are the file's, its identity (what the session index compares to know it
unchanged) the file's stat. OpenCode keeps sessions in a store: a session of its
SQLite store is named `<store>/<session id>` (`opencode.places`), one of its JSON
store by its session file; its bytes are the canonical export
(`opencode.export`), its identity a stamp computed from the store (rows and the
newest update), since the store's own stat changes with every session in it.

Every reader of a session's bytes or identity (the parser, the session index,
discovery's heads) comes through here, so one rule decides what a session is.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

__all__ = ["SourceStat", "in_store", "read_session", "session_exists", "source_stat", "stat_identity"]


class SourceStat(msgspec.Struct, frozen=True):
    """What the session index compares: a file's size, mtime and inode, or a store's stamp."""

    size: int
    mtime_ns: int
    inode: int
    # The stat's own float (a file's `st_mtime` is not `st_mtime_ns / 1e9` to the last bit).
    mtime: float


def stat_identity(st: os.stat_result) -> SourceStat:
    """A file's identity from a stat already taken."""
    return SourceStat(st.st_size, st.st_mtime_ns, st.st_ino, st.st_mtime)


def in_store(path: Path) -> bool:
    """Whether `path` names a session held in a store rather than a file of its own."""
    from learn.transcripts.opencode.places import in_database, in_storage

    return in_database(path) is not None or in_storage(path)


def session_exists(path: str | Path) -> bool:
    """Whether the session is still there: a file, or a session its store still holds."""
    p = Path(path)
    if not in_store(p):
        return os.path.exists(p)
    from learn.transcripts.opencode import database
    from learn.transcripts.opencode.places import in_database

    where = in_database(p)
    if where is None:
        return p.is_file()
    try:
        return database.session_row(*where) is not None
    except OSError:
        return False


def source_stat(path: Path) -> SourceStat | None:
    """The session's identity, without reading it; None when it is gone."""
    if in_store(path):
        return _store_stat(path)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return stat_identity(st)


def read_session(path: Path) -> tuple[bytes, SourceStat]:
    """The session's bytes and its identity when read. Raises OSError."""
    if in_store(path):
        from learn.transcripts.opencode import database, storage
        from learn.transcripts.opencode.places import in_database

        # The stamp first: a write landing during the read makes the next run
        # read it again, never the reverse.
        stat = _store_stat(path)
        if stat is None:
            raise FileNotFoundError(str(path))
        where = in_database(path)
        buf = database.export_session(*where) if where else storage.export_session(path)
        return buf, stat
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        return fh.read(), stat_identity(st)


def _store_stat(path: Path) -> SourceStat | None:
    from learn.transcripts.opencode import database, storage
    from learn.transcripts.opencode.places import in_database

    where = in_database(path)
    try:
        got = database.stamp(*where) if where else storage.stamp(path)
    except OSError:
        return None
    if got is None:
        return None
    rows, newest_ns, ident = got
    return SourceStat(rows, newest_ns, ident, newest_ns / 1e9)
