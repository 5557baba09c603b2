"""What `claude -p --output-format json` prints, typed (part of the seed's event model).

The parser for the payload is `learn.transcripts.claude.print_result`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from learn.transcripts.blocks import ContentBlock, Usage
from learn.transcripts.ids import EventUuid, SessionId

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
