"""A session's bytes and its identity on disk, whether it is a file or lives in a store.

Claude Code, Codex, Gemini CLI and Copilot CLI write one file per session: its
bytes are the file's, its identity (what the session index compares to know it
unchanged) the file's stat. OpenCode keeps sessions in a store: a session of its
SQLite store is named `<store>/<session id>` (`opencode.places`), one of its JSON
store by its session file; its bytes are the canonical export
(`opencode.export`), its identity a stamp computed from the store (rows and the
newest update), since the store's own stat changes with every session in it.
A session known only from Gemini CLI's `logs.json` is held the same way:
`<logs.json>/<session id>`, exported as a chats file (`gemini.logs`).

Every reader of a session's bytes or identity (the parser, the session index,
discovery's heads) comes through here, so one rule decides what a session is.

A session file is a regular file, and nothing else is opened as one: a FIFO named
`rollout-*.jsonl` or `agent-*.jsonl` hung `learn sessions`, `run` and `show` for
good (a plain open of a pipe waits for a writer that never comes). The listings
keep only regular files; `open_regular` is the last guard, for a name swapped
under the listing or a path that came from elsewhere.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from io import BufferedReader
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from learn import osflags

if TYPE_CHECKING:
    from learn.transcripts.ids import Provider

__all__ = [
    "NotRegularFile",
    "SourceStat",
    "in_store",
    "open_regular",
    "read_session",
    "regular_fd",
    "session_exists",
    "source_stat",
    "stat_identity",
    "unread_detail",
]

# Non-blocking, so the open of a FIFO returns at once instead of waiting for a
# writer; on a regular file the flag changes nothing (its reads never block).
# Binary on Windows (learn.osflags).
_READ_FLAGS: Final = osflags.READ


# The detail of a file discovery listed that was gone when its turn came (pruned).
GONE: Final = "gone before it could be read"


def unread_detail(exc: Exception) -> str:
    """How a failure to read, parse or view one session file is said: the one rule for
    the listing, a run and the hook's worker. The error's type only, never its message:
    a message can quote the file (a KeyError of a record's text), and the detail is
    printed, logged and kept with a run's records."""
    if isinstance(exc, FileNotFoundError):
        return GONE
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return f"learn failed to read it ({type(exc).__name__}): please report this"


class NotRegularFile(OSError):
    """A path named like a session that is a FIFO, a device, a socket or a directory."""


def open_regular(path: str | Path) -> tuple[BufferedReader, os.stat_result]:
    """`path` opened for reading, with the fstat of what was opened. Raises OSError,
    NotRegularFile when it is not a regular file.

    The fd's fstat decides, not a stat of the name: a FIFO put in place of a file
    after the listing is refused too. One os.open, one fstat and a file object on
    the fd cost what the builtin open of the path does (8 us; it fstats as well).
    """
    fd, st = regular_fd(path)
    try:
        return open(fd, "rb"), st
    except BaseException:
        os.close(fd)
        raise


def regular_fd(path: str | Path) -> tuple[int, os.stat_result]:
    """`open_regular` without the file object: the fd (the caller closes it) and its
    fstat, for a reader that reads a file whole or its head with the fd's own calls."""
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


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
    from learn.transcripts.gemini.logs import in_logs
    from learn.transcripts.opencode.places import in_database, in_storage

    return in_database(path) is not None or in_storage(path) or in_logs(path) is not None


def session_exists(path: str | Path) -> bool:
    """Whether the session is still there: a file, or a session its store still holds."""
    p = Path(path)
    if not in_store(p):
        return os.path.exists(p)
    from learn.transcripts.gemini.logs import in_logs
    from learn.transcripts.opencode import database
    from learn.transcripts.opencode.places import in_database

    if in_logs(p) is not None:
        return _store_stat(p) is not None
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


# The clients whose sessions a store may hold (an OpenCode database or JSON store, a
# Gemini CLI `logs.json`): a Claude Code, Codex or Copilot CLI session is a file of its
# own, whatever its path says.
_STORED_BY: Final = frozenset({"opencode", "gemini"})


def read_session(path: Path, provider: Provider | None = None) -> tuple[bytes, SourceStat]:
    """The session's bytes and its identity when read. Raises OSError.

    `provider`: the client discovery found the session for, when known. A Claude Code or
    Codex file is then read without asking whether a store holds it (`in_store`: three
    tests of the path, each file of a first listing; 1.4% of one, py-spy)."""
    if (provider is None or provider in _STORED_BY) and in_store(path):
        # The stamp first: a write landing during the read makes the next run
        # read it again, never the reverse.
        stat = _store_stat(path)
        if stat is None:
            raise FileNotFoundError(str(path))
        return _store(path)[0](), stat
    data, st = _read_regular(path)
    return data, stat_identity(st)


def _read_regular(path: Path) -> tuple[bytes, os.stat_result]:
    """The whole of a regular file (`open_regular`'s guard) and the fstat taken before.

    Read with the fd's own calls, one read of the size the fstat gave: the file object
    `open_regular` wraps the fd in costs a fstat, a seek and two objects more per file
    (a first listing reads every file of the home; 0.20 s against 0.235 s for the
    spread bench home's Claude files). A file that grew since the fstat (a live
    session) is read to its end, as a file object's read() would."""
    fd, st = regular_fd(path)
    try:
        data = os.read(fd, st.st_size)
        more = os.read(fd, _MORE_BYTES)
        if not more:
            return data, st
        chunks = [data, more]
        while more:
            more = os.read(fd, _MORE_BYTES)
            chunks.append(more)
        return b"".join(chunks), st
    finally:
        os.close(fd)


# What each read past the size the fstat gave asks for (a file still being written).
_MORE_BYTES: Final = 1 << 20


def _store(path: Path) -> tuple[Callable[[], bytes], Callable[[], tuple[int, int, int] | None]]:
    """The export and the stamp of a session a store holds, by which store holds it: an
    OpenCode database, a Gemini CLI `logs.json`, else an OpenCode JSON store."""
    from learn.transcripts.gemini import logs
    from learn.transcripts.opencode import database, storage
    from learn.transcripts.opencode.places import in_database

    where = in_database(path)
    if where is not None:
        return (lambda: database.export_session(*where)), (lambda: database.stamp(*where))
    if logs.in_logs(path) is not None:
        return (lambda: logs.export_session(path)), (lambda: logs.stamp(path))
    return (lambda: storage.export_session(path)), (lambda: storage.stamp(path))


def _store_stat(path: Path) -> SourceStat | None:
    try:
        got = _store(path)[1]()
    except OSError:
        return None
    if got is None:
        return None
    rows, newest_ns, ident = got
    return SourceStat(rows, newest_ns, ident, newest_ns / 1e9)
