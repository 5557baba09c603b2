"""Build the public events (`learn.transcripts.models`) from decoded wire records.

An event is built from its wire Struct the first time it is read (EventList
calls `materialize`), so a consumer that filters or counts pays only for the
decode. The user and assistant builders are most of that cost, so they are
written for speed (positional arguments, common cases first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

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
from learn.transcripts.claude.entry_details import as_dict, as_str, attachment_detail, system_detail
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
    ToolUseResultW,
    UserW,
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

__all__ = ["BUILDERS", "materialize"]


# ---------------------------------------------------------------- materializing


def _meta(w: Env) -> EntryMeta:
    # Most entries were not copied by a fork: no call to find out (one per event).
    source, uuid = (None, None) if w.forked_from is None else _copied_from(w)
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
        source,
        uuid,
    )


def _copied_from(w: Env) -> tuple[str | None, str | None]:
    """(session, entry uuid) a fork copied this entry from (`forkedFrom`), when another."""
    forked = w.forked_from
    if not isinstance(forked, dict):
        return None, None
    source, uuid = forked.get("sessionId"), forked.get("messageUuid")
    if not isinstance(source, str) or not source or source == w.session_id:
        return None, None
    return source, uuid if isinstance(uuid, str) and uuid and uuid != w.uuid else None


def _flatten_result(content: str | list[ResultItemW] | None) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if len(content) == 1:
        # One text item (a tool result's usual shape besides a string), without the
        # join: callgrind, building the spread bench home's Claude events, 0.96x.
        only = content[0]
        return only.text if only.type == "text" and type(only.text) is str else ""
    return "".join(
        item.text for item in content if item.type == "text" and isinstance(item.text, str)
    )


def tool_result_payload(w: UserW) -> Any:
    """The entry's `toolUseResult` as its tool-result blocks hold it: an object as a
    dict of the keys decoded (`wire.ToolUseResultW`), anything else as written."""
    tur = w.tool_use_result
    if type(tur) is not ToolUseResultW:
        return tur
    out: dict[str, Any] = {}
    if tur.is_async is not UNSET:
        out["isAsync"] = tur.is_async
    if tur.questions is not UNSET:
        out["questions"] = tur.questions
    if tur.answers is not UNSET:
        out["answers"] = tur.answers
    if tur.annotations is not UNSET:
        out["annotations"] = tur.annotations
    return out


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
        payload: Any = None
        for block in content:
            kind = type(block)
            if kind is ToolResultW:
                tr: ToolResultW = block  # type: ignore[assignment]
                if is_async is None:
                    payload = tool_result_payload(w)
                    is_async = type(payload) is dict and payload.get("isAsync") is True
                # A string (7 in 10 results in the bench homes) is the text itself: no
                # call to flatten it (callgrind: building the Claude events of the spread
                # and tree bench homes, 250 sessions each, 0.982x the instructions).
                flat = tr.content
                if type(flat) is not str:
                    flat = _flatten_result(flat)
                is_error = tr.is_error is True
                denial = w.tool_denial_kind
                if denial is None and is_error and flat.startswith(DENIAL_PREFIX):
                    denial = DENIAL_KIND_USER_REJECTED
                out.append(ToolResultBlock(
                    tr.tool_use_id, flat, is_error, is_async, payload, denial
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
    # _meta's body, copied here and in _assistant: no call for it per event, and
    # these two build most events (22,644 of 24,071 in the spread bench home).
    source, uuid = (None, None) if w.forked_from is None else _copied_from(w)
    return UserEvent(
        EntryMeta(
            w.uuid, w.session_id, w.timestamp, w.parent_uuid or None, w.cwd, w.git_branch,
            w.version or None, w.is_sidechain is True, w.is_meta is True, w.entrypoint,
            w.is_compact_summary is True, w.is_visible_in_transcript_only is True,
            w.user_type, w.slug, w.agent_id, source, uuid,
        ),
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
        else as_str(origin.get("kind")) if isinstance(origin, dict) else as_str(origin),
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
            error=as_str(error),
            status=w.api_error_status,
            details=details if isinstance(details, str) or details is None
            else msgspec.json.encode(details).decode(),
        )
    forked = w.forked_from
    source, uuid = (None, None) if forked is None else _copied_from(w)
    return AssistantEvent(
        EntryMeta(
            w.uuid, w.session_id, w.timestamp, w.parent_uuid or None, w.cwd, w.git_branch,
            w.version or None, w.is_sidechain is True, w.is_meta is True, w.entrypoint,
            w.is_compact_summary is True, w.is_visible_in_transcript_only is True,
            w.user_type, w.slug, w.agent_id, source, uuid,
        ),
        message.model,
        " ".join(texts) if texts else "",
        tuple(out),
        message.stop_reason,
        message.usage,
        w.request_id,
        None if forked is None
        else as_str(forked) if not isinstance(forked, dict)
        else as_str(forked.get("messageUuid") or forked.get("uuid")),
        attribution,
        api_error,
        message.id,
    )


def _system(w: SystemW) -> SystemEvent:
    raw = w.raw if isinstance(w.raw, dict) else {}
    return SystemEvent(
        meta=_meta(w),
        subtype=w.subtype,
        detail=system_detail(w.subtype, raw),
        content=as_str(w.content),
        level=as_str(w.level),
    )


def _attachment(w: AttachmentW) -> AttachmentEvent:
    raw = w.raw if isinstance(w.raw, dict) else {}
    payload = as_dict(raw.get("attachment")) or {}
    kind = w.attachment.type
    return AttachmentEvent(
        meta=_meta(w), attachment_type=kind, detail=attachment_detail(kind, payload, raw)
    )


def _mode(wire: ModeW) -> ModeEvent:
    return ModeEvent(session_id=wire.session_id, channel="mode", value=wire.mode)


def _permission_mode(wire: PermissionModeW) -> ModeEvent:
    return ModeEvent(
        session_id=wire.session_id, channel="permission-mode", value=wire.permission_mode
    )


def _lazy_other(wire: LazyOther) -> OtherEvent:
    raw = decode_untyped(wire.line)
    # None when the line nests too deep to read at this depth of the stack.
    return OtherEvent(type=wire.type, raw=raw if isinstance(raw, dict) else {"type": wire.type})


# The builder of each wire record's public event, by the record's type: what
# EventList calls as it reads (a public event is kept as it is).
BUILDERS: dict[type, Callable[[Any], TranscriptEvent]] = {
    UserW: _user,
    AssistantW: _assistant,
    SystemW: _system,
    AttachmentW: _attachment,
    ModeW: _mode,
    PermissionModeW: _permission_mode,
    LazyOther: _lazy_other,
}

_PUBLIC = frozenset(
    {UserEvent, AssistantEvent, SystemEvent, ModeEvent, OtherEvent, AttachmentEvent})


def materialize(wire: Any) -> TranscriptEvent:
    """Build the public event for one decoded wire record (a public event is itself)."""
    build = BUILDERS.get(type(wire))
    if build is None:
        if type(wire) in _PUBLIC:
            return wire  # type: ignore[no-any-return]
        raise TypeError(f"not a transcript wire record: {type(wire).__name__}")
    return build(wire)

