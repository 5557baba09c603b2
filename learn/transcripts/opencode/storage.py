"""OpenCode's JSON store, of the versions before the SQLite one.

Layout (what `json-migration.ts` reads into the SQLite store, 0.x-1.x):
`storage/session/<project id>/<session id>.json` (`{id, projectID, directory,
parentID?, title, version, time: {created, updated}}`), `storage/message/<session
id>/<message id>.json` (the message info), `storage/part/<message id>/<part
id>.json` (one part), and `storage/project/<project id>.json` (`worktree`). The
migration leaves these files in place, so a session can be in both stores; the
SQLite one is then read (`files.listing`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.mend import decoded
from learn.transcripts.opencode.export import encode_session

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


def session_of(path: Path) -> StoredSession:
    """A session file's facts. Raises OSError."""
    st = path.stat()
    info = _read(path)
    directory = info.get("directory")
    if not isinstance(directory, str) or not directory:
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
    directory = _storage(path) / "message" / path.stem
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
    storage = _storage(path)
    messages = []
    for message in _messages(path):
        data = _read(message, bad)
        mid = message.stem
        parts_dir = storage / "part" / mid
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
        created = info_only.get("time", {}).get("created", 0) \
            if isinstance(info_only.get("time"), dict) else 0
        messages.append((created if isinstance(created, int | float) else 0, mid, info_only,
                         parts))
    messages.sort(key=lambda m: (m[0], m[1]))
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    head = {"id": facts.id, "directory": facts.directory, "parentID": facts.parent_id,
            "title": info.get("title"), "version": info.get("version"), "time": time,
            "store": "files"}
    return encode_session(head, [(mid, data, parts) for _, mid, data, parts in messages],
                          unreadable=len(bad))
