"""How naming splits its items into calls: batches sized to the output budget
(a 200-item batch at ~14 tokens an item came close to a 4k cap, and one
truncated answer threw away the whole batch), filled with whole clusters so one
call sees a point's paraphrases side by side."""

from __future__ import annotations

from collections.abc import Sequence

TOKENS_PER_ITEM = 15  # one `{"id": 12, "label": "use-bun-not-npm"}` row, measured ~14
ANSWER_OVERHEAD_TOKENS = 256
MAX_BATCH = 60
# An item line is at most 400 characters (format_items' cut) plus its known
# labels: ~120 tokens is the worst case, not the typical one.
INPUT_TOKENS_PER_ITEM = 120


def batch_size_for(
    max_output_tokens: int, *, max_batch: int = MAX_BATCH, context_window: int | None = None
) -> int:
    """How many items one call may name so the whole answer fits the output
    budget (and, for a small local model, the items fit half its window)."""
    size = min(max_batch, (max_output_tokens - ANSWER_OVERHEAD_TOKENS) // TOKENS_PER_ITEM)
    if context_window is not None:
        size = min(size, context_window // 2 // INPUT_TOKENS_PER_ITEM)
    return max(1, size)


def pack_batches(clusters: Sequence[Sequence[int]], size: int) -> list[list[int]]:
    """First-fit-decreasing: whole clusters per batch where they fit, a cluster
    larger than a batch split into consecutive full batches."""
    batches: list[list[int]] = []
    for members in sorted(clusters, key=lambda m: (-len(m), m[0] if m else 0)):
        rest = list(members)
        while len(rest) > size:
            batches.append(rest[:size])
            rest = rest[size:]
        if not rest:
            continue
        for batch in batches:
            if len(batch) + len(rest) <= size:
                batch.extend(rest)
                break
        else:
            batches.append(rest)
    return batches
