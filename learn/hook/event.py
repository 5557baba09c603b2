"""Claude Code's SessionEnd hook input, read from stdin.

The input is one JSON object: session_id, transcript_path, cwd,
hook_event_name ("SessionEnd") and reason ("clear", "logout",
"prompt_input_exit", "other", ...). Fields beyond these are ignored, and a
reason we do not know is kept as given: Claude Code adds reasons over time.

stdin is read with a deadline, never to EOF alone: a hook that waits on a pipe
Claude Code keeps open is reported as "Hook cancelled" at every exit (seen in
the wild with a bare `cat`).
"""

from __future__ import annotations

import json
import os
import re
import select
import time
from dataclasses import dataclass
from typing import BinaryIO, Final

# Session ids are file names (Claude: `<uuid>.jsonl`); anything else could
# walk out of the queue directory.
_SAFE_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
MAX_INPUT_BYTES: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class SessionEnded:
    session_id: str
    transcript_path: str
    cwd: str | None = None
    reason: str | None = None


class BadHookInput(ValueError):
    pass


def parse_event(raw: bytes) -> SessionEnded:
    """The ended session named by one hook input, or BadHookInput saying what is wrong."""
    try:
        data = json.loads(raw.decode("utf-8", errors="replace") or "null")
    except ValueError as exc:
        raise BadHookInput(f"hook input is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadHookInput("hook input is not a JSON object")
    event = data.get("hook_event_name")
    if event is not None and event != "SessionEnd":
        raise BadHookInput(f"not a SessionEnd event: {event!r}")
    session_id, path = data.get("session_id"), data.get("transcript_path")
    if not isinstance(session_id, str) or not _SAFE_ID.match(session_id) or ".." in session_id:
        raise BadHookInput(f"no usable session_id: {session_id!r}")
    if not isinstance(path, str) or not path:
        raise BadHookInput("no transcript_path")

    def opt(name: str) -> str | None:
        v = data.get(name)
        return v if isinstance(v, str) else None

    return SessionEnded(session_id, path, cwd=opt("cwd"), reason=opt("reason"))


def read_stdin(stream: BinaryIO, *, timeout: float = 1.0) -> bytes:
    """What arrives on `stream` until EOF or `timeout` seconds, at most 1 MiB."""
    fd = stream.fileno()
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while size < MAX_INPUT_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        # One JSON object is the whole input: stop as soon as it parses, in case
        # the writer never closes the pipe.
        try:
            json.loads(b"".join(chunks))
        except ValueError:
            continue
        break
    return b"".join(chunks)
