"""OpenCode's SQLite store, read without writing to it or holding it.

Schema studied in anomalyco/opencode (`session.sql.ts`, `json-migration.ts`,
`@opencode-ai/core` `session-message.ts`), 1.x-2.x, and in the store 1.18.33 wrote:
`session` (`id`, `project_id`, `parent_id`, `directory`, `title`, `version`,
`permission` (JSON rules), `time_created`, `time_updated`, epoch ms; and more
columns learn does not read), `message` (`id`, `session_id`, `time_created`,
`time_updated`, `data` JSON: the message info without its ids), `part` (`id`,
`message_id`, `session_id`, `time_*`, `data` JSON: the part without its ids), and
`session_message` (`id`, `session_id`, `type`, `time_*`, `data`): present, and
empty, in 1.18.33 already; 2.x writes its entries there.

The store is OpenCode's, live while it runs. When its write-ahead log and
shared memory are beside it (OpenCode has it open), it is opened `mode=ro`: a
second reader, seeing what OpenCode wrote last, never writing the store or its
log and never blocking OpenCode's writes (a WAL reader takes no lock a writer
waits on). Otherwise everything is in the file itself and it is opened
`immutable=1`: SQLite then creates nothing beside it and takes no lock at all
(measured: a `mode=ro` open of a closed WAL store created `-wal` and `-shm`
files in OpenCode's folder). Every query is one short read; no transaction is
held across sessions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec

from learn.transcripts.mend import decoded
from learn.transcripts.opencode.export import encode_session

__all__ = ["SessionRow", "export_session", "is_store", "session_row", "sessions", "stamp"]

_ANY = msgspec.json.Decoder()
_BUSY_MS = 2000


class SessionRow(msgspec.Struct, frozen=True):
    id: str
    directory: str | None
    parent_id: str | None
    title: str | None
    version: str | None
    created: int
    updated: int
    # The session's permission rules (JSON, as stored): `opencode run` sets its own.
    permission: object = None


# One connection per store and process (a pool worker, forked, opens its own), and
# per state of the file for an immutable one: SQLite assumes an immutable file never
# changes, so a file that changed is opened again.
_OPEN: dict[tuple[int, str], tuple[tuple[int, ...], Any]] = {}


def _connect(db: Path) -> Any:
    import apsw

    st = os.stat(db)  # raises OSError when the store is gone
    live = all(db.with_name(db.name + suffix).exists() for suffix in ("-wal", "-shm"))
    state = (1,) if live else (0, st.st_size, st.st_mtime_ns, st.st_ino)
    key = (os.getpid(), str(db))
    cached = _OPEN.get(key)
    if cached is not None and cached[0] == state:
        return cached[1]
    if cached is not None:
        cached[1].close()
    uri = "file:" + quote(str(db.resolve()))
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    conn = None
    if live:
        # OpenCode has it open (or left its log): read through the log as a second
        # reader does, so what it wrote last is seen.
        try:
            conn = apsw.Connection(uri + "?mode=ro", flags=flags)
            conn.set_busy_timeout(_BUSY_MS)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except apsw.Error:
            conn = None
    if conn is None:
        # Everything is in the file itself: read it as immutable, so SQLite creates no
        # shared-memory or log file beside it and takes no lock.
        conn = apsw.Connection(uri + "?mode=ro&immutable=1", flags=flags)
    _OPEN[key] = (state, conn)
    return conn


def _query(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    import apsw

    try:
        cursor = _connect(db).cursor()
        cursor.row_trace = _as_dict
        return list(cursor.execute(sql, params))
    except apsw.Error as exc:
        raise OSError(f"{db}: {exc}") from None


def _as_dict(cursor: Any, row: tuple[Any, ...]) -> dict[str, Any]:
    return {d[0]: v for d, v in zip(cursor.getdescription(), row, strict=True)}


def _tables(db: Path) -> set[str]:
    return {r["name"] for r in _query(db, "SELECT name FROM sqlite_master WHERE type='table'")}


def _columns(db: Path, table: str) -> set[str]:
    return {r["name"] for r in _query(db, f"PRAGMA table_info({table})")}


def is_store(db: Path) -> bool:
    """Whether a SQLite file holds OpenCode's tables (`session`, `message`, `part`)."""
    try:
        return {"session", "message", "part"} <= _tables(db)
    except OSError:
        return False


def _row(r: dict[str, Any]) -> SessionRow:
    return SessionRow(
        id=str(r["id"]), directory=r.get("directory") or None, parent_id=r.get("parent_id") or None,
        title=r.get("title"), version=r.get("version"),
        created=int(r.get("time_created") or 0), updated=int(r.get("time_updated") or 0),
        permission=_json_value(r.get("permission")))


def _state(db: Path) -> tuple[int, ...]:
    """What changes when anything in the store does: the file's and its log's stat."""
    out: list[int] = []
    for path in (db, db.with_name(db.name + "-wal")):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            out += [-1, -1]
            continue
        out += [st.st_size, st.st_mtime_ns]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """Every session's row and stamp, read once per state of the store: discovery asks
    for each session's head and the index for each one's stamp, and a query or four per
    session was most of a warm listing (1.4 s at 500 OpenCode sessions, measured)."""

    rows: dict[str, SessionRow]
    stamps: dict[str, tuple[int, int]]


_SNAPSHOTS: dict[tuple[int, str], tuple[tuple[int, ...], _Snapshot]] = {}


def _snapshot(db: Path) -> _Snapshot:
    key, state = (os.getpid(), str(db)), _state(db)
    got = _SNAPSHOTS.get(key)
    if got is not None and got[0] == state:
        return got[1]
    tables = _tables(db)
    rows: dict[str, SessionRow] = {}
    if "session" in tables:
        for r in _query(db, "SELECT * FROM session ORDER BY time_updated DESC, id"):
            row = _row(r)
            rows[row.id] = row
    stamps = {sid: (1, row.updated) for sid, row in rows.items()}
    for table in ("message", "part", "session_message"):
        if table not in tables or "session_id" not in _columns(db, table):
            continue
        for r in _query(db, f"SELECT session_id AS s, count(*) AS n, max(time_updated) AS t "
                            f"FROM {table} GROUP BY session_id"):
            if r["s"] in stamps:
                n, t = stamps[r["s"]]
                stamps[r["s"]] = (n + int(r["n"] or 0), max(t, int(r["t"] or 0)))
    snap = _Snapshot(rows, stamps)
    _SNAPSHOTS[key] = (state, snap)
    return snap


def sessions(db: Path) -> Iterator[SessionRow]:
    """Every session of the store, newest first. Raises OSError when it cannot be read."""
    yield from _snapshot(db).rows.values()


def session_row(db: Path, session_id: str) -> SessionRow | None:
    return _snapshot(db).rows.get(session_id)


def stamp(db: Path, session_id: str) -> tuple[int, int, int] | None:
    """(rows, newest update in ns, an id of the store file) of one session; None when gone.

    What the session index compares instead of a file's stat: any message or part
    written, changed or deleted changes it, and another session's write does not.
    """
    got = _snapshot(db).stamps.get(session_id)
    if got is None:
        return None
    try:
        ident = os.stat(db).st_ino
    except OSError:
        return None
    return got[0], got[1] * 1_000_000, ident


def export_session(db: Path, session_id: str) -> bytes:
    """One session as the canonical buffer (`export`). Raises OSError when it is gone."""
    row = session_row(db, session_id)
    if row is None:
        raise FileNotFoundError(f"{db}: no session {session_id}")
    tables = _tables(db)
    bad: list[object] = []  # rows whose data holds no JSON object
    parts: dict[str, list[dict[str, Any]]] = {}
    if "part" in tables:
        by_session = "session_id" in _columns(db, "part")
        sql = ("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id"
               if by_session else
               "SELECT id, message_id, data FROM part WHERE message_id IN "
               "(SELECT id FROM message WHERE session_id = ?) ORDER BY message_id, id")
        for r in _query(db, sql, (session_id,)):
            parts.setdefault(str(r["message_id"]), []).append({"id": r["id"],
                                                               **_json(r["data"], bad)})
    messages = []
    if "message" in tables:
        for r in _query(db, "SELECT id, data FROM message WHERE session_id = ? "
                            "ORDER BY time_created, id", (session_id,)):
            messages.append((str(r["id"]), _json(r["data"], bad), parts.get(str(r["id"]), [])))
    entries = []
    if "session_message" in tables:
        for r in _query(db, "SELECT id, type, time_created, data FROM session_message "
                            "WHERE session_id = ? ORDER BY time_created, id", (session_id,)):
            entries.append((str(r["id"]), str(r["type"]), int(r["time_created"] or 0),
                            _json(r["data"], bad)))
    head = {"id": row.id, "directory": row.directory, "parentID": row.parent_id,
            "title": row.title, "version": row.version,
            "time": {"created": row.created, "updated": row.updated}, "store": "sqlite",
            "permission": row.permission}
    return encode_session(head, messages, entries, unreadable=len(bad))


def _json_value(value: object) -> object:
    """A column's JSON (the session's `permission` rules); None when absent or not JSON."""
    if not isinstance(value, bytes | str) or not value:
        return None
    try:
        return decoded(_ANY.decode, value)
    except (msgspec.DecodeError, RecursionError):
        return None


def _json(value: object, bad: list[object] | None = None) -> dict[str, Any]:
    """The JSON object a row's data holds; {} when none (the row added to `bad`)."""
    got: object = None
    if isinstance(value, bytes | str):
        try:  # mended: OpenCode is JavaScript (transcripts.mend)
            got = decoded(_ANY.decode, value)
        except (msgspec.DecodeError, RecursionError):  # nested too deep (~1,000 levels): as bad
            got = None
    if isinstance(got, dict):
        return got
    if bad is not None and value is not None:  # a NULL is no record that failed
        bad.append(value)
    return {}
