"""What the Gemini CLI, Copilot CLI and OpenCode lowerings share: an envelope and a few shapes.

Those clients write no Claude Code envelope (uuid, parent link, cwd on every
line), so each lowering synthesizes one through a `Chain`, exactly as the Codex
lowering does: a uuid "<session id>:<key>" stable across re-parses, and a parent
link to the previous event unless the client's own records say otherwise (a
Gemini rewind). Everything downstream (the session view, the detectors) then
reads one event model for five agents.

A person declining a tool call is lowered into the event model's one shape for
it, Claude Code's denial banner with the reason after its marker
(`denial_content`), so every reader of denials (the view's typed reasons, the
denial detector) reads all agents the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.blocks import ToolResultBlock
from learn.transcripts.claude.literals import (
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
    DENIAL_PREFIX,
    USER_SAID_MARKER,
)
from learn.transcripts.claude.wire import LazyOther
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.models import AssistantEvent, EntryMeta, TranscriptEvent, UserEvent

__all__ = [
    "Chain", "Lowered", "as_dict", "as_str", "denial_content", "dropped", "flatten", "json_text",
    "lazy", "timestamp",
]

# A lowering's output: events (bookkeeping kept as LazyOther, materialized when
# read) and skip counts by reason, like the Claude and Codex parsers'.
Lowered = tuple[list[TranscriptEvent | LazyOther], dict[str, int]]

_ENCODE = msgspec.json.Encoder()
_KEEP: Any = object()


class Chain:
    """The synthesized envelope of one session: ids, cwd, and the parent chain."""

    def __init__(self, path: Path | None, *, entrypoint: str | None = None) -> None:
        self.session_id = ""
        self.cwd: str | None = None
        self.version: str | None = None
        self.entrypoint = entrypoint
        self.parent: str | None = None
        self.path_key = str(path) if path is not None else ""

    def uid(self, key: str) -> str:
        return f"{self.session_id or self.path_key}:{key}"

    def meta(self, key: str, at: datetime, *, parent: str | None = _KEEP,
             sidechain: bool = False, is_meta: bool = False) -> EntryMeta:
        """The envelope of the next event; it becomes the parent of the one after."""
        uid = self.uid(key)
        meta = EntryMeta(
            uid, self.session_id, at, self.parent if parent is _KEEP else parent, self.cwd,
            None, self.version, sidechain, is_meta, self.entrypoint,
        )
        self.parent = uid
        return meta


def timestamp(value: object) -> datetime | None:
    """An aware datetime from an ISO string or epoch milliseconds (OpenCode), else None."""
    if isinstance(value, str):
        try:
            at = datetime.fromisoformat(value)
        except ValueError:
            return None
        # The clients write UTC; a zone-less stamp is read as UTC, not dropped.
        return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        try:
            return datetime.fromtimestamp(value / 1000.0, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def json_text(value: object) -> str:
    """A value as text for a tool result: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return _ENCODE.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        return str(value)


def flatten(parts: object) -> str:
    """The text of a Gemini `PartListUnion`-like value: a string, a part, or a list of parts."""
    if isinstance(parts, str):
        return parts
    if isinstance(parts, dict):
        text = parts.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(parts, list):
        return "".join(flatten(p) for p in parts)
    return ""


def denial_content(reason: str | None) -> str:
    """A declined tool call in the event model's one shape (see the module docstring)."""
    if reason and reason.strip():
        return f"{DENIAL_PREFIX}. {USER_SAID_MARKER}{reason.strip()}"
    return f"{DENIAL_PREFIX}."


def declined(call_id: str, reason: str | None = None) -> ToolResultBlock:
    """The result of a call the person declined (with what they said, if anything)."""
    return ToolResultBlock(tool_use_id=call_id, content=denial_content(reason), is_error=True,
                           denial_kind=DENIAL_KIND_USER_REJECTED)


def refused(call_id: str, text: str) -> ToolResultBlock:
    """The result of a call a rule, a policy or a hook refused: a program's words, kept as
    they are, never the person's reason."""
    return ToolResultBlock(tool_use_id=call_id, content=text, is_error=True,
                           denial_kind=DENIAL_KIND_PERMISSION_RULE)


def lazy(kind: str, record: object) -> LazyOther:
    """A bookkeeping record kept as an OtherEvent of `kind`, decoded only when read."""
    return LazyOther(kind, _ENCODE.encode(record) if not isinstance(record, bytes) else record)


def dropped(event: TranscriptEvent | LazyOther, spec: FilterSpec | None) -> bool:
    """Whether a FilterSpec drops this lowered event (its type, sidechain or meta flags)."""
    if spec is None:
        return False
    if isinstance(event, UserEvent | AssistantEvent):
        if ("user" if isinstance(event, UserEvent) else "assistant") in spec.types:
            return True
        return (spec.sidechain and event.meta.is_sidechain) or (spec.meta and event.meta.is_meta)
    return isinstance(event, LazyOther) and event.type in spec.types


def as_dict(value: object) -> dict[str, Any]:
    """A record's field when it is an object, else an empty one (the clients' shapes vary)."""
    return value if isinstance(value, dict) else {}


def as_str(value: object, default: str = "") -> str:
    """A record's field when it is a string, else `default`."""
    return value if isinstance(value, str) else default
