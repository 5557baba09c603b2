"""The typed details of system and attachment entries (part of the seed's event model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import msgspec

from learn.transcripts.ids import EventUuid, ToolUseId

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
