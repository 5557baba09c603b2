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
from learn.hook_input import event_fields, hook_object
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
    try:
        session_id, path = event_fields(data, "SessionEnd", "transcript_path")
    except ValueError as exc:
        raise BadHookInput(str(exc)) from exc

    def opt(name: str) -> str | None:
        v = data.get(name)
        return v if isinstance(v, str) else None

    return SessionEnded(session_id, path, cwd=opt("cwd"), reason=opt("reason"))
