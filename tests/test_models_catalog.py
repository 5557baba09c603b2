"""Model facts: prefix resolution, defaults that accept the one-forced-tool contract."""

from __future__ import annotations

from learn.models.catalog import DEFAULT_MODELS, UNKNOWN_CONTEXT_WINDOW, model_info


def test_dated_ids_resolve_to_the_longest_known_prefix() -> None:
    assert model_info("claude-haiku-4-5-20251001").name == "claude-haiku-4-5"
    assert model_info("claude-sonnet-5-5-20260901").name == "claude-sonnet-5-5"
    assert model_info("claude-sonnet-5-20260630").name == "claude-sonnet-5"


def test_unknown_models_are_small_free_and_forced() -> None:
    info = model_info("qwen3-coder-30b")
    assert info.context_window == UNKNOWN_CONTEXT_WINDOW
    assert info.cost(1_000_000, 1_000_000) == 0.0
    assert info.forced_tool_choice


def test_context_window_override_keeps_prices_and_tool_choice() -> None:
    info = model_info("claude-sonnet-5-5", context_window=50_000)
    assert info.context_window == 50_000
    assert info.output_per_mtok == 10.0 and not info.forced_tool_choice


def test_default_models_accept_a_forced_tool() -> None:
    for step, model in DEFAULT_MODELS.items():
        info = model_info(model)
        assert info.name == model, step  # known, so priced and sized
        assert info.forced_tool_choice, step
        assert model != "claude-sonnet-4-5", "end of life 2026-11-30"
