"""Cut a rendered session into model-sized chunks, on item boundaries only.

A chunk never cuts a user turn in half, multi-line ones included: losing the
second half of a long directive is exactly the failure this pipeline exists to
remove, and hoocode (which cut on raw newlines) could do it to any turn with a
line break in it. A single item longer than the budget gets its own oversized
chunk rather than being split.

Chunk size comes from the reading model's window, with no fixed floor: a 40k
char floor (hoocode) is ~13k tokens and overflows an 8k local model on every
call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from learn.textcut import cut_middle

# Conservative on purpose: English prose runs ~4 chars/token, but code, paths,
# JSON and non-Latin text run closer to 3, and overshooting costs a
# context-overflow error rather than a slightly smaller chunk.
CHARS_PER_TOKEN: Final = 3
# Tokenizer variance and the request envelope (tool schema, role markup).
SAFETY_FRACTION: Final = 0.9
TOOL_SCHEMA_TOKENS: Final = 400
# Below this a window cannot hold a useful chunk next to the prompt and answer.
MIN_CHUNK_TOKENS: Final = 256
# The miner's answer budget: 40 candidates of ~100 tokens each fit in 4k with
# room; a larger budget only lets a model ramble.
MINE_MAX_TOKENS: Final = 8192


def mine_max_tokens(context_window: int, max_output_tokens: int) -> int:
    """The answer budget for one mining call: never more than a quarter of the window."""
    return max(256, min(max_output_tokens, MINE_MAX_TOKENS, context_window // 4))


def chunk_chars_for_model(context_window: int, max_output_tokens: int, prompt_chars: int) -> int:
    """How many rendered characters fit in one mining call for this model.

    The window must hold the system prompt, the tool schema, the answer and the
    chunk; only what is left goes to the chunk, converted at a pessimistic
    chars/token. Raises ValueError when the window cannot hold a useful chunk at
    all, rather than returning a size that is sure to overflow.
    """
    if context_window <= 0:
        raise ValueError(f"context window must be positive, got {context_window}")
    answer = mine_max_tokens(context_window, max_output_tokens)
    prompt_tokens = -(-prompt_chars // CHARS_PER_TOKEN) + TOOL_SCHEMA_TOKENS
    free = int((context_window - answer - prompt_tokens) * SAFETY_FRACTION)
    if free < MIN_CHUNK_TOKENS:
        raise ValueError(
            f"a {context_window}-token window leaves {max(free, 0)} tokens for the transcript "
            f"after the prompt and answer; use a model with a larger window"
        )
    return free * CHARS_PER_TOKEN


def hard_chunk_chars(chunk_chars: int) -> int:
    """The most a chunk can be before it is sure to overflow: the budget without
    the safety margin, at an optimistic 4 chars/token. An oversized single turn
    up to this is sent whole; past it, `fit_chunk` cuts it."""
    return int(chunk_chars / SAFETY_FRACTION / CHARS_PER_TOKEN * 4)


def fit_chunk(chunk: str, limit: int) -> str:
    """`chunk` cut to `limit` chars, keeping its head and tail, when it is longer.

    Only a single turn bigger than the whole window gets here (a pasted log, a
    file): sending it whole is a guaranteed context-overflow error that would
    fail the session on every run. The head and the tail are kept because a
    paste usually ends with what the user wants done about it.
    """
    return cut_middle(chunk, limit, "longer than the model's window")


def as_sent(chunk: str, chunk_chars: int) -> str:
    """A chunk as the miner sends it at this chunk budget (a turn bigger than any
    window is cut by fit_chunk); `learn plan` prices exactly this."""
    return fit_chunk(chunk, hard_chunk_chars(chunk_chars))


def chunk_groups(blocks: Iterable[str], chunk_chars: int) -> list[tuple[str, ...]]:
    """Greedily pack whole blocks into groups whose newline-joined size is <= chunk_chars.

    A block longer than `chunk_chars` becomes a group of its own.
    """
    if chunk_chars <= 0:
        raise ValueError(f"chunk_chars must be positive, got {chunk_chars}")
    groups: list[tuple[str, ...]] = []
    current: list[str] = []
    size = 0
    for block in blocks:
        if not block:
            continue
        added = len(block) + (1 if current else 0)
        if current and size + added > chunk_chars:
            groups.append(tuple(current))
            current, size = [], 0
            added = len(block)
        current.append(block)
        size += added
    if current:
        groups.append(tuple(current))
    return groups


def chunk_blocks(blocks: Iterable[str], chunk_chars: int) -> list[str]:
    """Greedily pack whole blocks (joined by newlines) into chunks of <= chunk_chars.

    A block longer than `chunk_chars` becomes a chunk of its own.
    """
    return ["\n".join(group) for group in chunk_groups(blocks, chunk_chars)]


def halve_group(blocks: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Two halves of a chunk's blocks, cut at the block boundary nearest the middle.

    For an answer that the model could not finish within its largest budget:
    half the transcript asks for about half the answer. None for a single
    block, which cannot be cut without cutting a turn.
    """
    if len(blocks) < 2:
        return None
    total = sum(len(b) for b in blocks)
    best, best_gap, running = 1, total, 0
    for k in range(1, len(blocks)):
        running += len(blocks[k - 1])
        gap = abs(total - 2 * running)
        if gap < best_gap:
            best, best_gap = k, gap
    return tuple(blocks[:best]), tuple(blocks[best:])


# The head of a rendered item: `USER: `, `USER (rejecting Bash): `, `TOOL: `, `ERROR: `.
_ITEM_HEAD_RE: Final = re.compile(r"^(?=USER(?: \([^)\n]*\))?: |TOOL: |ERROR: )", re.M)


def split_items(text: str) -> list[str]:
    """Split rendered text back into items (a line starting with an item head opens one)."""
    if not text:
        return []
    parts = _ITEM_HEAD_RE.split(text)
    return [p.rstrip("\n") for p in parts if p.strip()]


def chunk_transcript(text: str, chunk_chars: int) -> list[str]:
    """Chunk rendered text on item boundaries (never inside a user turn).

    The miner chunks the blocks straight from `render_blocks`, which is exact;
    this text form recovers the items from their heads, so a continuation line
    of a user turn that itself starts with `USER: ` is the one thing it would
    mistake for a boundary.
    """
    if not text.strip():
        return []
    if len(text) <= chunk_chars:
        return [text]
    return chunk_blocks(split_items(text), chunk_chars)
