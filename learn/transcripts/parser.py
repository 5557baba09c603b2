"""Parse Claude Code (and, via `codex`, Codex) JSONL transcripts into typed events.

How a line becomes an event:

1. The file is read whole and split on b"\\n". Reading line by line through a
   file object ran at ~270 MB/s on this box against ~600 MB/s for whole-buffer
   decoding (feasibility probe 6), so we never iterate a file object.
2. Each line is decoded by msgspec straight into wire Structs, a union tagged on
   "type" whose unknown fields are ignored. Text, thinking and tool_use blocks
   and `usage` decode directly into the public models.
3. A line the typed decode rejects takes the slow path: decode it untyped, then
   either it is an entry type we do not model (-> OtherEvent), or a known type
   carrying an unknown block (rewritten to a marker and converted again), or it
   is skipped and counted by reason. Nothing raises.
4. The public event is built from the wire Struct the first time it is read
   (EventList), so a consumer that filters or counts pays only for the decode.

Every line is folded independently, so parsing is compositional on line
boundaries: parse_events_from_bytes(a) + parse_events_from_bytes(b) ==
parse_events_from_bytes(a + b) for any split between lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import msgspec

from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.literals import (
    AGENT_INJECTION_RE,
    DENIAL_KIND_USER_REJECTED,
    DENIAL_PREFIX,
    INTERRUPT_RE,
)
from learn.transcripts.models import (
    ApiError,
    AssistantEvent,
    AsyncHookResponse,
    AttachmentDetail,
    AttachmentEvent,
    Attribution,
    CompactBoundary,
    ContentBlock,
    EntryMeta,
    EventList,
    FallbackBlock,
    HookAdditionalContext,
    HookBlockingError,
    HookCancelled,
    HookInfo,
    HookNonBlockingError,
    HookSuccess,
    ModeEvent,
    ModelRefusalFallback,
    OtherAttachment,
    OtherBlock,
    OtherEvent,
    OtherSystemDetail,
    PreservedMessages,
    PreservedSegment,
    QueuedCommand,
    StopHookSummary,
    SystemDetail,
    SystemEvent,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Transcript,
    TranscriptEvent,
    TurnDuration,
    Usage,
    UserEvent,
)

__all__ = [
    "SKIP_INVALID",
    "SKIP_NOT_OBJECT",
    "SKIP_UNDECODABLE",
    "LazyOther",
    "decode_claude_lines",
    "decode_untyped",
    "materialize",
    "parse",
    "parse_event",
    "parse_events",
    "parse_events_from_bytes",
    "stream",
]

SKIP_UNDECODABLE = "undecodable"
SKIP_NOT_OBJECT = "not_object"
SKIP_INVALID = "invalid"

# RFC 3339 with an offset; an offset-less or out-of-range timestamp fails the
# line (counted "invalid") rather than becoming a naive datetime that would
# later refuse to compare with every other one.
_Timestamp = Annotated[datetime, msgspec.Meta(tz=True)]

# Where the parser parks the untyped decode of a system or attachment line on
# its wire struct (always overwritten after decoding, so a clash is harmless).
_RAW_KEY = "__learn_raw__"


# ---------------------------------------------------------------- wire structs


class _Env(msgspec.Struct, rename="camel", kw_only=True, gc=False):
    uuid: str
    session_id: str
    timestamp: _Timestamp
    parent_uuid: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    is_sidechain: bool | None = None
    is_meta: bool | None = None
    entrypoint: str | None = None
    is_compact_summary: bool | None = None
    is_visible_in_transcript_only: bool | None = None
    user_type: str | None = None
    slug: str | None = None
    agent_id: str | None = None


class _OtherBlockW(msgspec.Struct, tag="\x00other", gc=False):
    raw: dict[str, Any]


class _ResultItemW(msgspec.Struct, gc=False):
    type: str = ""
    text: Any = None


class _ToolResultW(msgspec.Struct, tag="tool_result", gc=False):
    tool_use_id: str
    content: str | list[_ResultItemW] | None = None
    is_error: bool | None = None


class _UserMsgW(msgspec.Struct, gc=False):
    content: str | list[TextBlock | _ToolResultW | _OtherBlockW]


class _UserW(_Env, tag="user", rename="camel", kw_only=True, gc=False):
    message: _UserMsgW
    tool_use_result: Any = None
    tool_denial_kind: str | None = None
    prompt_id: str | None = None
    prompt_source: str | None = None
    queue_priority: str | None = None
    image_paste_ids: list[int] | None = None
    source_tool_use_id: str | None = msgspec.field(default=None, name="sourceToolUseID")
    source_tool_assistant_uuid: str | None = msgspec.field(
        default=None, name="sourceToolAssistantUUID"
    )
    mcp_meta: dict[str, Any] | None = None
    permission_mode: str | None = None
    interrupted_message_id: str | None = None
    origin: Any = None


class _ModelRefW(msgspec.Struct, gc=False):
    model: str


class _FallbackW(msgspec.Struct, tag="fallback", gc=False):
    from_: _ModelRefW = msgspec.field(name="from")
    to: _ModelRefW


class _AssistantMsgW(msgspec.Struct, kw_only=True, gc=False):
    model: str
    content: list[TextBlock | ThinkingBlock | ToolUseBlock | _FallbackW | _OtherBlockW]
    id: str | None = None
    stop_reason: str | None = None
    usage: Usage | None = None


class _AssistantW(_Env, tag="assistant", rename="camel", kw_only=True, gc=False):
    message: _AssistantMsgW
    request_id: str | None = None
    forked_from: Any = None
    attribution_plugin: str | None = None
    attribution_skill: str | None = None
    attribution_mcp_server: str | None = None
    attribution_mcp_tool: str | None = None
    is_api_error_message: bool | None = None
    error: Any = None
    api_error_status: int | None = None
    error_details: Any = None


class _SystemW(_Env, tag="system", rename="camel", kw_only=True, gc=False):
    subtype: str
    content: Any = None
    level: Any = None
    raw: Any = msgspec.field(default=None, name=_RAW_KEY)


class _AttachmentPayloadW(msgspec.Struct, gc=False):
    type: str


class _AttachmentW(_Env, tag="attachment", rename="camel", kw_only=True, gc=False):
    attachment: _AttachmentPayloadW
    raw: Any = msgspec.field(default=None, name=_RAW_KEY)


class _ModeW(msgspec.Struct, tag="mode", rename="camel", gc=False):
    mode: str
    session_id: str


class _PermissionModeW(msgspec.Struct, tag="permission-mode", rename="camel", gc=False):
    permission_mode: str
    session_id: str


class LazyOther(msgspec.Struct, gc=False):
    """An entry kept as its line bytes until read, then an OtherEvent.

    Used where the typed decode already proved the line is a JSON object with
    a string type (Codex rollouts, where most lines are bookkeeping), so the
    untyped decode that builds `raw` is only paid for events someone reads.
    """

    type: str
    line: bytes


def decode_untyped(raw: bytes) -> Any:
    """Decode JSON bytes, replacing invalid UTF-8 rather than failing.

    msgspec skips ignored fields without validating their UTF-8, so a line the
    typed decode accepted can still fail a strict untyped decode later.
    """
    try:
        return _ANY_DECODER.decode(raw)
    except msgspec.DecodeError:
        return _ANY_DECODER.decode(raw.decode("utf-8", "replace"))


_Entry = _UserW | _AssistantW | _SystemW | _AttachmentW | _ModeW | _PermissionModeW
_DECODER = msgspec.json.Decoder(_Entry)
_ANY_DECODER = msgspec.json.Decoder()

_MODELED_TYPES = frozenset({"user", "assistant", "system", "attachment", "mode", "permission-mode"})
_USER_BLOCK_TYPES = frozenset({"text", "tool_result"})
_ASSISTANT_BLOCK_TYPES = frozenset({"text", "thinking", "tool_use", "fallback"})
_WIRE_TYPE_NAMES: dict[type, str] = {
    _UserW: "user",
    _AssistantW: "assistant",
    _SystemW: "system",
    _AttachmentW: "attachment",
    _ModeW: "mode",
    _PermissionModeW: "permission-mode",
}


# ---------------------------------------------------------------- decoding


def _mark_unknown_blocks(message: object, known: frozenset[str]) -> None:
    """Rewrite unmodeled content blocks to the OtherBlock marker, in place."""
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if not isinstance(content, list):
        return
    for i, block in enumerate(content):
        if isinstance(block, dict):
            kind = block.get("type")
            if isinstance(kind, str) and kind not in known:
                content[i] = {"type": "\x00other", "raw": block}


def _drop_nulls(mapping: dict[str, Any], key: str) -> None:
    value = mapping.get(key)
    if isinstance(value, dict):
        for name in [k for k, v in value.items() if v is None]:
            del value[name]
        for nested in ("cache_creation", "server_tool_use"):
            inner = value.get(nested)
            if isinstance(inner, dict):
                for name in [k for k, v in inner.items() if v is None]:
                    del inner[name]


def _slow_path(line: bytes) -> object:
    """Decode a line the typed decoder refused. Returns a wire struct, an
    OtherEvent, or a skip reason (str)."""
    try:
        obj = _ANY_DECODER.decode(line)
    except msgspec.DecodeError:
        return SKIP_UNDECODABLE
    if not isinstance(obj, dict):
        return SKIP_NOT_OBJECT
    kind = obj.get("type")
    if not isinstance(kind, str):
        return SKIP_INVALID
    if kind not in _MODELED_TYPES:
        return OtherEvent(type=kind, raw=obj)
    message = obj.get("message")
    if kind == "user":
        _mark_unknown_blocks(message, _USER_BLOCK_TYPES)
    elif kind == "assistant":
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            # SDK-written turns may carry a bare string, as the API allows.
            message["content"] = [{"type": "text", "text": message["content"]}]
        _mark_unknown_blocks(message, _ASSISTANT_BLOCK_TYPES)
        if isinstance(message, dict):
            # Some writers emit null token counts; they mean zero, not a bad line.
            _drop_nulls(message, "usage")
    try:
        wire = msgspec.convert(obj, _Entry)
    except msgspec.ValidationError:
        return SKIP_INVALID
    if isinstance(wire, _SystemW | _AttachmentW):
        # The untyped decode of the untouched line: convert() did not alter obj
        # for these types.
        wire.raw = obj
    return wire


def _decode_line(line: bytes) -> object:
    try:
        wire: object = _DECODER.decode(line)
    except msgspec.ValidationError:
        return _slow_path(line)
    except msgspec.DecodeError:
        return SKIP_UNDECODABLE
    if type(wire) is _SystemW or type(wire) is _AttachmentW:
        return _with_raw(wire, line)
    return wire


def _with_raw(wire: _SystemW | _AttachmentW, line: bytes) -> object:
    # System and attachment details are read from the untyped record (their
    # shapes vary by subtype, and Other* details keep it verbatim); they are a
    # few percent of lines, so the second decode is cheap overall.
    try:
        wire.raw = _ANY_DECODER.decode(line)
    except msgspec.DecodeError:
        return SKIP_UNDECODABLE
    return wire


def _is_dropped(wire: object, spec: FilterSpec) -> bool:
    if type(wire) is OtherEvent:
        return wire.type in spec.types
    if spec.types and _WIRE_TYPE_NAMES.get(type(wire)) in spec.types:
        return True
    if isinstance(wire, _Env):
        if spec.sidechain and wire.is_sidechain:
            return True
        if spec.meta and wire.is_meta:
            return True
    if spec.system_subtypes and type(wire) is _SystemW:
        return wire.subtype in spec.system_subtypes
    if spec.attachment_types and type(wire) is _AttachmentW:
        return wire.attachment.type in spec.attachment_types
    return False


_UNMODELED_TAG = re.compile(r"Invalid value '([^'\\]*)' - at `\$\.type`")


class _TypeOnly(msgspec.Struct, gc=False):
    type: str


_TYPE_ONLY = msgspec.json.Decoder(_TypeOnly)


def _drops_unmodeled(exc: msgspec.ValidationError, line: bytes, types: frozenset[str]) -> bool:
    """True when the line is a well-formed entry of an unmodeled type `types` drops.

    The typed decoder names the unknown tag in its error; a second decode into
    a one-field struct then validates the JSON without building a single dict.
    Progress and snapshot lines (often carrying whole nested messages) are
    the bulk of a NOISE_SPEC drop, so they are never decoded into objects.
    """
    match = _UNMODELED_TAG.fullmatch(str(exc))
    if match is None or match.group(1) not in types:
        return False
    try:
        _TYPE_ONLY.decode(line)
    except msgspec.DecodeError:
        return False  # let the slow path count it
    return True


def decode_claude_lines(
    buf: bytes, drop: FilterSpec | None = None
) -> tuple[list[object], dict[str, int]]:
    """Decode every line of a Claude Code JSONL buffer into wire records.

    Returns the kept records (materialize each with `materialize`) and the
    skip counts by reason. Blank lines are neither kept nor counted.
    """
    items: list[object] = []
    skipped: dict[str, int] = {}
    append = items.append
    decode = _DECODER.decode
    drop_types = drop.types if drop is not None else frozenset()
    for line in buf.split(b"\n"):
        if not line or line.isspace():
            continue
        try:
            wire: object = decode(line)
        except msgspec.ValidationError as exc:
            if drop_types and _drops_unmodeled(exc, line, drop_types):
                continue
            wire = _slow_path(line)
        except msgspec.DecodeError:
            wire = SKIP_UNDECODABLE
        else:
            if type(wire) is _SystemW or type(wire) is _AttachmentW:
                wire = _with_raw(wire, line)
        if type(wire) is str:
            skipped[wire] = skipped.get(wire, 0) + 1
            continue
        if drop is not None and _is_dropped(wire, drop):
            continue
        append(wire)
    return items, skipped


# ---------------------------------------------------------------- materializing


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _strs(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list):
        return ()
    return tuple(v if isinstance(v, str) else msgspec.json.encode(v).decode() for v in value)


def _dict(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _meta(w: _Env) -> EntryMeta:
    return EntryMeta(
        w.uuid,
        w.session_id,
        w.timestamp,
        w.parent_uuid or None,
        w.cwd,
        w.git_branch,
        w.version or None,
        w.is_sidechain is True,
        w.is_meta is True,
        w.entrypoint,
        w.is_compact_summary is True,
        w.is_visible_in_transcript_only is True,
        w.user_type,
        w.slug,
        w.agent_id,
    )


def _flatten_result(content: str | list[_ResultItemW] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(
        item.text for item in content if item.type == "text" and isinstance(item.text, str)
    )


def _other_block(raw: dict[str, Any]) -> OtherBlock:
    return OtherBlock(type=raw.get("type", ""), raw=raw)


def _user(w: _UserW) -> UserEvent:
    content = w.message.content
    blocks: tuple[ContentBlock, ...]
    if isinstance(content, str):
        text = content
        blocks = (TextBlock(content),)
    else:
        out: list[ContentBlock] = []
        texts: list[str] = []
        tur = w.tool_use_result
        record_kind = w.tool_denial_kind
        is_async = isinstance(tur, dict) and tur.get("isAsync") is True
        for block in content:
            if type(block) is TextBlock:
                out.append(block)
                texts.append(block.text)
            elif type(block) is _ToolResultW:
                flat = _flatten_result(block.content)
                is_error = block.is_error is True
                kind = record_kind
                if kind is None and is_error and flat.startswith(DENIAL_PREFIX):
                    kind = DENIAL_KIND_USER_REJECTED
                out.append(
                    ToolResultBlock(block.tool_use_id, flat, is_error, is_async, tur, kind)
                )
            elif type(block) is _OtherBlockW:
                out.append(_other_block(block.raw))
        text = " ".join(texts)
        blocks = tuple(out)
    origin = w.origin
    return UserEvent(
        meta=_meta(w),
        text=text,
        blocks=blocks,
        interrupted=w.interrupted_message_id is not None or INTERRUPT_RE.match(text) is not None,
        is_agent_injected=AGENT_INJECTION_RE.match(text) is not None,
        prompt_id=w.prompt_id,
        prompt_source=w.prompt_source,
        queue_priority=w.queue_priority,
        image_paste_ids=tuple(w.image_paste_ids) if w.image_paste_ids is not None else None,
        source_tool_use_id=w.source_tool_use_id,
        source_tool_assistant_uuid=w.source_tool_assistant_uuid,
        mcp_meta=w.mcp_meta,
        permission_mode=w.permission_mode,
        interrupted_message_id=w.interrupted_message_id,
        origin_kind=_str(origin.get("kind")) if isinstance(origin, dict) else _str(origin),
    )


_PUBLIC_BLOCKS = (TextBlock, ThinkingBlock, ToolUseBlock)


def _assistant(w: _AssistantW) -> AssistantEvent:
    message = w.message
    out: list[ContentBlock] = []
    texts: list[str] = []
    for block in message.content:
        kind = type(block)
        if kind is TextBlock:
            out.append(block)  # type: ignore[arg-type]
            texts.append(block.text)  # type: ignore[union-attr]
        elif kind is ThinkingBlock or kind is ToolUseBlock:
            out.append(block)  # type: ignore[arg-type]
        elif kind is _FallbackW:
            out.append(FallbackBlock(block.from_.model, block.to.model))  # type: ignore[union-attr]
        else:
            out.append(_other_block(block.raw))  # type: ignore[union-attr]
    attribution = None
    if (
        w.attribution_plugin is not None
        or w.attribution_skill is not None
        or w.attribution_mcp_server is not None
        or w.attribution_mcp_tool is not None
    ):
        attribution = Attribution(
            w.attribution_plugin, w.attribution_skill, w.attribution_mcp_server,
            w.attribution_mcp_tool,
        )
    api_error = None
    if w.is_api_error_message:
        error = w.error
        if isinstance(error, dict):
            error = error.get("type", error.get("error"))
        details = w.error_details
        api_error = ApiError(
            error=_str(error),
            status=w.api_error_status,
            details=details if isinstance(details, str) or details is None
            else msgspec.json.encode(details).decode(),
        )
    forked = w.forked_from
    return AssistantEvent(
        meta=_meta(w),
        model=message.model,
        text=" ".join(texts),
        blocks=tuple(out),
        stop_reason=message.stop_reason,
        usage=message.usage,
        request_id=w.request_id,
        forked_from=_str(forked) if not isinstance(forked, dict)
        else _str(forked.get("messageUuid") or forked.get("uuid")),
        attribution=attribution,
        api_error=api_error,
        message_id=message.id,
    )


def _stop_hook_summary(raw: Mapping[str, Any]) -> StopHookSummary:
    infos: list[HookInfo] = []
    hook_infos = raw.get("hookInfos")
    if isinstance(hook_infos, list):
        for info in hook_infos:
            if isinstance(info, dict) and isinstance(info.get("command"), str):
                infos.append(HookInfo(info["command"], _int(info.get("durationMs"))))
    return StopHookSummary(
        hook_count=_int(raw.get("hookCount")),
        hook_infos=tuple(infos),
        hook_errors=_strs(raw.get("hookErrors")),
        hook_additional_context=_strs(raw.get("hookAdditionalContext")),
        prevented_continuation=raw.get("preventedContinuation") is True,
        stop_reason=_str(raw.get("stopReason")),
        has_output=raw.get("hasOutput") is True,
        tool_use_id=_str(raw.get("toolUseID")),
    )


def _compact_boundary(raw: Mapping[str, Any]) -> CompactBoundary:
    cm = _dict(raw.get("compactMetadata")) or {}
    seg = _dict(cm.get("preservedSegment"))
    msgs = _dict(cm.get("preservedMessages"))
    return CompactBoundary(
        trigger=_str(cm.get("trigger")),
        pre_tokens=_int(cm.get("preTokens")),
        post_tokens=_int(cm.get("postTokens")),
        duration_ms=_int(cm.get("durationMs")),
        cumulative_dropped_tokens=_int(cm.get("cumulativeDroppedTokens")),
        pre_compact_discovered_tools=_strs(cm.get("preCompactDiscoveredTools")),
        preserved_segment=PreservedSegment(
            _str(seg.get("headUuid")), _str(seg.get("anchorUuid")), _str(seg.get("tailUuid"))
        ) if seg is not None else None,
        preserved_messages=PreservedMessages(
            _str(msgs.get("anchorUuid")), _strs(msgs.get("uuids")), _strs(msgs.get("allUuids"))
        ) if msgs is not None else None,
        logical_parent_uuid=_str(raw.get("logicalParentUuid") or cm.get("logicalParentUuid")),
        precomputed=_bool(cm.get("precomputed")),
    )


def _turn_duration(raw: Mapping[str, Any]) -> TurnDuration:
    return TurnDuration(
        duration_ms=_int(raw.get("durationMs")),
        message_count=_int(raw.get("messageCount")),
        pending_workflow_count=_int(raw.get("pendingWorkflowCount")),
        pending_background_agent_count=_int(raw.get("pendingBackgroundAgentCount")),
    )


def _model_refusal_fallback(raw: Mapping[str, Any]) -> ModelRefusalFallback:
    return ModelRefusalFallback(
        api_refusal_category=_str(raw.get("apiRefusalCategory")),
        api_refusal_explanation=_str(raw.get("apiRefusalExplanation")),
        trigger=_str(raw.get("trigger")),
        direction=_str(raw.get("direction")),
        original_model=_str(raw.get("originalModel")),
        fallback_model=_str(raw.get("fallbackModel")),
        retracted_message_uuids=_strs(raw.get("retractedMessageUuids")),
        refused_user_message_uuid=_str(raw.get("refusedUserMessageUuid")),
    )


def _system_detail(subtype: str, raw: Mapping[str, Any]) -> SystemDetail:
    if subtype == "stop_hook_summary":
        return _stop_hook_summary(raw)
    if subtype == "compact_boundary":
        return _compact_boundary(raw)
    if subtype == "turn_duration":
        return _turn_duration(raw)
    if subtype == "model_refusal_fallback":
        return _model_refusal_fallback(raw)
    return OtherSystemDetail(raw=raw)


def _system(w: _SystemW) -> SystemEvent:
    raw = w.raw if isinstance(w.raw, dict) else {}
    return SystemEvent(
        meta=_meta(w),
        subtype=w.subtype,
        detail=_system_detail(w.subtype, raw),
        content=_str(w.content),
        level=_str(w.level),
    )


def _attachment_detail(kind: str, a: Mapping[str, Any], raw: Mapping[str, Any]) -> AttachmentDetail:
    name, event, tool = _str(a.get("hookName")), _str(a.get("hookEvent")), _str(a.get("toolUseID"))
    if kind == "hook_success":
        return HookSuccess(
            name, event, tool, _str(a.get("command")), _str(a.get("content")),
            _str(a.get("stdout")), _str(a.get("stderr")), _int(a.get("exitCode")),
            _int(a.get("durationMs")),
        )
    if kind == "hook_blocking_error":
        return HookBlockingError(name, event, tool, _dict(a.get("blockingError")))
    if kind == "hook_non_blocking_error":
        return HookNonBlockingError(
            name, event, tool, _str(a.get("command")), _str(a.get("stdout")),
            _str(a.get("stderr")), _int(a.get("exitCode")), _int(a.get("durationMs")),
        )
    if kind == "hook_cancelled":
        return HookCancelled(
            name, event, tool, _str(a.get("command")), _int(a.get("durationMs")),
            _bool(a.get("timedOut")), _int(a.get("timeoutMs")),
        )
    if kind == "hook_additional_context":
        return HookAdditionalContext(name, event, tool, _strs(a.get("content")))
    if kind == "async_hook_response":
        response = _dict(a.get("response"))
        src: Mapping[str, Any] = response if response is not None else {}
        return AsyncHookResponse(
            name, event, _str(a.get("processId")),
            _str(a.get("stdout", src.get("stdout"))),
            _str(a.get("stderr", src.get("stderr"))),
            _int(a.get("exitCode", src.get("exitCode"))),
            response,
        )
    if kind == "queued_command":
        origin = a.get("origin")
        return QueuedCommand(
            prompt=_str(a.get("prompt")),
            command_mode=_str(a.get("commandMode")),
            origin=_str(origin.get("kind")) if isinstance(origin, dict) else _str(origin),
        )
    return OtherAttachment(raw=raw)


def _attachment(w: _AttachmentW) -> AttachmentEvent:
    raw = w.raw if isinstance(w.raw, dict) else {}
    payload = _dict(raw.get("attachment")) or {}
    kind = w.attachment.type
    return AttachmentEvent(
        meta=_meta(w), attachment_type=kind, detail=_attachment_detail(kind, payload, raw)
    )


def _mode(wire: _ModeW) -> ModeEvent:
    return ModeEvent(session_id=wire.session_id, channel="mode", value=wire.mode)


def _permission_mode(wire: _PermissionModeW) -> ModeEvent:
    return ModeEvent(
        session_id=wire.session_id, channel="permission-mode", value=wire.permission_mode
    )


def _lazy_other(wire: LazyOther) -> OtherEvent:
    return OtherEvent(type=wire.type, raw=decode_untyped(wire.line))


def _identity(event: Any) -> TranscriptEvent:
    return event  # type: ignore[no-any-return]


_BUILDERS: dict[type, Callable[[Any], TranscriptEvent]] = {
    _UserW: _user,
    _AssistantW: _assistant,
    _SystemW: _system,
    _AttachmentW: _attachment,
    _ModeW: _mode,
    _PermissionModeW: _permission_mode,
    LazyOther: _lazy_other,
    UserEvent: _identity,
    AssistantEvent: _identity,
    SystemEvent: _identity,
    ModeEvent: _identity,
    OtherEvent: _identity,
    AttachmentEvent: _identity,
}


def materialize(wire: Any) -> TranscriptEvent:
    """Build the public event for one decoded wire record."""
    build = _BUILDERS.get(type(wire))
    if build is None:
        raise TypeError(f"not a transcript wire record: {type(wire).__name__}")
    return build(wire)


# ---------------------------------------------------------------- public API


def parse_events_from_bytes(raw: bytes) -> list[TranscriptEvent]:
    """Parse a Claude Code JSONL buffer into events, skipping bad lines.

    Compositional on line boundaries (see module docstring).
    """
    items, _ = decode_claude_lines(bytes(raw))
    return [materialize(item) for item in items]


def parse_events(*mappings: Mapping[str, Any]) -> list[TranscriptEvent]:
    """Parse decoded transcript-line mappings; lines that fail are skipped."""
    encode = msgspec.json.encode
    return parse_events_from_bytes(b"\n".join(encode(m) for m in mappings))


def parse_event(mapping: Mapping[str, Any]) -> TranscriptEvent:
    """Parse one decoded transcript-line mapping.

    Raises ValueError when the mapping would be skipped in a file (missing
    type, missing uuid/timestamp on a conversational entry, bad timestamp).
    """
    line = msgspec.json.encode(mapping)
    wire = _decode_line(line)
    if isinstance(wire, str):
        raise ValueError(f"transcript line rejected ({wire}): {line[:200]!r}")
    return materialize(wire)


def _read(path: Path) -> tuple[bytes, float]:
    with open(path, "rb") as fh:
        mtime = os.fstat(fh.fileno()).st_mtime
        return fh.read(), mtime


def parse(source: Path | bytes, *, drop: FilterSpec | None = None) -> Transcript:
    """Parse one transcript (a path or raw JSONL bytes) into a Transcript.

    The provider (Claude Code or Codex) is sniffed from the content. Raises
    OSError when a path cannot be read; never raises on a bad line.
    """
    path: Path | None
    if isinstance(source, bytes | bytearray | memoryview):
        buf, mtime, path = bytes(source), 0.0, None
    else:
        path = Path(source)
        buf, mtime = _read(path)
    return parse_buffer(buf, path=path, mtime=mtime, drop=drop)


def parse_buffer(
    buf: bytes, *, path: Path | None = None, mtime: float = 0.0, drop: FilterSpec | None = None
) -> Transcript:
    """Parse an in-memory buffer as if it were the file at `path`."""
    from learn.transcripts import codex

    if codex.is_codex(buf, path):
        events, skipped = codex.lower(buf, path=path, drop=drop)
        return Transcript(
            path=path, mtime=mtime, provider="codex", events=EventList(events, materialize),
            skipped=skipped, skipped_lines=sum(skipped.values()), size_bytes=len(buf),
        )
    items, skipped = decode_claude_lines(buf, drop)
    return Transcript(
        path=path,
        mtime=mtime,
        provider="claude",
        events=EventList(items, materialize),
        skipped=skipped,
        skipped_lines=sum(skipped.values()),
        size_bytes=len(buf),
    )


def _read_quiet(path: Path) -> tuple[Path, bytes, float] | None:
    try:
        buf, mtime = _read(path)
    except OSError:
        # Vanished (pruned by Claude Code's cleanup) or unreadable between
        # discovery and parse: skip it, keep the batch.
        return None
    return path, buf, mtime


def stream(
    paths: Iterable[Path], *, drop: FilterSpec | None = None, prefetch: int = 4
) -> Iterator[Transcript]:
    """Parse files with reads running ahead, yielding each Transcript in turn.

    Up to `prefetch` files are read ahead by a background thread while the
    consumer decodes; order follows read completion, not input. Unreadable or
    vanished files are skipped.

    Why one thread that only reads: msgspec decodes holding the GIL, so
    decoding in two threads on a 2-core box cost ~1.5x the CPU of one (GIL
    hand-offs), and a process pool pays about as much to pickle a parsed
    transcript back as to parse it. File reads release the GIL, so overlapping
    them with decoding is the parallelism that is actually there; on the 56 MB
    benchmark corpus (warm cache) 1 reader thread cost +7% wall over no thread,
    2 cost +11%, 4 cost +24%.
    """
    prefetch = max(1, prefetch)
    it = iter(paths)
    pending: set[Future[tuple[Path, bytes, float] | None]] = set()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="learn-read") as pool:
        try:
            for path in it:
                pending.add(pool.submit(_read_quiet, Path(path)))
                if len(pending) >= prefetch:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    for path in it:
                        pending.add(pool.submit(_read_quiet, Path(path)))
                        break
                    result = future.result()
                    if result is not None:
                        path, buf, mtime = result
                        yield parse_buffer(buf, path=path, mtime=mtime, drop=drop)
        finally:
            for future in pending:
                future.cancel()
