"""OpenCode's JSON store, of the versions before the SQLite one.

Layout (what `json-migration.ts` reads into the SQLite store, 0.x-1.x):
`storage/session/<project id>/<session id>.json` (`{id, projectID, directory,
parentID?, title, version, time: {created, updated}}`), `storage/message/<session
id>/<message id>.json` (the message info), `storage/part/<message id>/<part
id>.json` (one part), and `storage/project/<project id>.json` (`worktree`). The
migration leaves these files in place, so a session can be in both stores; the
SQLite one is then read (`files.listing`).

The per-project store of the versions before this one (`project_storage`) keeps the
same kinds of files in other folders; a session file of either is read here, each
file looked for where its layout keeps it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.mend import decoded
from learn.transcripts.opencode.export import encode_session
from learn.transcripts.opencode.project_storage import directory_of, is_project_session

__all__ = ["StoredSession", "export_session", "session_of", "sessions", "stamp"]

_ANY = msgspec.json.Decoder()


class StoredSession(msgspec.Struct, frozen=True):
    path: Path
    id: str
    directory: str | None
    parent_id: str | None
    mtime: float
    size: int


def _read(path: Path, bad: list[Path] | None = None) -> dict[str, Any]:
    """The JSON object in `path`; {} when it holds none (`path` added to `bad`)."""
    try:
        got = decoded(_ANY.decode, path.read_bytes())  # transcripts.mend
    except (msgspec.DecodeError, RecursionError):  # nested too deep (~1,000 levels): as bad
        got = None
    if isinstance(got, dict):
        return got
    if bad is not None:
        bad.append(path)
    return {}


def _storage(session_file: Path) -> Path:
    return session_file.parent.parent.parent


def _message_dir(path: Path) -> Path:
    """Where a session's message files are, in its layout."""
    if is_project_session(path):
        return _storage(path) / "session" / "message" / path.stem
    return _storage(path) / "message" / path.stem


def _part_dir(path: Path, message_id: str) -> Path:
    """Where a message's part files are, in its session's layout."""
    if is_project_session(path):
        return _storage(path) / "session" / "part" / path.stem / message_id
    return _storage(path) / "part" / message_id


def session_of(path: Path) -> StoredSession:
    """A session file's facts. Raises OSError."""
    st = path.stat()
    info = _read(path)
    directory = info.get("directory")
    if (not isinstance(directory, str) or not directory) and is_project_session(path):
        directory = directory_of(_messages(path), _read)
    elif not isinstance(directory, str) or not directory:
        project = _read(_storage(path) / "project" / f"{path.parent.name}.json") \
            if (_storage(path) / "project" / f"{path.parent.name}.json").is_file() else {}
        worktree = project.get("worktree")
        directory = worktree if isinstance(worktree, str) and worktree != "/" else None
    parent = info.get("parentID")
    return StoredSession(path, path.stem, directory, parent if isinstance(parent, str) else None,
                         st.st_mtime, st.st_size)


def sessions(storage: Path) -> Iterator[Path]:
    """The session files of a JSON store, by name (not opened)."""
    root = storage / "session"
    try:
        projects = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for project in projects:
        if not project.is_dir():
            continue
        try:
            names = sorted(os.listdir(project.path))
        except OSError:
            continue
        for name in names:
            if name.endswith(".json") and not name.startswith("."):
                yield Path(project.path) / name


def _messages(path: Path) -> list[Path]:
    directory = _message_dir(path)
    try:
        return [directory / n for n in sorted(os.listdir(directory)) if n.endswith(".json")]
    except OSError:
        return []


def stamp(path: Path) -> tuple[int, int, int] | None:
    """(files, newest change in ns, the session file's inode); None when it is gone.

    A reply updates its message file when it finishes, so the session file and
    its message files say when anything changed: one folder listing, no part read.
    """
    try:
        st = path.stat()
    except OSError:
        return None
    count, newest = 1, st.st_mtime_ns
    for message in _messages(path):
        try:
            mst = message.stat()
        except OSError:
            continue
        count += 1
        newest = max(newest, mst.st_mtime_ns)
    return count, newest, st.st_ino


def export_session(path: Path) -> bytes:
    """One session of the JSON store as the canonical buffer. Raises OSError."""
    facts = session_of(path)
    bad: list[Path] = []  # message and part files that hold no JSON object
    info = _read(path, bad)
    messages = []
    for message in _messages(path):
        data = _read(message, bad)
        mid = message.stem
        parts_dir = _part_dir(path, mid)
        try:
            names = sorted(n for n in os.listdir(parts_dir) if n.endswith(".json"))
        except OSError:
            names = []
        parts = [{"id": n[:-5], **{k: v for k, v in _read(parts_dir / n, bad).items()
                                   if k not in ("id", "sessionID", "messageID")}}
                 for n in names]
        if not parts and isinstance(data.get("parts"), list):
            parts = [p for p in data["parts"] if isinstance(p, dict)]  # parts inside the message
        info_only = {k: v for k, v in data.items() if k not in ("id", "sessionID", "parts")}
        messages.append((_created(info_only), mid, info_only, parts))
    messages.sort(key=lambda m: (m[0], m[1]))
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    if not time and messages:  # the earliest builds' session file kept no time
        time = {"created": messages[0][0], "updated": messages[-1][0]}
    head = {"id": facts.id, "directory": facts.directory, "parentID": facts.parent_id,
            "title": info.get("title"), "version": info.get("version"), "time": time,
            "store": "files", "permission": info.get("permission")}
    return encode_session(head, [(mid, data, parts) for _, mid, data, parts in messages],
                          unreadable=len(bad))


def _created(info: dict[str, Any]) -> int | float:
    """When a message was created, for the order: `time.created`, or the first builds'
    `metadata.time.created` (`project_storage`); 0 when it says neither."""
    for holder in (info, info.get("metadata")):
        time = holder.get("time") if isinstance(holder, dict) else None
        created = time.get("created") if isinstance(time, dict) else None
        if isinstance(created, int | float) and not isinstance(created, bool):
            return created
    return 0
