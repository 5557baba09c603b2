from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from learn.models.catalog import model_info
from learn.render.chunk import (
    CHARS_PER_TOKEN,
    chunk_blocks,
    chunk_chars_for_model,
    chunk_transcript,
    mine_max_tokens,
)


def test_multi_line_user_turn_is_never_split() -> None:
    turn = "USER: first line of a long directive\n" + "\n".join(f"line {i}" for i in range(40))
    text = "USER: hi\nTOOL: Bash(ls)\n" + turn + "\nTOOL: Bash(pwd)"
    chunks = chunk_transcript(text, 120)
    assert sum(turn in c for c in chunks) == 1
    assert "\n".join(chunks) == text


def test_oversized_turn_gets_its_own_chunk() -> None:
    big = "USER: " + "x" * 500
    chunks = chunk_transcript(f"USER: a\n{big}\nUSER: b", 100)
    assert chunks == ["USER: a", big, "USER: b"]


def test_small_text_is_one_chunk_and_empty_is_none() -> None:
    assert chunk_transcript("USER: a\nUSER: b", 1000) == ["USER: a\nUSER: b"]
    assert chunk_transcript("", 1000) == []
    assert chunk_transcript("  \n", 1000) == []


def test_denial_head_is_a_boundary() -> None:
    text = "USER (rejecting Bash): no\nUSER: " + "y" * 50
    assert chunk_transcript(text, 40) == ["USER (rejecting Bash): no", "USER: " + "y" * 50]


@given(st.lists(st.text(alphabet="ab \n", min_size=1, max_size=60), min_size=1, max_size=30),
       st.integers(min_value=1, max_value=200))
def test_chunk_blocks_keeps_every_block_whole_and_in_order(blocks: list[str], budget: int) -> None:
    blocks = [b for b in blocks if b]
    chunks = chunk_blocks(blocks, budget)
    assert "\n".join(chunks) == "\n".join(blocks)
    for c in chunks:
        # Over budget only when it is a single block.
        assert len(c) <= budget or c in blocks


def test_chunk_size_for_8k_window_fits_the_window() -> None:
    prompt = 3000
    chars = chunk_chars_for_model(8_192, 2_048, prompt)
    answer = mine_max_tokens(8_192, 2_048)
    # Even at a pessimistic 3 chars/token the chunk, prompt and answer fit.
    assert chars // CHARS_PER_TOKEN + prompt // CHARS_PER_TOKEN + answer <= 8_192
    assert chars >= 3_000  # and it is still a useful chunk
    assert chars < 40_000  # the old fixed floor would overflow this window


def test_chunk_size_for_200k_window_is_large() -> None:
    info = model_info("claude-haiku-4-5")
    chars = chunk_chars_for_model(info.context_window, info.max_output_tokens, 3000)
    assert 280_000 < chars < 800_000
    assert chars // CHARS_PER_TOKEN < info.context_window


@pytest.mark.parametrize("window", [1_024, 4_096, 8_192, 32_768, 128_000, 200_000, 1_000_000])
def test_chunk_size_never_exceeds_the_window(window: int) -> None:
    try:
        chars = chunk_chars_for_model(window, 8_192, 2_000)
    except ValueError:
        assert window <= 1_024
        return
    assert chars // CHARS_PER_TOKEN + 2_000 // CHARS_PER_TOKEN + mine_max_tokens(window, 8_192) < window


def test_window_too_small_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="window"):
        chunk_chars_for_model(600, 512, 2_000)
    with pytest.raises(ValueError):
        chunk_chars_for_model(0, 512, 10)


def test_turn_bigger_than_the_window_is_cut_keeping_head_and_tail() -> None:
    from learn.render.chunk import fit_chunk, hard_chunk_chars

    budget = chunk_chars_for_model(8_192, 2_048, 3_000)
    hard = hard_chunk_chars(budget)
    assert hard > budget
    chunk = "USER: HEAD " + "log line\n" * 10_000 + " never retry on 4xx TAIL"
    fitted = fit_chunk(chunk, hard)
    assert len(fitted) <= hard
    assert fitted.startswith("USER: HEAD") and fitted.endswith("TAIL")
    assert "chars cut here" in fitted
    assert fit_chunk("USER: small", hard) == "USER: small"


def test_halve_group_cuts_at_the_block_boundary_nearest_the_middle() -> None:
    from learn.render.chunk import halve_group

    assert halve_group(["a" * 10, "b" * 10, "c" * 30]) == (("a" * 10, "b" * 10), ("c" * 30,))
    assert halve_group(["a" * 30, "b" * 10]) == (("a" * 30,), ("b" * 10,))
    assert halve_group(["only one turn"]) is None
