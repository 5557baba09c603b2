"""Gemini CLI's log of typed messages (`logs.json`): the only record of a session from
before chat recording.

Every Gemini CLI since its first release (June 2025) keeps, beside `chats/`, one
`~/.gemini/tmp/<project>/logs.json` for the project: a JSON array, rewritten whole on each
message, of `{sessionId, messageId, timestamp, type: "user", message}` (`core/logger.ts`:
`LogEntry`; `messageId` counts up within a session). It holds what the person submitted
at the prompt, as typed: `@file` references unexpanded, slash commands (`/chat save x`,
`/quit`) and shell-mode commands included. It holds no reply, no tool call and no result.
Builds before chat recording (about 0.1-0.2) wrote nothing else of a session: their
`checkpoint*.json` files are `/chat save` snapshots of the model's history (`Content[]`,
later `{history, authType}`) with no session id, the same typed turns again with `@file`
contents expanded into them, so they are not read as turns; `logs.json` already has
those turns. They are read for one thing: the shell-mode commands they name (below).

A session of the log is named by a path that is not a file, `<logs.json>/<session id>`,
as an OpenCode store's session is (`files.sources`). It is read as a chats file in the
JSONL shape (`record`), typed turns only, so one lowering serves both. A session that
also has a chats file (every session of a client that records chats still logs here) is
read from that file alone (`files.agent_listings`): one count per session. So is a
session resumed from its chats file by a build whose log kept the new process's id
(`useLogger` took the id the process started with, `--resume` changed only the
recording's): its entries all fall while that chats file was being written.

A shell-mode command (`!cmd`) is logged without its `!` (0.61: `!echo hi` logged as
"echo hi"), so the log alone reads it as a prompt. The client keeps the project's last
100 such commands in `shell_history` beside the log (`useShellHistory`): an entry equal
to one of them is read as Claude Code's `<bash-input>` record, a shell line, not typed.
One older than those 100 is one too when a saved history of the project names it
(`checkpoints`: the client puts each finished shell command in the model's history, and
`/chat save` or checkpointing keeps that history beside the log); with neither it is
still read as typed: the entry itself has no mark of the mode.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from learn.lazy import lazy_pattern
from learn.transcripts.gemini.checkpoints import checkpoint_shell_commands
from learn.transcripts.lowering import timestamp
from learn.transcripts.mend import decoded

__all__ = [
    "LOGS_NAME",
    "SHELL_HISTORY_NAME",
    "LoggedSession",
    "LogsUnreadable",
    "export_session",
    "in_logs",
    "logged_sessions",
    "session_path",
    "shell_commands",
    "stamp",
]

LOGS_NAME: Final = "logs.json"
SHELL_HISTORY_NAME: Final = "shell_history"
# The client keeps 100 commands; a file past this is no history of its writing.
_SHELL_HISTORY_MAX_BYTES: Final = 1 << 20
_LOGS_PART: Final = LOGS_NAME + os.sep
_ANY = msgspec.json.Decoder()
_ENCODE = msgspec.json.Encoder()
# "/name args": a slash command, whose arguments are typed and whose name is not (the
# event model's command record). A path typed first ("/usr/bin is gone") is no command.
_COMMAND_RE: Final = lazy_pattern(r"\A/[A-Za-z][\w:.-]*(?:\s|\Z)")


class LogsUnreadable(OSError):
    """A `logs.json` that holds no JSON array (Gemini CLI itself then moves it aside)."""


class LoggedSession(msgspec.Struct, frozen=True):
    id: str
    entries: int  # every entry naming the session, good or not
    newest: float  # epoch seconds of its newest timestamp; 0.0 when none reads
    oldest: float  # and of its oldest


@dataclass(frozen=True, slots=True)
class _Snapshot:
    sessions: dict[str, list[Any]]  # session id -> its entries, in the file's order
    orphans: int  # entries naming no session


# One snapshot per log and state of the file: discovery asks for every session's stamp
# and head, and each would otherwise read and decode the whole log again.
_SNAPSHOTS: dict[str, tuple[tuple[int, int, int], _Snapshot]] = {}


def in_logs(path: Path) -> tuple[Path, str] | None:
    """(the log, session id) when `path` names a session of a `logs.json`, else None."""
    # Asked of every session's path (`sources.in_store`): a search of its string first,
    # the Path's parents (a new object each) only for a path that can be one.
    if _LOGS_PART not in os.fspath(path):
        return None
    if path.parent.name == LOGS_NAME and path.name and path.parent.parent.parent.name == "tmp":
        return path.parent, path.name
    return None


def session_path(logs: Path, session_id: str) -> Path:
    return logs / session_id


def _snapshot(logs: Path) -> tuple[_Snapshot, os.stat_result]:
    st = os.stat(logs)  # raises OSError when it is gone
    # A forked worker keeps its parent's snapshots: the file's state says if one holds.
    key, state = str(logs), (st.st_size, st.st_mtime_ns, st.st_ino)
    got = _SNAPSHOTS.get(key)
    if got is not None and got[0] == state:
        return got[1], st
    try:
        value = decoded(_ANY.decode, logs.read_bytes())  # transcripts.mend
    except (msgspec.DecodeError, RecursionError):  # nested too deep (~1,000 levels): as bad
        raise LogsUnreadable(f"{logs}: not JSON") from None
    if not isinstance(value, list):
        raise LogsUnreadable(f"{logs}: not a JSON array of entries")
    sessions: dict[str, list[Any]] = {}
    orphans = 0
    for entry in value:
        sid = entry.get("sessionId") if isinstance(entry, dict) else None
        # The id names a path (`session_path`): one that could not be is no session.
        if (isinstance(sid, str) and sid and sid not in (".", "..")
                and not any(c in sid for c in "/\\\x00")):
            sessions.setdefault(sid, []).append(entry)
        else:
            orphans += 1
    snap = _Snapshot(sessions, orphans)
    _SNAPSHOTS[key] = (state, snap)
    return snap, st


def _good(entry: Any) -> bool:
    """An entry Gemini CLI itself would read back (`Logger._readLogFile`), of a typed message."""
    return (isinstance(entry, dict) and entry.get("type") == "user"
            and isinstance(entry.get("message"), str)
            and isinstance(entry.get("timestamp"), str)
            and isinstance(entry.get("messageId"), int | float)
            and timestamp(entry["timestamp"]) is not None)


def _times(entries: list[Any]) -> list[float]:
    return [at.timestamp() for e in entries if isinstance(e, dict)
            and (at := timestamp(e.get("timestamp"))) is not None]


def _newest(entries: list[Any]) -> float:
    return max(_times(entries), default=0.0)


def logged_sessions(logs: Path) -> tuple[list[LoggedSession], int]:
    """Every session the log names, newest first, and how many entries name none.
    Raises OSError (`LogsUnreadable` when the file holds no array)."""
    snap, _ = _snapshot(logs)
    found = [LoggedSession(sid, len(entries), max(times, default=0.0), min(times, default=0.0))
             for sid, entries in snap.sessions.items() for times in (_times(entries),)]
    found.sort(key=lambda s: (-s.newest, s.id))
    return found, snap.orphans


def typed_texts(logs: Path, session_id: str) -> list[str]:
    """The messages of one session of the log, as typed (its good entries). Raises OSError."""
    snap, _ = _snapshot(logs)
    return [str(e["message"]) for e in snap.sessions.get(session_id, ()) if _good(e)]


def holds_all(chats: bytes, texts: list[str]) -> bool:
    """Whether a chats file's bytes hold every one of `texts` as a JSON string's body (as
    Gemini CLI's JSON.stringify writes it, which escapes what Python's json does): the
    test that a log session is that file's session resumed under another id."""
    import json

    return all(json.dumps(t, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass") in chats
               for t in texts if t.strip())


def stamp(path: Path) -> tuple[int, int, int] | None:
    """(entries, newest timestamp in ns, the log's inode) of one session; None when gone.

    Another session's message rewrites the whole log, so the log's own stat would say
    every session changed: the session's entries say whether it did."""
    where = in_logs(path)
    if where is None:
        return None
    try:
        snap, st = _snapshot(where[0])
    except OSError:
        return None
    entries = snap.sessions.get(where[1])
    if not entries:
        return None
    return len(entries), int(_newest(entries) * 1e9), st.st_ino


def shell_commands(path: Path) -> str:
    """The commands a `shell_history` holds, as "\\n"-framed lines ("" when it is missing,
    unreadable or too long to be one): the client writes each command as it was run, one
    after another, so a command of several lines is that run of whole lines."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_SHELL_HISTORY_MAX_BYTES + 1)
    except OSError:
        return ""
    if len(data) > _SHELL_HISTORY_MAX_BYTES:
        return ""
    lines = [line.removesuffix("\r").strip()
             for line in data.decode("utf-8", "replace").split("\n")]
    return "\n" + "\n".join(line for line in lines if line) + "\n"


def _in_shell_history(text: str, history: str) -> bool:
    text = "\n".join(line.strip() for line in text.strip().split("\n"))
    return bool(text) and f"\n{text}\n" in history


def export_session(path: Path) -> bytes:
    """One session of the log as a chats file in the JSONL shape (`record`). Raises OSError."""
    where = in_logs(path)
    if where is None:
        raise FileNotFoundError(str(path))
    logs, sid = where
    snap, _ = _snapshot(logs)
    entries = snap.sessions.get(sid)
    if not entries:
        raise FileNotFoundError(f"{logs}: no session {sid}")
    good = [e for e in entries if _good(e)]
    shell = shell_commands(logs.parent / SHELL_HISTORY_NAME)
    saved = checkpoint_shell_commands(logs.parent)
    times = [str(e["timestamp"]) for e in good]
    lines = [_ENCODE.encode({
        "sessionId": sid, "projectHash": logs.parent.name,
        "startTime": min(times, default=None), "lastUpdated": max(times, default=None),
        "source": LOGS_NAME})]
    seen: set[str] = set()
    for entry in good:
        base = f"log-{entry['messageId']}"
        mid, n = base, 1
        while mid in seen:  # two writers gave one number twice (`Logger._updateLogFile`)
            n += 1
            mid = f"{base}.{n}"
        seen.add(mid)
        text: str = entry["message"]
        record: dict[str, Any] = {"id": mid, "timestamp": entry["timestamp"], "type": "user",
                                  "content": text}
        if (shell and _in_shell_history(text, shell)) or text.strip() in saved:
            record["content"] = f"<bash-input>{text}</bash-input>"
        elif _COMMAND_RE.match(text.lstrip()):
            # Beside an empty content, the lowering reads it as the command it names.
            record = {**record, "content": "", "displayContent": text}
        lines.append(_ENCODE.encode(record))
    # An entry that is no typed message (a field missing or of another type): a line the
    # reader counts as skipped ("invalid"), as a bad line of a chats file is.
    lines += [b'{"logs":"invalid"}'] * (len(entries) - len(good))
    return b"\n".join(lines) + b"\n"
