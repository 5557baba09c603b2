"""Build the public events (`learn.transcripts.models`) from decoded wire records.

An event is built from its wire Struct the first time it is read (EventList
calls `materialize`), so a consumer that filters or counts pays only for the
decode. The user and assistant builders are most of that cost, so they are
written for speed (positional arguments, common cases first).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from learn.transcripts.blocks import (
    ApiError,
    Attribution,
    ContentBlock,
    FallbackBlock,
    OtherBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.claude.decode import decode_untyped
from learn.transcripts.claude.literals import (
    AGENT_INJECTION_RE,
    DENIAL_KIND_USER_REJECTED,
    DENIAL_PREFIX,
    INTERRUPT_RE,
)
from learn.transcripts.claude.wire import (
    AssistantW,
    AttachmentW,
    Env,
    FallbackW,
    LazyOther,
    ModeW,
    OtherBlockW,
    PermissionModeW,
    ResultItemW,
    SystemW,
    ToolResultW,
    UserW,
)
from learn.transcripts.details import (
    AsyncHookResponse,
    AttachmentDetail,
    CompactBoundary,
    HookAdditionalContext,
    HookBlockingError,
    HookCancelled,
    HookInfo,
    HookNonBlockingError,
    HookSuccess,
    ModelRefusalFallback,
    OtherAttachment,
    OtherSystemDetail,
    PreservedMessages,
    PreservedSegment,
    QueuedCommand,
    StopHookSummary,
    SystemDetail,
    TurnDuration,
)
from learn.transcripts.models import (
    AssistantEvent,
    AttachmentEvent,
    EntryMeta,
    ModeEvent,
    OtherEvent,
    SystemEvent,
    TranscriptEvent,
    UserEvent,
)

__all__ = ["materialize"]


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


def _meta(w: Env) -> EntryMeta:
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


def _flatten_result(content: str | list[ResultItemW] | None) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return "".join(
        item.text for item in content if item.type == "text" and isinstance(item.text, str)
    )


def _other_block(raw: dict[str, Any]) -> OtherBlock:
    return OtherBlock(type=raw.get("type", ""), raw=raw)


# Whether the regexes can match "" at all: tool-result turns have no text, so
# _user skips both matches when they cannot (decided here, not assumed).
_EMPTY_INTERRUPTED = INTERRUPT_RE.match("") is not None
_EMPTY_INJECTED = AGENT_INJECTION_RE.match("") is not None


def _user(w: UserW) -> UserEvent:
    # Built with positional arguments and the common cases first: this and
    # _assistant are most of materializing (1.8 us and 1.4 us an event before).
    content = w.message.content
    blocks: tuple[ContentBlock, ...]
    if type(content) is str:
        text = content
        blocks = (TextBlock(content),)
    else:
        out: list[ContentBlock] = []
        texts: list[str] = []
        is_async: bool | None = None
        for block in content:
            kind = type(block)
            if kind is ToolResultW:
                tr: ToolResultW = block  # type: ignore[assignment]
                if is_async is None:
                    tur = w.tool_use_result
                    is_async = type(tur) is dict and tur.get("isAsync") is True
                flat = _flatten_result(tr.content)
                is_error = tr.is_error is True
                denial = w.tool_denial_kind
                if denial is None and is_error and flat.startswith(DENIAL_PREFIX):
                    denial = DENIAL_KIND_USER_REJECTED
                out.append(ToolResultBlock(
                    tr.tool_use_id, flat, is_error, is_async, w.tool_use_result, denial
                ))
            elif kind is TextBlock:
                out.append(block)  # type: ignore[arg-type]
                texts.append(block.text)  # type: ignore[union-attr]
            elif kind is OtherBlockW:
                out.append(_other_block(block.raw))  # type: ignore[union-attr]
        text = " ".join(texts) if texts else ""
        blocks = tuple(out)
    origin = w.origin
    ids = w.image_paste_ids
    interrupted_id = w.interrupted_message_id
    return UserEvent(
        _meta(w),
        text,
        blocks,
        interrupted_id is not None
        or (INTERRUPT_RE.match(text) is not None if text or _EMPTY_INTERRUPTED else False),
        AGENT_INJECTION_RE.match(text) is not None if text or _EMPTY_INJECTED else False,
        w.prompt_id,
        w.prompt_source,
        w.queue_priority,
        tuple(ids) if ids is not None else None,
        w.source_tool_use_id,
        w.source_tool_assistant_uuid,
        w.mcp_meta,
        w.permission_mode,
        interrupted_id,
        None if origin is None
        else _str(origin.get("kind")) if isinstance(origin, dict) else _str(origin),
    )


_PUBLIC_BLOCKS = (TextBlock, ThinkingBlock, ToolUseBlock)


def _assistant(w: AssistantW) -> AssistantEvent:
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
        elif kind is FallbackW:
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
        _meta(w),
        message.model,
        " ".join(texts) if texts else "",
        tuple(out),
        message.stop_reason,
        message.usage,
        w.request_id,
        None if forked is None
        else _str(forked) if not isinstance(forked, dict)
        else _str(forked.get("messageUuid") or forked.get("uuid")),
        attribution,
        api_error,
        message.id,
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


def _system(w: SystemW) -> SystemEvent:
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


def _attachment(w: AttachmentW) -> AttachmentEvent:
    raw = w.raw if isinstance(w.raw, dict) else {}
    payload = _dict(raw.get("attachment")) or {}
    kind = w.attachment.type
    return AttachmentEvent(
        meta=_meta(w), attachment_type=kind, detail=_attachment_detail(kind, payload, raw)
    )


def _mode(wire: ModeW) -> ModeEvent:
    return ModeEvent(session_id=wire.session_id, channel="mode", value=wire.mode)


def _permission_mode(wire: PermissionModeW) -> ModeEvent:
    return ModeEvent(
        session_id=wire.session_id, channel="permission-mode", value=wire.permission_mode
    )


def _lazy_other(wire: LazyOther) -> OtherEvent:
    return OtherEvent(type=wire.type, raw=decode_untyped(wire.line))


def _identity(event: Any) -> TranscriptEvent:
    return event  # type: ignore[no-any-return]


_BUILDERS: dict[type, Callable[[Any], TranscriptEvent]] = {
    UserW: _user,
    AssistantW: _assistant,
    SystemW: _system,
    AttachmentW: _attachment,
    ModeW: _mode,
    PermissionModeW: _permission_mode,
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

