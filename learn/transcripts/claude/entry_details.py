"""The typed details of Claude Code's system and attachment entries, from their raw objects.

Read leniently: a field of the wrong type is absent (None), never an error,
because every build adds and renames fields; an unmodelled subtype or kind keeps
its raw object (OtherSystemDetail, OtherAttachment).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

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


def as_str(value: object) -> str | None:
    """The value when it is a string, else None (a field of the wrong type is absent)."""
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


def _prompt_text(value: object) -> str | None:
    """A queued prompt's text: the string, or the text blocks of a list joined.

    Claude Code 2.1.241 on writes a prompt sent while the agent works as content blocks
    (`[{"type": "text", ...}, {"type": "image", ...}]`, with `source_uuid`,
    `delivery_id`, `humanTurn`; format-drift audit, late 2026: 2.1.241 to 2.1.280
    transcripts, a dozen such prompts in one session). Read as a string only, every one
    was lost, or left to the enqueue's copy, which holds a paste's placeholder."""
    if isinstance(value, str) or value is None:
        return value
    if not isinstance(value, list):
        return None
    texts = [b["text"] for b in value
             if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    return "\n".join(texts) if texts else None


def as_dict(value: object) -> dict[str, Any] | None:
    """The value when it is an object, else None."""
    return value if isinstance(value, dict) else None


# ---------------------------------------------------------------- system details


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
        stop_reason=as_str(raw.get("stopReason")),
        has_output=raw.get("hasOutput") is True,
        tool_use_id=as_str(raw.get("toolUseID")),
    )


def _compact_boundary(raw: Mapping[str, Any]) -> CompactBoundary:
    cm = as_dict(raw.get("compactMetadata")) or {}
    seg = as_dict(cm.get("preservedSegment"))
    msgs = as_dict(cm.get("preservedMessages"))
    return CompactBoundary(
        trigger=as_str(cm.get("trigger")),
        pre_tokens=_int(cm.get("preTokens")),
        post_tokens=_int(cm.get("postTokens")),
        duration_ms=_int(cm.get("durationMs")),
        cumulative_dropped_tokens=_int(cm.get("cumulativeDroppedTokens")),
        pre_compact_discovered_tools=_strs(cm.get("preCompactDiscoveredTools")),
        preserved_segment=PreservedSegment(
            as_str(seg.get("headUuid")), as_str(seg.get("anchorUuid")), as_str(seg.get("tailUuid"))
        ) if seg is not None else None,
        preserved_messages=PreservedMessages(
            as_str(msgs.get("anchorUuid")), _strs(msgs.get("uuids")), _strs(msgs.get("allUuids"))
        ) if msgs is not None else None,
        logical_parent_uuid=as_str(raw.get("logicalParentUuid") or cm.get("logicalParentUuid")),
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
        api_refusal_category=as_str(raw.get("apiRefusalCategory")),
        api_refusal_explanation=as_str(raw.get("apiRefusalExplanation")),
        trigger=as_str(raw.get("trigger")),
        direction=as_str(raw.get("direction")),
        original_model=as_str(raw.get("originalModel")),
        fallback_model=as_str(raw.get("fallbackModel")),
        retracted_message_uuids=_strs(raw.get("retractedMessageUuids")),
        refused_user_message_uuid=as_str(raw.get("refusedUserMessageUuid")),
    )


def system_detail(subtype: str, raw: Mapping[str, Any]) -> SystemDetail:
    """The typed detail of a system entry of `subtype` (OtherSystemDetail when unmodelled)."""
    if subtype == "stop_hook_summary":
        return _stop_hook_summary(raw)
    if subtype == "compact_boundary":
        return _compact_boundary(raw)
    if subtype == "turn_duration":
        return _turn_duration(raw)
    if subtype == "model_refusal_fallback":
        return _model_refusal_fallback(raw)
    return OtherSystemDetail(raw=raw)


# ---------------------------------------------------------------- attachment details


def attachment_detail(kind: str, a: Mapping[str, Any], raw: Mapping[str, Any]) -> AttachmentDetail:
    """The typed detail of an attachment of `kind` (OtherAttachment when unmodelled)."""
    name, event, tool = as_str(a.get("hookName")), as_str(a.get("hookEvent")), as_str(a.get("toolUseID"))
    if kind == "hook_success":
        return HookSuccess(
            name, event, tool, as_str(a.get("command")), as_str(a.get("content")),
            as_str(a.get("stdout")), as_str(a.get("stderr")), _int(a.get("exitCode")),
            _int(a.get("durationMs")),
        )
    if kind == "hook_blocking_error":
        return HookBlockingError(name, event, tool, as_dict(a.get("blockingError")))
    if kind == "hook_non_blocking_error":
        return HookNonBlockingError(
            name, event, tool, as_str(a.get("command")), as_str(a.get("stdout")),
            as_str(a.get("stderr")), _int(a.get("exitCode")), _int(a.get("durationMs")),
        )
    if kind == "hook_cancelled":
        return HookCancelled(
            name, event, tool, as_str(a.get("command")), _int(a.get("durationMs")),
            _bool(a.get("timedOut")), _int(a.get("timeoutMs")),
        )
    if kind == "hook_additional_context":
        return HookAdditionalContext(name, event, tool, _strs(a.get("content")))
    if kind == "async_hook_response":
        response = as_dict(a.get("response"))
        src: Mapping[str, Any] = response if response is not None else {}
        return AsyncHookResponse(
            name, event, as_str(a.get("processId")),
            as_str(a.get("stdout", src.get("stdout"))),
            as_str(a.get("stderr", src.get("stderr"))),
            _int(a.get("exitCode", src.get("exitCode"))),
            response,
        )
    if kind == "queued_command":
        origin = a.get("origin")
        return QueuedCommand(
            prompt=_prompt_text(a.get("prompt")),
            command_mode=as_str(a.get("commandMode")),
            origin=as_str(origin.get("kind")) if isinstance(origin, dict) else as_str(origin),
        )
    return OtherAttachment(raw=raw)
