"""Where Copilot CLI keeps a person's sessions, and what a session's head says.

`<COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl`, with a
`workspace.yaml` beside it (`cwd:`, `git_root:`, `repository:`, `branch:`).
Early builds (0.0.3xx) wrote `session-state/<session id>.jsonl` and no
`context` in `session.start`; the cwd of those is in no file. The legacy
`history-session-state/<id>.json` (a chat-completions dump with no cwd) is
not read: upstream dropped it and it cannot be placed in a project.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Final

import msgspec

__all__ = ["SessionHead", "copilot_dir", "head_of", "session_id_of", "workspace_cwd"]

_ANY = msgspec.json.Decoder()
_HEAD_BYTES: Final = 64 * 1024
_HEAD_LINES: Final = 200
_YAML_CWD_RE: Final = re.compile(r"^cwd:[ \t]*(.+?)[ \t]*$", re.M)


def copilot_dir(home: Path | None = None) -> Path:
    """`~/.copilot`, or `$COPILOT_HOME` (the client's own override)."""
    value = os.environ.get("COPILOT_HOME")
    return Path(value).expanduser() if value else (home or Path.home()) / ".copilot"


def session_id_of(path: Path) -> str:
    """A session's id from its place: the folder of `events.jsonl`, else the file's stem."""
    return path.parent.name if path.name == "events.jsonl" else path.stem


class SessionHead(msgspec.Struct, frozen=True):
    session_id: str
    cwd: str | None


def head_of(path: Path) -> SessionHead:
    """The session id and cwd from the stream's first lines, else `workspace.yaml`. Raises OSError."""
    with path.open("rb") as fh:
        data = fh.read(_HEAD_BYTES)
    session_id, cwd = session_id_of(path), None
    for count, raw in enumerate(data.split(b"\n")):
        if count >= _HEAD_LINES:
            break
        try:
            line = _ANY.decode(raw)
        except (msgspec.DecodeError, RecursionError):  # too deep is as unreadable as not JSON
            continue
        if not isinstance(line, dict) or line.get("type") not in ("session.start",
                                                                   "session.resume"):
            continue
        payload: dict[str, Any] = line["data"] if isinstance(line.get("data"), dict) else {}
        sid = payload.get("sessionId")
        if isinstance(sid, str) and sid:
            session_id = sid
        context = payload.get("context")
        if isinstance(context, dict) and isinstance(context.get("cwd"), str) and context["cwd"]:
            cwd = context["cwd"]
            break
    if cwd is None and path.name == "events.jsonl":
        cwd = workspace_cwd(path.parent / "workspace.yaml")
    return SessionHead(session_id, cwd)


def workspace_cwd(path: Path) -> str | None:
    """`cwd:` of a session's workspace.yaml (a flat mapping; read without a YAML parser)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    match = _YAML_CWD_RE.search(text)
    if match is None:
        return None
    value = match.group(1)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None
