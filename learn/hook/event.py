"""Claude Code's SessionEnd hook input, read from stdin.

The input is one JSON object: session_id, transcript_path, cwd,
hook_event_name ("SessionEnd") and reason ("clear", "logout",
"prompt_input_exit", "other", ...). Fields beyond these are ignored, and a
reason we do not know is kept as given: Claude Code adds reasons over time.

stdin is read with a deadline, never to EOF alone (learn.hook_input).
"""

from __future__ import annotations

from dataclasses import dataclass

from learn.hook_input import MAX_INPUT_BYTES as MAX_INPUT_BYTES
from learn.hook_input import hook_object, safe_session_id
from learn.hook_input import read_stdin as read_stdin


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
        data = hook_object(raw)
    except ValueError as exc:
        raise BadHookInput(str(exc)) from exc
    event = data.get("hook_event_name")
    if event is not None and event != "SessionEnd":
        raise BadHookInput(f"not a SessionEnd event: {event!r}")
    session_id, path = data.get("session_id"), data.get("transcript_path")
    if not isinstance(session_id, str) or not safe_session_id(session_id):
        raise BadHookInput(f"no usable session_id: {session_id!r}")
    if not isinstance(path, str) or not path:
        raise BadHookInput("no transcript_path")

    def opt(name: str) -> str | None:
        v = data.get(name)
        return v if isinstance(v, str) else None

    return SessionEnded(session_id, path, cwd=opt("cwd"), reason=opt("reason"))
