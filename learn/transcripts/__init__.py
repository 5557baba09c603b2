"""Transcripts: parse Claude Code and Codex session files into typed events.

Names are re-exported lazily (PEP 562) so `import learn.transcripts` costs
nothing until a name is used; `learn --help` must stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from learn.lazy import lazy_getattr

if TYPE_CHECKING:
    from learn.transcripts.blocks import (
        ApiError,
        Attribution,
        CacheCreation,
        ContentBlock,
        FallbackBlock,
        OtherBlock,
        Question,
        ServerToolUse,
        TextBlock,
        ThinkingBlock,
        ToolResultBlock,
        ToolUseBlock,
        Usage,
    )
    from learn.transcripts.claude.print_result import parse_print_result
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
    from learn.transcripts.filterspec import NOISE_SPEC, FilterSpec
    from learn.transcripts.models import (
        AssistantEvent,
        AttachmentEvent,
        EntryMeta,
        EventList,
        ModeEvent,
        OtherEvent,
        SystemEvent,
        Transcript,
        TranscriptEvent,
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
    from learn.transcripts.printmode import (
        InitInfo,
        McpServer,
        ModelUsage,
        Plugin,
        PrintMessage,
        PrintResult,
    )

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

# Where each name lives; every name not listed here is in learn.transcripts.models
# (the events; the blocks, details and print-mode shapes are its sibling modules).
_ELSEWHERE: dict[str, str] = {
    "FilterSpec": "learn.transcripts.filterspec",
    "NOISE_SPEC": "learn.transcripts.filterspec",
    "parse": "learn.transcripts.parser",
    "parse_event": "learn.transcripts.parser",
    "parse_events": "learn.transcripts.parser",
    "parse_events_from_bytes": "learn.transcripts.parser",
    "stream": "learn.transcripts.parser",
    "parse_print_result": "learn.transcripts.claude.print_result",
    "ApiError": "learn.transcripts.blocks",
    "Attribution": "learn.transcripts.blocks",
    "CacheCreation": "learn.transcripts.blocks",
    "ContentBlock": "learn.transcripts.blocks",
    "FallbackBlock": "learn.transcripts.blocks",
    "OtherBlock": "learn.transcripts.blocks",
    "Question": "learn.transcripts.blocks",
    "ServerToolUse": "learn.transcripts.blocks",
    "TextBlock": "learn.transcripts.blocks",
    "ThinkingBlock": "learn.transcripts.blocks",
    "ToolResultBlock": "learn.transcripts.blocks",
    "ToolUseBlock": "learn.transcripts.blocks",
    "Usage": "learn.transcripts.blocks",
    "AsyncHookResponse": "learn.transcripts.details",
    "AttachmentDetail": "learn.transcripts.details",
    "CompactBoundary": "learn.transcripts.details",
    "HookAdditionalContext": "learn.transcripts.details",
    "HookBlockingError": "learn.transcripts.details",
    "HookCancelled": "learn.transcripts.details",
    "HookInfo": "learn.transcripts.details",
    "HookNonBlockingError": "learn.transcripts.details",
    "HookSuccess": "learn.transcripts.details",
    "ModelRefusalFallback": "learn.transcripts.details",
    "OtherAttachment": "learn.transcripts.details",
    "OtherSystemDetail": "learn.transcripts.details",
    "PreservedMessages": "learn.transcripts.details",
    "PreservedSegment": "learn.transcripts.details",
    "QueuedCommand": "learn.transcripts.details",
    "StopHookSummary": "learn.transcripts.details",
    "SystemDetail": "learn.transcripts.details",
    "TurnDuration": "learn.transcripts.details",
    "InitInfo": "learn.transcripts.printmode",
    "McpServer": "learn.transcripts.printmode",
    "ModelUsage": "learn.transcripts.printmode",
    "Plugin": "learn.transcripts.printmode",
    "PrintMessage": "learn.transcripts.printmode",
    "PrintResult": "learn.transcripts.printmode",
}
_WHERE: dict[str, str] = {
    name: _ELSEWHERE.get(name, "learn.transcripts.models") for name in __all__
}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())
