"""Token usage and the content blocks of a message (part of the seed's event model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import msgspec

from learn.transcripts.ids import ToolUseId

# ---------------------------------------------------------------- usage


class CacheCreation(msgspec.Struct, frozen=True, gc=False):
    """The split of cache-creation input tokens by TTL bucket."""

    ephemeral_5m_input_tokens: int = 0
    ephemeral_1h_input_tokens: int = 0


class ServerToolUse(msgspec.Struct, frozen=True, gc=False):
    """Server-side tool invocation counts billed within a turn."""

    web_search_requests: int = 0
    web_fetch_requests: int = 0


class Usage(msgspec.Struct, frozen=True, gc=False):
    """Token usage and cache accounting for one assistant turn or a -p result."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_creation: CacheCreation | None = None
    service_tier: str | None = None
    inference_geo: str | None = None
    server_tool_use: ServerToolUse | None = None


class Attribution(msgspec.Struct, frozen=True, gc=False):
    """The plugin, skill, or MCP tool an assistant turn is attributed to."""

    plugin: str | None = None
    skill: str | None = None
    mcp_server: str | None = None
    mcp_tool: str | None = None


class ApiError(msgspec.Struct, frozen=True, gc=False):
    """The upstream API error an assistant turn failed with."""

    error: str | None = None
    status: int | None = None
    details: str | None = None


# ---------------------------------------------------------------- blocks
# TextBlock, ThinkingBlock and ToolUseBlock carry a msgspec tag so the parser
# decodes them straight from the wire (their JSON names already match),
# skipping a per-block conversion on the hottest path.


class TextBlock(msgspec.Struct, frozen=True, gc=False, tag="text"):
    """A text content block from a user or assistant message."""

    text: str


class ThinkingBlock(msgspec.Struct, frozen=True, gc=False, tag="thinking"):
    """An extended-thinking content block emitted by the assistant."""

    thinking: str


class Question(msgspec.Struct, frozen=True, gc=False):
    """One AskUserQuestion round lifted from a tool-use input's questions array."""

    question: str
    header: str | None = None
    multi_select: bool = False
    labels: tuple[str, ...] = ()


class ToolUseBlock(msgspec.Struct, frozen=True, gc=False, tag="tool_use"):
    """An assistant request to invoke a tool."""

    id: ToolUseId
    name: str
    input: Mapping[str, Any] = msgspec.field(default_factory=dict)

    @property
    def file_path(self) -> str | None:
        """The raw file_path input argument when it is a string, else None."""
        inp = self.input
        if not isinstance(inp, Mapping):
            return None
        value = inp.get("file_path")
        return value if isinstance(value, str) else None

    @property
    def questions(self) -> tuple[Question, ...] | None:
        """The AskUserQuestion rounds from the questions input array, or None."""
        # dict (what the decoder gives) by exact type first: an ABC isinstance is a call.
        inp = self.input
        if not (type(inp) is dict or isinstance(inp, Mapping)):
            return None
        raw = inp.get("questions")
        if not isinstance(raw, list):
            return None
        out: list[Question] = []
        for item in raw:
            if not (type(item) is dict or isinstance(item, Mapping)):
                continue
            question = item.get("question")
            if not isinstance(question, str):
                continue
            header = item.get("header")
            options = item.get("options")
            labels: list[str] = []
            if isinstance(options, list):
                for option in options:
                    if (type(option) is dict or isinstance(option, Mapping)) and isinstance(
                            option.get("label"), str):
                        labels.append(option["label"])
                    elif isinstance(option, str):
                        labels.append(option)
            out.append(
                Question(
                    question=question,
                    header=header if isinstance(header, str) else None,
                    multi_select=item.get("multiSelect") is True,
                    labels=tuple(labels),
                )
            )
        return tuple(out)


class ToolResultBlock(msgspec.Struct, frozen=True, gc=False):
    """The result of a tool invocation, delivered in a user turn."""

    tool_use_id: ToolUseId
    content: str = ""
    is_error: bool = False
    is_async: bool = False
    # The entry's `toolUseResult`: of an object, only the keys learn reads (isAsync,
    # questions, answers, annotations; learn.transcripts.claude.wire.ToolUseResultW).
    tool_use_result: Mapping[str, Any] | str | None = None
    denial_kind: str | None = None


class FallbackBlock(msgspec.Struct, frozen=True, gc=False):
    """A marker that the assistant turn fell back from one model to another."""

    from_model: str
    to_model: str


class OtherBlock(msgspec.Struct, frozen=True, gc=False):
    """Any content block whose type is not modeled; carried verbatim."""

    type: str
    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)


ContentBlock: TypeAlias = (
    TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | FallbackBlock | OtherBlock
)
