"""Where Gemini CLI keeps a person's sessions, and which project each folder is.

`<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/` (and `logs.json` beside it:
`gemini.logs`). The folder is named by
the project: a sha256 of its root path (to about 0.5x), then a short slug
registered in `~/.gemini/projects.json` (`{"projects": {<root>: <slug>}}`) with
the root written into `tmp/<slug>/.project_root` (projectRegistry.ts). No
session record carries a working directory, so the folder decides the project:
its `.project_root`, else the registry, else a hash matched against the roots
the registry knows and the project being asked about.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import msgspec

from learn.lazy import lazy_pattern
from learn.windows_names import not_opened

__all__ = ["SessionHead", "gemini_dir", "head_of", "project_of_file", "project_roots"]

_ANY = msgspec.json.Decoder()
_HEAD_BYTES: Final = 64 * 1024
_SESSION_ID_RE: Final = lazy_pattern(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')
_HASH_RE: Final = lazy_pattern(r"\A[0-9a-f]{64}\Z")


def gemini_dir(home: Path | None = None) -> Path:
    """`~/.gemini`, or under `$GEMINI_CLI_HOME` (the client's own override of home)."""
    value = os.environ.get("GEMINI_CLI_HOME")
    return (Path(value).expanduser() if value else home or Path.home()) / ".gemini"


def _hash(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()


def project_roots(base: Path, known: Iterable[Path] = ()) -> dict[str, str]:
    """Folder name under `tmp/` -> the project root it stands for, where it can be told."""
    roots: dict[str, str] = {}
    candidates: list[str] = []
    try:
        registry = _ANY.decode((base / "projects.json").read_bytes())
    except (OSError, msgspec.DecodeError, RecursionError):  # nested too deep: unread, as bad
        registry = None
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if isinstance(projects, dict):
        for root, slug in projects.items():
            if isinstance(root, str) and isinstance(slug, str):
                roots.setdefault(slug, root)
                candidates.append(root)
    for path in known:
        candidates.append(str(path))
        # A folder on a share is never resolved (learn.windows_names.not_opened:
        # resolving asks its server, with the person's login): its spelling only.
        if not_opened(str(path)) is None:
            candidates.append(os.path.realpath(path))
    tmp = base / "tmp"
    try:
        names = sorted(os.listdir(tmp))
    except OSError:
        names = []
    for name in names:
        try:
            marker = (tmp / name / ".project_root").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            marker = ""
        if marker:
            roots[name] = marker
    hashes = {_hash(c): c for c in candidates}
    for name in names:
        if name not in roots and _HASH_RE.match(name) and name in hashes:
            roots[name] = hashes[name]
    return roots


def project_of_file(path: Path) -> str | None:
    """The project root of the folder a chats file (or a session of its `logs.json`,
    `gemini.logs`) sits in, as far as the folder tells."""
    chats = next((p for p in path.parents if p.name == "chats"), None)
    if chats is not None:
        folder = chats.parent
    elif path.parent.name == "logs.json":
        folder = path.parent.parent
    else:
        return None
    try:
        marker = (folder / ".project_root").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        marker = ""
    if marker:
        return marker
    return _registry_root(folder.parent.parent, folder.name)


def _registry_root(base: Path, name: str) -> str | None:
    try:
        registry = _ANY.decode((base / "projects.json").read_bytes())
    except (OSError, msgspec.DecodeError, RecursionError):
        return None
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(projects, dict):
        return None
    for root, slug in projects.items():
        if isinstance(root, str) and (slug == name or _hash(root) == name):
            return root
    return None


class SessionHead(msgspec.Struct, frozen=True):
    session_id: str | None
    kind: str | None  # "subagent" for a subagent's file
    parent_id: str | None  # the session a subagent's folder names


def head_of(path: Path) -> SessionHead:
    """The session id and kind from a chats file's first KB. Raises OSError."""
    with path.open("rb") as fh:
        data = fh.read(_HEAD_BYTES)
    session_id: str | None = None
    kind: str | None = None
    first = data.split(b"\n", 1)[0]
    try:
        line = _ANY.decode(first)
    except (msgspec.DecodeError, RecursionError):  # the id is then looked for in the bytes
        line = None
    if isinstance(line, dict):
        sid = line.get("sessionId")
        session_id = sid if isinstance(sid, str) and sid else None
        kind = line.get("kind") if isinstance(line.get("kind"), str) else None
    if session_id is None:
        match = _SESSION_ID_RE.search(data)  # the JSON era: pretty-printed, the id near the top
        session_id = match.group(1).decode("utf-8", "replace") if match else None
    parent = path.parent.name if path.parent.name != "chats" else None
    if parent is not None:
        kind = kind or "subagent"
    return SessionHead(session_id, kind, parent)
