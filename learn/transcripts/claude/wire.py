"""The wire shapes a Claude Code JSONL line decodes into.

msgspec decodes each line straight into these Structs: a union tagged on
"type" whose unknown fields are ignored, so a line costs one pass and no dict.
They are private to the parser; `events.py` turns them into the public models
(`learn.transcripts.models`) the first time an event is read.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

from learn.transcripts.blocks import (
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

# RFC 3339 with an offset; an offset-less or out-of-range timestamp fails the
# line (counted "invalid") rather than becoming a naive datetime that would
# later refuse to compare with every other one.
Timestamp = Annotated[datetime, msgspec.Meta(tz=True)]

# Where the parser parks the untyped decode of a system or attachment line on
# its wire struct (always overwritten after decoding, so a clash is harmless).
RAW_KEY = "__learn_raw__"


# ---------------------------------------------------------------- wire structs


# The Structs a line decodes into declare their fields in the order Claude Code
# 2.x writes the keys (parentUuid, isSidechain, userType, cwd, sessionId, version,
# gitBranch, entrypoint, slug, type, [agentId], ..., message, uuid, timestamp):
# msgspec looks a key up among the fields from the one after the field last
# matched, wrapping round, so a key in declared order is found at the first
# compare, and one out of order walks the fields to it. A subclass's fields
# follow its base's, so uuid and timestamp lead Env and each subclass ends on
# `message`: after it the lookup wraps round to uuid. The fields rarely written
# sit where the walk passes them once. All kw_only and never built by position:
# the order changes nothing else. (callgrind: decoding the spread bench home's
# Claude files, 250 sessions, ran 0.954x the instructions; a first listing 0.988x.)


class Env(msgspec.Struct, rename="camel", kw_only=True, gc=False):
    uuid: str
    timestamp: Timestamp
    parent_uuid: str | None = None
    is_sidechain: bool | None = None
    user_type: str | None = None
    cwd: str | None = None
    session_id: str
    version: str | None = None
    git_branch: str | None = None
    entrypoint: str | None = None
    slug: str | None = None
    agent_id: str | None = None
    is_meta: bool | None = None
    is_compact_summary: bool | None = None
    is_visible_in_transcript_only: bool | None = None
    # `/branch` (`/fork`) copies the earlier conversation into the new session's
    # file, every copied entry naming where it came from.
    forked_from: Any = None


class OtherBlockW(msgspec.Struct, tag="\x00other", gc=False):
    raw: dict[str, Any]


class ResultItemW(msgspec.Struct, gc=False):
    type: str = ""
    text: Any = None


class ToolResultW(msgspec.Struct, tag="tool_result", kw_only=True, gc=False):
    tool_use_id: str
    is_error: bool | None = None
    content: str | list[ResultItemW] | None = None


class UserMsgW(msgspec.Struct, gc=False):
    content: str | list[TextBlock | ToolResultW | OtherBlockW]


class ToolUseResultW(msgspec.Struct, rename="camel", gc=False):
    """A `toolUseResult` object: the keys learn reads (`events.tool_result_payload`).

    The rest is skipped, not decoded: Claude Code writes the tool's whole outcome
    there (a Read's file, an Edit's `originalFile` and patch), often the largest
    part of a line, and none of it is read: skipped, it is never made into Python
    objects."""

    is_async: Any = msgspec.UNSET
    questions: Any = msgspec.UNSET
    answers: Any = msgspec.UNSET
    annotations: Any = msgspec.UNSET


# Every JSON type: a `toolUseResult` of any other shape is kept as it was written
# (a string: "User rejected tool use"), never a reason to drop the line.
ToolUseResult = ToolUseResultW | str | list[Any] | int | float | bool | None


class UserW(Env, tag="user", rename="camel", kw_only=True, gc=False):
    tool_denial_kind: str | None = None
    prompt_source: str | None = None
    queue_priority: str | None = None
    image_paste_ids: list[int] | None = None
    source_tool_use_id: str | None = msgspec.field(default=None, name="sourceToolUseID")
    mcp_meta: dict[str, Any] | None = None
    permission_mode: str | None = None
    interrupted_message_id: str | None = None
    origin: Any = None
    prompt_id: str | None = None
    source_tool_assistant_uuid: str | None = msgspec.field(
        default=None, name="sourceToolAssistantUUID"
    )
    tool_use_result: ToolUseResult = None
    message: UserMsgW


class ModelRefW(msgspec.Struct, gc=False):
    model: str


class FallbackW(msgspec.Struct, tag="fallback", gc=False):
    from_: ModelRefW = msgspec.field(name="from")
    to: ModelRefW


class AssistantMsgW(msgspec.Struct, kw_only=True, gc=False):
    id: str | None = None
    model: str
    content: list[TextBlock | ThinkingBlock | ToolUseBlock | FallbackW | OtherBlockW]
    stop_reason: str | None = None
    usage: Usage | None = None


class AssistantW(Env, tag="assistant", rename="camel", kw_only=True, gc=False):
    attribution_plugin: str | None = None
    attribution_skill: str | None = None
    attribution_mcp_server: str | None = None
    attribution_mcp_tool: str | None = None
    is_api_error_message: bool | None = None
    error: Any = None
    api_error_status: int | None = None
    error_details: Any = None
    request_id: str | None = None
    message: AssistantMsgW


class SystemW(Env, tag="system", rename="camel", kw_only=True, gc=False):
    subtype: str
    level: Any = None
    content: Any = None
    raw: Any = msgspec.field(default=None, name=RAW_KEY)


class AttachmentPayloadW(msgspec.Struct, gc=False):
    type: str


class AttachmentW(Env, tag="attachment", rename="camel", kw_only=True, gc=False):
    attachment: AttachmentPayloadW
    raw: Any = msgspec.field(default=None, name=RAW_KEY)


class ModeW(msgspec.Struct, tag="mode", rename="camel", gc=False):
    mode: str
    session_id: str


class PermissionModeW(msgspec.Struct, tag="permission-mode", rename="camel", gc=False):
    permission_mode: str
    session_id: str


class LazyOther(msgspec.Struct, gc=False):
    """An entry kept as its line bytes until read, then an OtherEvent.

    Used by the other agents' lowerings (`lowering.lazy`) for bookkeeping
    records, so the untyped decode that builds `raw` is only paid for events
    someone reads. (Codex rollouts no longer: each of their lines is decoded
    once, untyped, and its OtherEvent holds that; see `codex/lines.read_line`.)
    """

    type: str
    line: bytes


# `progress` and `file-history-snapshot` lines are a sixth of a Claude Code file's
# lines here (bench home spread: 3,586 of 28,404) and no reader looks past their type
# while parsing. Tagged in the union, they decode without building their bodies:
# one that a FilterSpec drops costs that skip and nothing more (it raised and was
# matched on its error text before: NOISE_SPEC parse and read of that home's Claude files
# ran 0.975x the instructions, this change alone), and one kept is decoded untyped as any
# unmodeled line is (`decode._slow_path`), so its OtherEvent is the same.


class ProgressW(msgspec.Struct, tag="progress", gc=False):
    pass


class SnapshotW(msgspec.Struct, tag="file-history-snapshot", gc=False):
    pass


Entry = UserW | AssistantW | SystemW | AttachmentW | ModeW | PermissionModeW | ProgressW | SnapshotW

# Lines the slow path reads as OtherEvents though the union names them.
SKIPPED_BODY_TYPES: dict[type, str] = {ProgressW: "progress", SnapshotW: "file-history-snapshot"}

MODELED_TYPES = frozenset({"user", "assistant", "system", "attachment", "mode", "permission-mode"})
USER_BLOCK_TYPES = frozenset({"text", "tool_result"})
ASSISTANT_BLOCK_TYPES = frozenset({"text", "thinking", "tool_use", "fallback"})
WIRE_TYPE_NAMES: dict[type, str] = {
    UserW: "user",
    AssistantW: "assistant",
    SystemW: "system",
    AttachmentW: "attachment",
    ModeW: "mode",
    PermissionModeW: "permission-mode",
}

