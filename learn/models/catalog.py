"""What learn knows about models: context windows, output limits, prices.

Prices are USD per million tokens. Unknown models get conservative defaults
(a small window) so chunking never overflows a local model whose size we do
not know; `--context-window` in config overrides.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    context_window: int
    max_output_tokens: int
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    cache_write_per_mtok: float = 0.0
    cache_read_per_mtok: float = 0.0
    # Whether the API accepts tool_choice forcing one tool. The 5.5 generation
    # answers a forced tool_choice with a 400 (their migration guide lists it
    # among the settings that now error); the Anthropic backend then offers the
    # one tool with tool_choice "auto" instead.
    forced_tool_choice: bool = True

    def cost(self, input_tokens: int, output_tokens: int, cache_write: int = 0, cache_read: int = 0) -> float:
        return (
            input_tokens * self.input_per_mtok
            + output_tokens * self.output_per_mtok
            + cache_write * self.cache_write_per_mtok
            + cache_read * self.cache_read_per_mtok
        ) / 1_000_000


# Defaults per step: a small current model notices (many calls), a stronger one
# names and judges (few calls, harder questions). Both must accept a forced
# tool_choice, the contract's one-tool call: claude-sonnet-4-5 reaches end of
# life on 2026-11-30 (the SDK's deprecation table), and the newer Sonnet 5.5
# rejects forced tool use, so the stronger default is Sonnet 4.6.
DEFAULT_MODELS: dict[str, str] = {
    "mine": "claude-haiku-4-5",
    "name": "claude-sonnet-4-6",
    "coverage": "claude-sonnet-4-6",
    "judge": "claude-sonnet-4-6",
}

_KNOWN: dict[str, ModelInfo] = {
    m.name: m
    for m in (
        ModelInfo("claude-haiku-4-5", 200_000, 64_000, 1.0, 5.0, 1.25, 0.10),
        ModelInfo("claude-sonnet-4-5", 200_000, 64_000, 3.0, 15.0, 3.75, 0.30),
        ModelInfo("claude-sonnet-4-6", 200_000, 64_000, 3.0, 15.0, 3.75, 0.30),
        # 1M windows, but chunks are sized from this number and a smaller chunk
        # only costs calls, while an oversized one costs the answer.
        ModelInfo("claude-sonnet-5", 200_000, 128_000, 2.0, 10.0, 2.50, 0.20),
        ModelInfo("claude-sonnet-5-5", 200_000, 128_000, 2.0, 10.0, 2.50, 0.10, False),
        ModelInfo("claude-opus-5-5", 200_000, 128_000, 4.0, 20.0, 5.0, 0.20, False),
        ModelInfo("claude-opus-4-1", 200_000, 32_000, 15.0, 75.0, 18.75, 1.50),
        ModelInfo("claude-3-5-haiku-latest", 200_000, 8_192, 0.8, 4.0, 1.0, 0.08),
    )
}

UNKNOWN_CONTEXT_WINDOW = 8_192
UNKNOWN_MAX_OUTPUT = 2_048


def model_info(name: str, *, context_window: int | None = None) -> ModelInfo:
    """Facts for `name`; prefix match so dated ids ("claude-haiku-4-5-20251001") resolve."""
    info = _KNOWN.get(name)
    if info is None:
        # Longest prefix wins: "claude-sonnet-5-5-…" must not resolve to "claude-sonnet-5".
        matches = [known for known in _KNOWN if name.startswith(known)]
        if matches:
            info = _KNOWN[max(matches, key=len)]
    if info is None:
        info = ModelInfo(name, UNKNOWN_CONTEXT_WINDOW, UNKNOWN_MAX_OUTPUT)
    if context_window is not None:
        info = ModelInfo(
            info.name, context_window, info.max_output_tokens, info.input_per_mtok,
            info.output_per_mtok, info.cache_write_per_mtok, info.cache_read_per_mtok,
            info.forced_tool_choice,
        )
    return info
