"""The public, typed view of a parsed transcript.

Every class here is an immutable msgspec Struct: frozen, compared field by field,
and cheap to build (msgspec constructs Structs in C, which keeps materializing a
50 MB corpus's events inside the parse budget; frozen dataclasses cost ~2x more
per instance). Names follow the seed (`001`), spelled snake_case.

Mapping-valued fields (`raw`, `input`, `tool_use_result`, ...) hold the decoded
JSON verbatim as plain dicts (`tool_use_result` only the keys learn reads):
only the top level of a model is frozen. Treat them as read-only; nothing in
`learn` mutates them.

The wire shapes msgspec decodes lines into live in `claude/wire.py`; these are what
callers see.

The event model is split by what its parts are: the envelope and the events
here, `ids` (the id aliases), `blocks` (usage and content blocks), `details`
(system and attachment details) and `printmode` (what `claude -p` prints).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias, overload

import msgspec

from learn.transcripts.blocks import (
    ApiError,
    Attribution,
    ContentBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from learn.transcripts.details import AttachmentDetail, SystemDetail
from learn.transcripts.ids import CcVersion, EventUuid, Provider, SessionId, ToolUseId

# ---------------------------------------------------------------- envelope


class EntryMeta(msgspec.Struct, frozen=True, gc=False):
    """Envelope metadata shared by the conversational transcript events."""

    uuid: EventUuid
    session_id: SessionId
    timestamp: datetime
    parent_uuid: EventUuid | None = None
    cwd: str | None = None
    git_branch: str | None = None
    cc_version: CcVersion | None = None
    is_sidechain: bool = False
    is_meta: bool = False
    entrypoint: str | None = None
    is_compact_summary: bool = False
    is_visible_in_transcript_only: bool = False
    user_type: str | None = None
    slug: str | None = None
    # Not in the seed: subagent transcripts carry agentId, and the session view
    # uses it to tell a subagent's lines from the parent's.
    agent_id: str | None = None
    # Not in the seed: the session a `/branch` (`/fork`) copied this entry from
    # (`forkedFrom.sessionId`): what it says was typed there first; and the entry's
    # uuid there, when the copy carries another.
    copied_from: str | None = None
    copied_uuid: str | None = None


# ---------------------------------------------------------------- events


class UserEvent(msgspec.Struct, frozen=True, gc=False):
    """A user turn."""

    meta: EntryMeta
    text: str = ""
    blocks: tuple[ContentBlock, ...] = ()
    interrupted: bool = False
    is_agent_injected: bool = False
    prompt_id: str | None = None
    prompt_source: str | None = None
    queue_priority: str | None = None
    image_paste_ids: tuple[int, ...] | None = None
    source_tool_use_id: ToolUseId | None = None
    source_tool_assistant_uuid: EventUuid | None = None
    mcp_meta: Mapping[str, Any] | None = None
    permission_mode: str | None = None
    interrupted_message_id: str | None = None
    # Not in the seed: `origin.kind` from 2026 builds ("human", ...), the best
    # typed-by-a-person signal when present.
    origin_kind: str | None = None


class AssistantEvent(msgspec.Struct, frozen=True, gc=False):
    """An assistant turn."""

    meta: EntryMeta
    model: str
    text: str = ""
    blocks: tuple[ContentBlock, ...] = ()
    stop_reason: str | None = None
    usage: Usage | None = None
    request_id: str | None = None
    forked_from: str | None = None
    attribution: Attribution | None = None
    api_error: ApiError | None = None
    # Not in the seed: message.id, which UserEvent.interrupted_message_id names
    # and which several lines of one API message share.
    message_id: str | None = None


class SystemEvent(msgspec.Struct, frozen=True, gc=False):
    """A system entry, such as a hook summary or notice."""

    meta: EntryMeta
    subtype: str
    detail: SystemDetail
    content: str | None = None
    level: str | None = None


class ModeEvent(msgspec.Struct, frozen=True, gc=False):
    """A mode or permission-mode change marker (no envelope on disk)."""

    session_id: SessionId
    channel: Literal["mode", "permission-mode"]
    value: str


class OtherEvent(msgspec.Struct, frozen=True, gc=False):
    """Any recognized entry without a guaranteed conversational envelope."""

    type: str
    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)


class AttachmentEvent(msgspec.Struct, frozen=True, gc=False):
    """A harness attachment record carrying the full envelope it was written with."""

    meta: EntryMeta
    attachment_type: str
    detail: AttachmentDetail


TranscriptEvent: TypeAlias = (
    UserEvent | AssistantEvent | SystemEvent | ModeEvent | OtherEvent | AttachmentEvent
)


# ---------------------------------------------------------------- event list

_PUBLIC_EVENT_TYPES: frozenset[type] = frozenset(
    {UserEvent, AssistantEvent, SystemEvent, ModeEvent, OtherEvent, AttachmentEvent}
)


class EventList(Sequence[TranscriptEvent]):
    """An immutable sequence of transcript events that materializes lazily.

    The parser keeps each line's decoded wire struct and builds the public
    event the first time it is read (then keeps it), so a consumer that only
    counts events, or reads a few, never pays for the rest. Equality is
    elementwise against any list, tuple or EventList. Identity across reads is
    not promised.
    """

    __slots__ = ("_builders", "_items")

    def __init__(
        self,
        items: Iterable[object] = (),
        builders: Mapping[type, Callable[[Any], TranscriptEvent]] | None = None,
    ) -> None:
        # `builders` maps each wire record's type to the function that builds its
        # event (`claude.events.BUILDERS`): looked up as the list is read, without
        # a call through a converter that looked it up again (a call per event;
        # with the builders' EntryMeta made inline, parse and read of the spread
        # bench home's Claude files ran 0.95x the instructions).
        self._items: list[Any] = list(items)
        self._builders: Mapping[type, Callable[[Any], TranscriptEvent]] = builders or {}

    def _at(self, index: int) -> TranscriptEvent:
        item = self._items[index]
        build = self._builders.get(type(item))
        if build is None:
            if type(item) in _PUBLIC_EVENT_TYPES:
                return item  # type: ignore[no-any-return]
            raise TypeError(f"EventList item {index} is not an event: {type(item).__name__}")
        event = build(item)
        self._items[index] = event
        return event

    @overload
    def __getitem__(self, index: int) -> TranscriptEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[TranscriptEvent]: ...

    def __getitem__(self, index: int | slice) -> TranscriptEvent | list[TranscriptEvent]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self._items)))]
        return self._at(index)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[TranscriptEvent]:
        # Inlined rather than calling _at per item: iteration is the hot path
        # (every consumer walks every event), and the call cost ~10% of it.
        items = self._items
        public = _PUBLIC_EVENT_TYPES
        builder = self._builders.get
        for i, item in enumerate(items):
            build = builder(type(item))
            if build is not None:
                item = build(item)
                items[i] = item
            elif type(item) not in public:
                raise TypeError(f"EventList item {i} is not an event: {type(item).__name__}")
            yield item

    def materialized(self) -> list[TranscriptEvent]:
        """Every event, built now, in a new list: `list(self)` without a generator step
        per event (a reader of every event, `build_session`, asks this: callgrind,
        building the spread bench home's events, 250 sessions, took 0.969x the
        instructions)."""
        items = self._items
        public = _PUBLIC_EVENT_TYPES
        builder = self._builders.get
        for i, item in enumerate(items):
            build = builder(type(item))
            if build is not None:
                items[i] = build(item)
            elif type(item) not in public:
                raise TypeError(f"EventList item {i} is not an event: {type(item).__name__}")
        return items.copy()

    def __reversed__(self) -> Iterator[TranscriptEvent]:
        at = self._at
        for i in range(len(self._items) - 1, -1, -1):
            yield at(i)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EventList | list | tuple):
            return NotImplemented
        if len(self) != len(other):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Iterable[TranscriptEvent]) -> list[TranscriptEvent]:
        return [*self, *other]

    def __radd__(self, other: Iterable[TranscriptEvent]) -> list[TranscriptEvent]:
        return [*other, *self]

    def copy(self) -> list[TranscriptEvent]:
        """A plain, mutable list of the events."""
        return list(self)

    def __copy__(self) -> EventList:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> EventList:
        return self

    def __reduce__(self) -> tuple[type[EventList], tuple[list[TranscriptEvent]]]:
        # Pickles as its materialized events, so a process pool can ship it.
        return (EventList, (list(self),))

    def __repr__(self) -> str:
        return f"EventList(<{len(self._items)} events>)"


# ---------------------------------------------------------------- transcript


class Transcript(msgspec.Struct, frozen=True, gc=False):
    """The parsed events of one transcript file, plus what was skipped and why.

    `skipped` counts dropped lines by reason: "undecodable" (not JSON, bad
    UTF-8, a truncated last line), "not_object" (valid JSON that is not an
    object), "invalid" (an object that fails the typed parse: a user line
    without a uuid, a timestamp without an offset, ...). Blank lines are not
    counted. Lines a FilterSpec drops are not skips either.
    """

    path: Path | None
    mtime: float
    provider: Provider
    events: EventList
    skipped: Mapping[str, int] = msgspec.field(default_factory=dict)
    skipped_lines: int = 0
    size_bytes: int = 0


# ---------------------------------------------------------------- helpers


def _blocks_of(event: object) -> Sequence[ContentBlock]:
    blocks = getattr(event, "blocks", None)
    return blocks if isinstance(blocks, tuple) else ()


def tool_uses(event: object) -> tuple[ToolUseBlock, ...]:
    """The event's tool-use blocks, in content order (empty for blockless events)."""
    return tuple(b for b in _blocks_of(event) if isinstance(b, ToolUseBlock))


def thinking_chars(event: object) -> int:
    """The total character count of the event's extended-thinking blocks."""
    return sum(len(b.thinking) for b in _blocks_of(event) if isinstance(b, ThinkingBlock))


def iter_blocks(events: Sequence[TranscriptEvent]) -> Iterator[ContentBlock]:
    """Every content block of every event, in order."""
    for event in events:
        yield from _blocks_of(event)
