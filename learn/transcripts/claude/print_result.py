"""Parse the payload `claude -p --output-format json` prints, typed.

Its elements and the result element are read by learn.claude_print (the three
shapes the CLI has printed), which the Claude CLI backend reads too; this adds
the init element, the messages and typed usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Under this module's short names: the readers below were written with them.
from learn.claude_print import as_float as _float
from learn.claude_print import as_int as _int
from learn.claude_print import as_str as _str
from learn.claude_print import print_elements, result_cost, result_element, result_errors
from learn.transcripts.blocks import (
    CacheCreation,
    ContentBlock,
    FallbackBlock,
    OtherBlock,
    ServerToolUse,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from learn.transcripts.claude.literals import DENIAL_KIND_USER_REJECTED, DENIAL_PREFIX
from learn.transcripts.printmode import (
    InitInfo,
    McpServer,
    ModelUsage,
    Plugin,
    PrintMessage,
    PrintResult,
)

__all__ = ["blocks_from_content", "parse_print_result"]

def _usage(value: object) -> Usage:
    if not isinstance(value, Mapping):
        return Usage()
    cc = value.get("cache_creation")
    stu = value.get("server_tool_use")
    return Usage(
        input_tokens=_int(value.get("input_tokens")),
        output_tokens=_int(value.get("output_tokens")),
        cache_read_input_tokens=_int(value.get("cache_read_input_tokens")),
        cache_creation_input_tokens=_int(value.get("cache_creation_input_tokens")),
        cache_creation=CacheCreation(
            _int(cc.get("ephemeral_5m_input_tokens")), _int(cc.get("ephemeral_1h_input_tokens"))
        ) if isinstance(cc, Mapping) else None,
        service_tier=_str(value.get("service_tier")),
        inference_geo=_str(value.get("inference_geo")),
        server_tool_use=ServerToolUse(
            _int(stu.get("web_search_requests")), _int(stu.get("web_fetch_requests"))
        ) if isinstance(stu, Mapping) else None,
    )


def _model_usage(value: object) -> ModelUsage:
    if not isinstance(value, Mapping):
        return ModelUsage()
    return ModelUsage(
        input_tokens=_int(value.get("inputTokens")),
        output_tokens=_int(value.get("outputTokens")),
        cache_read_input_tokens=_int(value.get("cacheReadInputTokens")),
        cache_creation_input_tokens=_int(value.get("cacheCreationInputTokens")),
        web_search_requests=_int(value.get("webSearchRequests")),
        cost_usd=_float(value.get("costUSD")),
        context_window=_int(value.get("contextWindow")),
        max_output_tokens=_int(value.get("maxOutputTokens")),
    )


def _flatten(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            item["text"] for item in content
            if isinstance(item, dict) and item.get("type") == "text"
            and isinstance(item.get("text"), str)
        )
    return ""


def blocks_from_content(content: object) -> tuple[ContentBlock, ...]:
    """Typed content blocks from an untyped message `content` value."""
    if isinstance(content, str):
        return (TextBlock(content),)
    if not isinstance(content, list):
        return ()
    out: list[ContentBlock] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            out.append(TextBlock(block["text"]))
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            out.append(ThinkingBlock(block["thinking"]))
        elif kind == "tool_use" and isinstance(block.get("id"), str):
            inp = block.get("input")
            out.append(ToolUseBlock(block["id"], _str(block.get("name")) or "",
                                    inp if isinstance(inp, dict) else {}))
        elif kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
            flat = _flatten(block.get("content"))
            is_error = block.get("is_error") is True
            denial = DENIAL_KIND_USER_REJECTED if is_error and flat.startswith(DENIAL_PREFIX) \
                else None
            out.append(ToolResultBlock(block["tool_use_id"], flat, is_error, False, None, denial))
        elif kind == "fallback":
            src, dst = block.get("from"), block.get("to")
            out.append(FallbackBlock(
                _str(src.get("model")) or "" if isinstance(src, dict) else "",
                _str(dst.get("model")) or "" if isinstance(dst, dict) else "",
            ))
        else:
            out.append(OtherBlock(type=kind if isinstance(kind, str) else "", raw=block))
    return tuple(out)


def _init(element: Mapping[str, Any]) -> InitInfo:
    servers = element.get("mcp_servers")
    plugins = element.get("plugins")
    return InitInfo(
        mcp_servers=tuple(
            McpServer(name=s["name"], status=_str(s.get("status")) or "")
            for s in (servers if isinstance(servers, list) else [])
            if isinstance(s, dict) and isinstance(s.get("name"), str)
        ),
        plugins=tuple(
            Plugin(name=p["name"], path=_str(p.get("path")) or "",
                   source=_str(p.get("source")) or "")
            for p in (plugins if isinstance(plugins, list) else [])
            if isinstance(p, dict) and isinstance(p.get("name"), str)
        ),
        tools=tuple(t for t in element.get("tools") or () if isinstance(t, str)),
        skills=tuple(
            s if isinstance(s, str) else str(s.get("name"))
            for s in element.get("skills") or ()
            if isinstance(s, str) or (isinstance(s, dict) and isinstance(s.get("name"), str))
        ),
        model=_str(element.get("model")),
    )


def _message(element: Mapping[str, Any], session_id: str) -> PrintMessage | None:
    role = element.get("type")
    message = element.get("message")
    if role not in ("user", "assistant") or not isinstance(message, dict):
        return None
    blocks = blocks_from_content(message.get("content"))
    text = " ".join(b.text for b in blocks if isinstance(b, TextBlock))
    return PrintMessage(
        role="user" if role == "user" else "assistant",
        session_id=_str(element.get("session_id")) or session_id,
        text=text,
        blocks=blocks,
        model=_str(message.get("model")),
        uuid=_str(element.get("uuid")),
        id=_str(message.get("id")),
        usage=_usage(message["usage"]) if isinstance(message.get("usage"), dict) else None,
    )


def parse_print_result(raw: bytes) -> PrintResult:
    """Parse a `claude -p --output-format json` payload.

    Raises ValueError when the payload is not JSON or holds no result element.
    """
    elements = print_elements(raw)
    result = result_element(elements)
    session_id = _str(result.get("session_id")) or ""
    init = next(
        (_init(e) for e in elements if e.get("type") == "system" and e.get("subtype") == "init"),
        None,
    )
    messages = tuple(m for e in elements if (m := _message(e, session_id)) is not None)
    model_usage = result.get("modelUsage")
    structured = result.get("structured_output")
    denials = result.get("permission_denials")
    return PrintResult(
        session_id=session_id,
        total_cost_usd=result_cost(result),
        model_usage={
            str(k): _model_usage(v) for k, v in model_usage.items()
        } if isinstance(model_usage, dict) else {},
        usage=_usage(result.get("usage")),
        structured_output=structured if isinstance(structured, dict) else None,
        num_turns=_int(result.get("num_turns")),
        is_error=result.get("is_error") is True,
        result=_str(result.get("result")),
        fast_mode_state=_str(result.get("fast_mode_state")),
        stop_reason=_str(result.get("stop_reason")),
        permission_denials=tuple(d for d in denials if isinstance(d, dict))
        if isinstance(denials, list) else (),
        init=init,
        messages=messages,
        subtype=_str(result.get("subtype")),
        errors=result_errors(result),
    )
