"""Transcripts: parse Claude Code and Codex session files into typed events.

Names are re-exported lazily (PEP 562) so `import learn.transcripts` costs
nothing until a name is used; `learn --help` must stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from learn.transcripts.filterspec import NOISE_SPEC, FilterSpec
    from learn.transcripts.models import (
        ApiError,
        AssistantEvent,
        AsyncHookResponse,
        AttachmentDetail,
        AttachmentEvent,
        Attribution,
        CacheCreation,
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
        InitInfo,
        McpServer,
        ModeEvent,
        ModelRefusalFallback,
        ModelUsage,
        OtherAttachment,
        OtherBlock,
        OtherEvent,
        OtherSystemDetail,
        Plugin,
        PreservedMessages,
        PreservedSegment,
        PrintMessage,
        PrintResult,
        Question,
        QueuedCommand,
        ServerToolUse,
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
        thinking_chars,
        tool_uses,
    )
    from learn.transcripts.parser import (
        parse,
        parse_event,
        parse_events,
        parse_events_from_bytes,
        stream,
    )
    from learn.transcripts.print_result import parse_print_result

__all__ = [
    "NOISE_SPEC",
    "ApiError",
    "AssistantEvent",
    "AsyncHookResponse",
    "AttachmentDetail",
    "AttachmentEvent",
    "Attribution",
    "CacheCreation",
    "CompactBoundary",
    "ContentBlock",
    "EntryMeta",
    "EventList",
    "FallbackBlock",
    "FilterSpec",
    "HookAdditionalContext",
    "HookBlockingError",
    "HookCancelled",
    "HookInfo",
    "HookNonBlockingError",
    "HookSuccess",
    "InitInfo",
    "McpServer",
    "ModeEvent",
    "ModelRefusalFallback",
    "ModelUsage",
    "OtherAttachment",
    "OtherBlock",
    "OtherEvent",
    "OtherSystemDetail",
    "Plugin",
    "PreservedMessages",
    "PreservedSegment",
    "PrintMessage",
    "PrintResult",
    "Question",
    "QueuedCommand",
    "ServerToolUse",
    "StopHookSummary",
    "SystemDetail",
    "SystemEvent",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "Transcript",
    "TranscriptEvent",
    "TurnDuration",
    "Usage",
    "UserEvent",
    "parse",
    "parse_event",
    "parse_events",
    "parse_events_from_bytes",
    "parse_print_result",
    "stream",
    "thinking_chars",
    "tool_uses",
]

# Where each name lives; every name not listed here is in learn.transcripts.models.
_ELSEWHERE: dict[str, str] = {
    "FilterSpec": "learn.transcripts.filterspec",
    "NOISE_SPEC": "learn.transcripts.filterspec",
    "parse": "learn.transcripts.parser",
    "parse_event": "learn.transcripts.parser",
    "parse_events": "learn.transcripts.parser",
    "parse_events_from_bytes": "learn.transcripts.parser",
    "stream": "learn.transcripts.parser",
    "parse_print_result": "learn.transcripts.print_result",
}
_WHERE: dict[str, str] = {
    name: _ELSEWHERE.get(name, "learn.transcripts.models") for name in __all__
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
