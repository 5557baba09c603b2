"""Context windows: the few turns around a piece of feedback, kept durably.

A judge needs to see what the person was reacting to. Transcripts are pruned
after about 30 days, so a window stores two things: resolvable refs (session +
event uuid) to re-read the real turns while the file exists (`hydrate`, learn.detect.hydrate), and
short previews to fall back on once it is gone ('summary' fidelity).

Turns alternate by role: a "user" turn is text a person typed; an "assistant"
turn is everything the agent did until then, tool results included (a tool
result rides in a user entry on disk, but the agent caused it).
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from learn.detect.structural import is_scaffolding
from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.models import (
    AssistantEvent,
    TranscriptEvent,
    UserEvent,
)

CONTEXT_SCHEMA = "learn.context/1"
SUMMARY_BANNER = "[summary fidelity — transcript unavailable]"
DEFAULT_BEFORE = 6
DEFAULT_AFTER = 2
DEFAULT_PREVIEW_CHARS = 200
TOOL_DIGEST_CHARS = 120

Fidelity = Literal["full", "summary"]
Role = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class EventRef:
    """A resolvable reference to one transcript event (never a file path)."""

    session_id: str
    event_uuid: str
    tool_use_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "event_uuid": self.event_uuid,
            "tool_use_id": self.tool_use_id,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EventRef:
        return cls(str(data["session_id"]), str(data["event_uuid"]), data.get("tool_use_id"))


@dataclass(frozen=True, slots=True)
class TurnRef:
    """One turn: its events' refs, a clipped preview, and one line per tool call."""

    role: Role
    refs: tuple[EventRef, ...]
    preview: str
    tool_digests: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "refs": [r.to_json() for r in self.refs],
            "preview": self.preview,
            "tool_digests": list(self.tool_digests),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnRef:
        role = data["role"]
        if role not in ("user", "assistant"):
            raise ValueError(f"bad turn role {role!r}")
        return cls(
            role,
            tuple(EventRef.from_json(r) for r in data.get("refs", [])),
            str(data.get("preview", "")),
            tuple(str(d) for d in data.get("tool_digests", [])),
        )


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """The turns around one anchor event.

    `anchor_turn` is the turn holding the anchor (None for a sampled negative,
    whose turn is folded into `before`); `trigger` is the agent turn the person
    reacted to; `before` ends just before the trigger (or at the sampled turn);
    `span` is the (before, after) turn budget the window was captured with, so
    `hydrate` can recapture the same shape.
    """

    anchor: EventRef
    anchor_turn: TurnRef | None
    trigger: TurnRef | None
    before: tuple[TurnRef, ...]
    after: tuple[TurnRef, ...]
    fidelity: Fidelity = "full"
    preview_chars: int = DEFAULT_PREVIEW_CHARS
    span: tuple[int, int] = (DEFAULT_BEFORE, DEFAULT_AFTER)

    def turns(self) -> tuple[TurnRef, ...]:
        """Every turn in order."""
        middle = tuple(t for t in (self.trigger, self.anchor_turn) if t is not None)
        return (*self.before, *middle, *self.after)

    def refs(self) -> tuple[EventRef, ...]:
        return tuple(ref for turn in self.turns() for ref in turn.refs)

    def as_summary(self) -> ContextWindow:
        """The same window marked as rendered from previews only."""
        return replace(self, fidelity="summary")

    def render(self) -> str:
        """The previews as text; a summary window says so up front."""
        lines = [SUMMARY_BANNER] if self.fidelity == "summary" else []
        for turn in self.turns():
            lines.append(turn.preview)
            lines.extend(f"  · {d}" for d in turn.tool_digests)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": CONTEXT_SCHEMA,
            "anchor": self.anchor.to_json(),
            "anchor_turn": self.anchor_turn.to_json() if self.anchor_turn else None,
            "trigger": self.trigger.to_json() if self.trigger else None,
            "before": [t.to_json() for t in self.before],
            "after": [t.to_json() for t in self.after],
            "fidelity": self.fidelity,
            "preview_chars": self.preview_chars,
            "span": list(self.span),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ContextWindow:
        if data.get("schema") != CONTEXT_SCHEMA:
            raise ValueError(f"not a {CONTEXT_SCHEMA} window: {data.get('schema')!r}")
        fidelity = data.get("fidelity", "full")
        if fidelity not in ("full", "summary"):
            raise ValueError(f"bad fidelity {fidelity!r}")
        span = data.get("span", [DEFAULT_BEFORE, DEFAULT_AFTER])
        return cls(
            anchor=EventRef.from_json(data["anchor"]),
            anchor_turn=TurnRef.from_json(data["anchor_turn"]) if data.get("anchor_turn") else None,
            trigger=TurnRef.from_json(data["trigger"]) if data.get("trigger") else None,
            before=tuple(TurnRef.from_json(t) for t in data.get("before", [])),
            after=tuple(TurnRef.from_json(t) for t in data.get("after", [])),
            fidelity=fidelity,
            preview_chars=int(data.get("preview_chars", DEFAULT_PREVIEW_CHARS)),
            span=(int(span[0]), int(span[1])),
        )


# --------------------------------------------------------------- turns


@dataclass(slots=True)
class Turn:
    role: Role
    indices: list[int] = field(default_factory=list)


def _role(event: TranscriptEvent) -> Role | None:
    if isinstance(event, AssistantEvent):
        return "assistant"
    if isinstance(event, UserEvent):
        if event.text.strip() and not is_scaffolding(event):
            return "user"
        return "assistant"
    return None  # system, mode, attachment, other: no turn of their own


def split_turns(events: Sequence[TranscriptEvent]) -> list[Turn]:
    """Consecutive same-role user/assistant events, grouped into turns."""
    turns: list[Turn] = []
    for i, event in enumerate(events):
        role = _role(event)
        if role is None:
            continue
        if not turns or turns[-1].role != role:
            turns.append(Turn(role))
        turns[-1].indices.append(i)
    return turns


def turn_of(turns: Sequence[Turn], event_index: int) -> int | None:
    """The position of the turn holding `event_index`, or None (turns are sorted)."""
    t = bisect_right([turn.indices[0] for turn in turns], event_index) - 1
    if t < 0:
        return None
    indices = turns[t].indices
    k = bisect_left(indices, event_index)
    return t if k < len(indices) and indices[k] == event_index else None


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit}ch)"


def _flat(text: str) -> str:
    return " ".join(text.split())


def tool_digest(block: ToolUseBlock, paths: Callable[[str], str] | None = None) -> str:
    """One short line for a tool call: the command, the path, else compact args.

    `paths` shortens the paths in it (to the project's, to ~) before the line is
    cut: cut first, a checkout deeper than the cut lost the project's prefix and
    the line came out different for each folder the same session was read from."""
    inp = block.input
    detail = ""
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
        value = inp.get(key) if isinstance(inp, dict) else None
        if isinstance(value, str) and value:
            detail = value
            break
    else:
        if isinstance(inp, dict) and inp:
            detail = json.dumps(inp, ensure_ascii=False, sort_keys=True, default=str)
    line = _flat(f"{block.name} {detail}".strip())
    return clip(paths(line) if paths is not None else line, TOOL_DIGEST_CHARS)


def _ref(event: TranscriptEvent) -> EventRef | None:
    meta = getattr(event, "meta", None)
    if meta is None:
        return None
    tool_use_id: str | None = None
    for block in getattr(event, "blocks", ()):
        if isinstance(block, ToolResultBlock):
            tool_use_id = block.tool_use_id
            break
    return EventRef(meta.session_id, meta.uuid, tool_use_id)


def turn_ref(events: Sequence[TranscriptEvent], turn: Turn, preview_chars: int,
             paths: Callable[[str], str] | None = None) -> TurnRef:
    refs: list[EventRef] = []
    texts: list[str] = []
    digests: list[str] = []
    for i in turn.indices:
        event = events[i]
        ref = _ref(event)
        if ref is not None:
            refs.append(ref)
        if isinstance(event, AssistantEvent):
            for block in event.blocks:
                if isinstance(block, TextBlock) and block.text.strip():
                    texts.append(block.text)
                elif isinstance(block, ToolUseBlock):
                    digests.append(tool_digest(block, paths))
        elif isinstance(event, UserEvent) and turn.role == "user":
            texts.append(event.text)
    preview = f"{turn.role}: {clip(_flat(' '.join(texts)), preview_chars)}"
    return TurnRef(turn.role, tuple(refs), preview, tuple(digests))


# --------------------------------------------------------------- capture


def load_events(source: bytes | Sequence[TranscriptEvent]) -> Sequence[TranscriptEvent]:
    if isinstance(source, bytes | bytearray | memoryview):
        from learn.transcripts.parser import parse_events_from_bytes

        return list(parse_events_from_bytes(bytes(source)))
    return source


def resolve(events: Sequence[TranscriptEvent], ref: EventRef) -> int | None:
    """The index of the event `ref` names, or None."""
    for i, event in enumerate(events):
        meta = getattr(event, "meta", None)
        if meta is not None and meta.uuid == ref.event_uuid and meta.session_id == ref.session_id:
            return i
    return None


def window_at(
    events: Sequence[TranscriptEvent],
    turns: Sequence[Turn],
    anchor_index: int,
    *,
    before: int,
    after: int,
    preview_chars: int,
    paths: Callable[[str], str] | None = None,
) -> ContextWindow:
    t = turn_of(turns, anchor_index)
    anchor_ref = _ref(events[anchor_index])
    if t is None or anchor_ref is None:
        raise ValueError(f"event {anchor_index} is not part of a user or assistant turn")
    anchor_turn = turns[t]
    trigger: TurnRef | None = None
    first_before = t
    if anchor_turn.role == "user" and t > 0:
        trigger = turn_ref(events, turns[t - 1], preview_chars, paths)
        first_before = t - 1
    before_turns = turns[max(0, first_before - before) : first_before]
    after_turns = turns[t + 1 : t + 1 + after]
    return ContextWindow(
        anchor=anchor_ref,
        anchor_turn=turn_ref(events, anchor_turn, preview_chars, paths),
        trigger=trigger,
        before=tuple(turn_ref(events, x, preview_chars, paths) for x in before_turns),
        after=tuple(turn_ref(events, x, preview_chars, paths) for x in after_turns),
        fidelity="full",
        preview_chars=preview_chars,
        span=(before, after),
    )


def capture_window(
    source: bytes | Sequence[TranscriptEvent],
    anchor: int | EventRef,
    *,
    before: int = DEFAULT_BEFORE,
    after: int = DEFAULT_AFTER,
    preview_chars: int = DEFAULT_PREVIEW_CHARS,
    paths: Callable[[str], str] | None = None,
) -> ContextWindow:
    """The window around `anchor` (an event index into `source`, or a ref); `paths`
    shortens the paths in its tool lines (`tool_digest`).

    Raises LookupError when the anchor does not resolve, ValueError when it is
    not part of a user or assistant turn.
    """
    if before < 0 or after < 0 or preview_chars < 1:
        raise ValueError("before and after must be >= 0 and preview_chars >= 1")
    events = load_events(source)
    if isinstance(anchor, EventRef):
        found = resolve(events, anchor)
        if found is None:
            raise LookupError(f"event {anchor.event_uuid} not in session {anchor.session_id}")
        index = found
    else:
        if not 0 <= anchor < len(events):
            raise LookupError(f"event index {anchor} out of range (0..{len(events) - 1})")
        index = anchor
    return window_at(
        events,
        split_turns(events),
        index,
        before=before,
        after=after,
        preview_chars=preview_chars,
        paths=paths,
    )
