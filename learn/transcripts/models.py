"""The public, typed view of a parsed transcript.

Every class here is an immutable msgspec Struct: frozen, compared field by field,
and cheap to build (msgspec constructs Structs in C, which keeps materializing a
50 MB corpus's events inside the parse budget; frozen dataclasses cost ~2x more
per instance). Names follow the seed (`001`), spelled snake_case.

Mapping-valued fields (`raw`, `input`, `tool_use_result`, ...) hold the decoded
JSON verbatim as plain dicts: only the top level of a model is frozen. Treat
them as read-only; nothing in `learn` mutates them.

The wire shapes msgspec decodes lines into live in `wire.py`; these are what
callers see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias, overload

import msgspec

# Ids are plain strings at run time. NewType would force a call per field on the
# hot path and make every caller wrap literals; the aliases document intent.
EventUuid: TypeAlias = str
SessionId: TypeAlias = str
ToolUseId: TypeAlias = str
CcVersion: TypeAlias = str
Provider: TypeAlias = Literal["claude", "codex"]


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


# ---------------------------------------------------------------- usage


class CacheCreation(msgspec.Struct, frozen=True, gc=False):
    """The split of cache-creation input tokens by TTL bucket."""

    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0


class ServerToolUse(msgspec.Struct, frozen=True, gc=False):
    """Server-side tool invocation counts billed within a turn."""

    web_search_requests: int = 0
    web_fetch_requests: int = 0


class Usage(msgspec.Struct, frozen=True, gc=False):
    """Token usage and cache accounting for one assistant turn or a -p result."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_creation: CacheCreation | None = None
    service_tier: str | None = None
    inference_geo: str | None = None
    server_tool_use: ServerToolUse | None = None


class Attribution(msgspec.Struct, frozen=True, gc=False):
    """The plugin, skill, or MCP tool an assistant turn is attributed to."""

    plugin: str | None = None
    skill: str | None = None
    mcp_server: str | None = None
    mcp_tool: str | None = None


class ApiError(msgspec.Struct, frozen=True, gc=False):
    """The upstream API error an assistant turn failed with."""

    error: str | None = None
    status: int | None = None
    details: str | None = None


# ---------------------------------------------------------------- blocks
# TextBlock, ThinkingBlock and ToolUseBlock carry a msgspec tag so the parser
# decodes them straight from the wire (their JSON names already match),
# skipping a per-block conversion on the hottest path.


class TextBlock(msgspec.Struct, frozen=True, gc=False, tag="text"):
    """A text content block from a user or assistant message."""

    text: str


class ThinkingBlock(msgspec.Struct, frozen=True, gc=False, tag="thinking"):
    """An extended-thinking content block emitted by the assistant."""

    thinking: str


class Question(msgspec.Struct, frozen=True, gc=False):
    """One AskUserQuestion round lifted from a tool-use input's questions array."""

    question: str
    header: str | None = None
    multi_select: bool = False
    labels: tuple[str, ...] = ()


class ToolUseBlock(msgspec.Struct, frozen=True, gc=False, tag="tool_use"):
    """An assistant request to invoke a tool."""

    id: ToolUseId
    name: str
    input: Mapping[str, Any] = msgspec.field(default_factory=dict)

    @property
    def file_path(self) -> str | None:
        """The raw file_path input argument when it is a string, else None."""
        inp = self.input
        if not isinstance(inp, Mapping):
            return None
        value = inp.get("file_path")
        return value if isinstance(value, str) else None

    @property
    def questions(self) -> tuple[Question, ...] | None:
        """The AskUserQuestion rounds from the questions input array, or None."""
        inp = self.input
        if not isinstance(inp, Mapping):
            return None
        raw = inp.get("questions")
        if not isinstance(raw, list):
            return None
        out: list[Question] = []
        for item in raw:
            if not isinstance(item, Mapping):
                continue
            question = item.get("question")
            if not isinstance(question, str):
                continue
            header = item.get("header")
            options = item.get("options")
            labels: list[str] = []
            if isinstance(options, list):
                for option in options:
                    if isinstance(option, Mapping) and isinstance(option.get("label"), str):
                        labels.append(option["label"])
                    elif isinstance(option, str):
                        labels.append(option)
            out.append(
                Question(
                    question=question,
                    header=header if isinstance(header, str) else None,
                    multi_select=item.get("multiSelect") is True,
                    labels=tuple(labels),
                )
            )
        return tuple(out)


class ToolResultBlock(msgspec.Struct, frozen=True, gc=False):
    """The result of a tool invocation, delivered in a user turn."""

    tool_use_id: ToolUseId
    content: str = ""
    is_error: bool = False
    is_async: bool = False
    tool_use_result: Mapping[str, Any] | str | None = None
    denial_kind: str | None = None


class FallbackBlock(msgspec.Struct, frozen=True, gc=False):
    """A marker that the assistant turn fell back from one model to another."""

    from_model: str
    to_model: str


class OtherBlock(msgspec.Struct, frozen=True, gc=False):
    """Any content block whose type is not modeled; carried verbatim."""

    type: str
    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)


ContentBlock: TypeAlias = (
    TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | FallbackBlock | OtherBlock
)


# ---------------------------------------------------------------- system details


class HookInfo(msgspec.Struct, frozen=True, gc=False):
    """One hook invocation recorded in a stop-hook summary."""

    command: str
    duration_ms: int | None = None


class StopHookSummary(msgspec.Struct, frozen=True, gc=False):
    """The typed detail of a stop_hook_summary system entry."""

    hook_count: int | None = None
    hook_infos: tuple[HookInfo, ...] = ()
    hook_errors: tuple[str, ...] = ()
    hook_additional_context: tuple[str, ...] = ()
    prevented_continuation: bool = False
    stop_reason: str | None = None
    has_output: bool = False
    tool_use_id: ToolUseId | None = None


class PreservedSegment(msgspec.Struct, frozen=True, gc=False):
    """The head/anchor/tail uuids of the segment preserved across a compaction."""

    head_uuid: EventUuid | None = None
    anchor_uuid: EventUuid | None = None
    tail_uuid: EventUuid | None = None


class PreservedMessages(msgspec.Struct, frozen=True, gc=False):
    """The message uuids preserved across a compaction."""

    anchor_uuid: EventUuid | None = None
    uuids: tuple[EventUuid, ...] = ()
    all_uuids: tuple[EventUuid, ...] = ()


class CompactBoundary(msgspec.Struct, frozen=True, gc=False):
    """The typed detail of a compact_boundary system entry."""

    trigger: str | None = None
    pre_tokens: int | None = None
    post_tokens: int | None = None
    duration_ms: int | None = None
    cumulative_dropped_tokens: int | None = None
    pre_compact_discovered_tools: tuple[str, ...] = ()
    preserved_segment: PreservedSegment | None = None
    preserved_messages: PreservedMessages | None = None
    logical_parent_uuid: EventUuid | None = None
    precomputed: bool | None = None


class TurnDuration(msgspec.Struct, frozen=True, gc=False):
    """The typed detail of a turn_duration system entry."""

    duration_ms: int | None = None
    message_count: int | None = None
    pending_workflow_count: int | None = None
    pending_background_agent_count: int | None = None


class ModelRefusalFallback(msgspec.Struct, frozen=True, gc=False):
    """The typed detail of a model_refusal_fallback system entry."""

    api_refusal_category: str | None = None
    api_refusal_explanation: str | None = None
    trigger: str | None = None
    direction: str | None = None
    original_model: str | None = None
    fallback_model: str | None = None
    retracted_message_uuids: tuple[EventUuid, ...] = ()
    refused_user_message_uuid: EventUuid | None = None


class OtherSystemDetail(msgspec.Struct, frozen=True, gc=False):
    """The catch-all detail for a system entry without a typed subtype."""

    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)


SystemDetail: TypeAlias = (
    StopHookSummary | CompactBoundary | TurnDuration | ModelRefusalFallback | OtherSystemDetail
)


# ---------------------------------------------------------------- attachment details


class HookSuccess(msgspec.Struct, frozen=True, gc=False):
    """A hook that fired and exited cleanly."""

    hook_name: str | None = None
    hook_event: str | None = None
    tool_use_id: ToolUseId | None = None
    command: str | None = None
    content: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None


class HookBlockingError(msgspec.Struct, frozen=True, gc=False):
    """A hook that blocked the turn, carrying the structured blocking payload."""

    hook_name: str | None = None
    hook_event: str | None = None
    tool_use_id: ToolUseId | None = None
    blocking_error: Mapping[str, Any] | None = None


class HookNonBlockingError(msgspec.Struct, frozen=True, gc=False):
    """A hook that failed without blocking the turn."""

    hook_name: str | None = None
    hook_event: str | None = None
    tool_use_id: ToolUseId | None = None
    command: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None


class HookCancelled(msgspec.Struct, frozen=True, gc=False):
    """A hook the harness cancelled, typically on timeout."""

    hook_name: str | None = None
    hook_event: str | None = None
    tool_use_id: ToolUseId | None = None
    command: str | None = None
    duration_ms: int | None = None
    timed_out: bool | None = None
    timeout_ms: int | None = None


class HookAdditionalContext(msgspec.Struct, frozen=True, gc=False):
    """Context a hook injected into the turn without blocking it."""

    hook_name: str | None = None
    hook_event: str | None = None
    tool_use_id: ToolUseId | None = None
    content: tuple[str, ...] = ()


class AsyncHookResponse(msgspec.Struct, frozen=True, gc=False):
    """The result of an asynchronously-executed hook, matched back by process id."""

    hook_name: str | None = None
    hook_event: str | None = None
    process_id: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None
    response: Mapping[str, Any] | None = None


class QueuedCommand(msgspec.Struct, frozen=True, gc=False):
    """A user command queued for delivery to the agent, replayed as an attachment."""

    prompt: str | None = None
    command_mode: str | None = None
    # Not in the seed: 2026 builds record who queued it (human | peer | channel);
    # only "human" (or absent) is something the person typed.
    origin: str | None = None


class OtherAttachment(msgspec.Struct, frozen=True, gc=False):
    """Any attachment whose type has no typed detail, carried verbatim."""

    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)


AttachmentDetail: TypeAlias = (
    HookSuccess
    | HookBlockingError
    | HookNonBlockingError
    | HookCancelled
    | HookAdditionalContext
    | AsyncHookResponse
    | QueuedCommand
    | OtherAttachment
)


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

    __slots__ = ("_convert", "_items")

    def __init__(
        self,
        items: Iterable[object] = (),
        convert: Callable[[Any], TranscriptEvent] | None = None,
    ) -> None:
        self._items: list[Any] = list(items)
        self._convert = convert

    def _at(self, index: int) -> TranscriptEvent:
        item = self._items[index]
        if type(item) in _PUBLIC_EVENT_TYPES:
            return item  # type: ignore[no-any-return]
        if self._convert is None:
            raise TypeError(f"EventList item {index} is not an event: {type(item).__name__}")
        event = self._convert(item)
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
        convert = self._convert
        for i, item in enumerate(items):
            if type(item) not in public:
                if convert is None:
                    raise TypeError(f"EventList item {i} is not an event: {type(item).__name__}")
                item = convert(item)
                items[i] = item
            yield item

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


# ---------------------------------------------------------------- print mode


class ModelUsage(msgspec.Struct, frozen=True, gc=False):
    """Per-model token usage and cost from a -p result's modelUsage map."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    web_search_requests: int = 0
    cost_usd: float = 0.0
    context_window: int = 0
    max_output_tokens: int = 0


class McpServer(msgspec.Struct, frozen=True, gc=False):
    """An MCP server entry from the -p init element."""

    name: str
    status: str = ""


class Plugin(msgspec.Struct, frozen=True, gc=False):
    """A plugin entry from the -p init element."""

    name: str
    path: str = ""
    source: str = ""


class InitInfo(msgspec.Struct, frozen=True, gc=False):
    """The session init snapshot from a -p system/init element."""

    mcp_servers: tuple[McpServer, ...] = ()
    plugins: tuple[Plugin, ...] = ()
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    # Not in the seed: the model the run was initialised with.
    model: str | None = None


class PrintMessage(msgspec.Struct, frozen=True, gc=False):
    """A conversational message lifted from a -p (print mode) result."""

    role: Literal["user", "assistant"]
    session_id: SessionId
    text: str = ""
    blocks: tuple[ContentBlock, ...] = ()
    model: str | None = None
    uuid: EventUuid | None = None
    id: str | None = None
    usage: Usage | None = None


class PrintResult(msgspec.Struct, frozen=True, gc=False):
    """A parsed `claude -p --output-format json` result."""

    session_id: SessionId
    total_cost_usd: float = 0.0
    model_usage: Mapping[str, ModelUsage] = msgspec.field(default_factory=dict)
    usage: Usage = msgspec.field(default_factory=Usage)
    structured_output: Mapping[str, Any] | None = None
    num_turns: int = 0
    is_error: bool = False
    result: str | None = None
    fast_mode_state: str | None = None
    stop_reason: str | None = None
    permission_denials: tuple[Mapping[str, Any], ...] = ()
    init: InitInfo | None = None
    messages: tuple[PrintMessage, ...] = ()
    # Not in the seed: the result subtype (success | error_max_turns | ...) and
    # the errors[] a failed run carries.
    subtype: str | None = None
    errors: tuple[str, ...] = ()


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
