"""What a hook reads: one JSON object on stdin, read with a deadline, never to EOF alone.

A hook that waits on a pipe Claude Code keeps open is reported as "Hook
cancelled" at every exit (seen in the wild with a bare `cat`). Standard library
only: learn's check (learn.guard) reads its input with this on every shell call.
"""

from __future__ import annotations

import json
import os
import re
import select
import time
from typing import Any, BinaryIO, Final

MAX_INPUT_BYTES: Final = 1 << 20
# Session ids name files (Claude: `<uuid>.jsonl`); anything else could walk out of
# the folder it is written in.
_SAFE_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def safe_session_id(value: object) -> bool:
    """Is `value` a session id learn may use as a file name?"""
    return isinstance(value, str) and bool(_SAFE_ID.match(value)) and ".." not in value


def hook_object(raw: bytes) -> dict[str, Any]:
    """The hook input as a JSON object; ValueError saying what is wrong otherwise."""
    try:
        data = json.loads(raw.decode("utf-8", errors="replace") or "null")
    except ValueError as exc:
        raise ValueError(f"hook input is not JSON: {exc}") from exc
    except RecursionError:  # json's limit is the stack's: ~1,000 levels
        raise ValueError("hook input is not JSON: nested too deep to read") from None
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    return data


def event_fields(data: dict[str, Any], event: str, field: str) -> tuple[str, str]:
    """(session id, `field`) of one hook input of `event` (an input without
    hook_event_name is taken as one); ValueError saying what is wrong otherwise."""
    name = data.get("hook_event_name")
    if name is not None and name != event:
        raise ValueError(f"not a {event} event: {name!r}")
    sid, value = data.get("session_id"), data.get(field)
    if not isinstance(sid, str) or not safe_session_id(sid):
        raise ValueError(f"no usable session_id: {sid!r}")
    if not isinstance(value, str) or not value:
        raise ValueError(f"no {field}")
    return sid, value


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
        except (ValueError, RecursionError):  # too deep: hook_object says so once it is read
            continue
        break
    return b"".join(chunks)
