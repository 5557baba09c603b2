"""The one contract every model backend implements.

Every model call in learn is a single request that offers exactly one tool and
forces it; the answer is that tool's input. Backends (Anthropic API, the
`claude` CLI, an OpenAI-compatible endpoint, replay) differ only in transport.
Callers validate the returned `tool_input` with pydantic (see `learn.models.call`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Step = Literal["mine", "name", "coverage", "judge"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str  # record_candidates | assign_labels | check_coverage | record_verdicts
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    step: Step
    model: str
    system: str  # the fixed prompt (cached by backends that support caching)
    tool: ToolSpec
    # The last (and only) user message: the transcript chunk, or the headed
    # numbered lists ending with "ITEMS:". Replay keys on (tool.name, user).
    user: str
    max_tokens: int = 4096


@dataclass(frozen=True, slots=True)
class CallUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        return CallUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cost_usd + other.cost_usd,
            self.calls + other.calls,
        )


@dataclass(frozen=True, slots=True)
class ModelResponse:
    tool_input: Mapping[str, Any]
    model: str
    usage: CallUsage = field(default_factory=CallUsage)
    # "max_tokens" means the answer was cut off: callers treat the input as
    # possibly partial.
    stop_reason: str | None = None


class ModelError(Exception):
    """A model call failed for good (after retries). The message says why in one line.

    `usage` is what the failed call still cost (tokens of answers that could
    not be used), so a run of failed calls does not report zero model calls.
    """

    def __init__(self, message: str = "", *, usage: CallUsage | None = None) -> None:
        super().__init__(message)
        self.usage = usage if usage is not None else CallUsage()


class ReplayMissError(ModelError):
    """The replay backend has no recorded answer for this request."""

    def __init__(self, key: str, tool: str) -> None:
        super().__init__(
            f"no recorded answer for {tool} (key {key}); run with --record against a real backend to fill it"
        )
        self.key = key
        self.tool = tool


class Backend(Protocol):
    name: str

    def call(self, request: ModelRequest) -> ModelResponse:
        """Send one forced-tool request; raise ModelError when it cannot be answered."""
        ...
