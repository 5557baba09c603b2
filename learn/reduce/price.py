"""What naming, coverage and judging would cost, before a run: `learn plan`'s other stages.

The plan priced mining alone: "8 model calls … at most ~$0.03" for the demo,
whose run made 14 (4 naming, 1 coverage, 1 judging: the stronger model's calls).
These stages see candidates, not transcripts, and how many there will be is
known only after mining, so the estimate is an upper-leaning guess with its
assumptions named: the candidates the mining cache already holds (their texts
the model has named before are not asked again), plus EST_CANDIDATES_PER_SESSION
for each session still to mine; naming asks once per kind per MAX_BATCH items;
EST_PROPOSALS_PER_CANDIDATE of the new ones reach coverage and judging (a point
named before keeps its verdict), at most the per-kind cap of each kind; every
item is priced at its stage's worst-case token budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from learn.models.catalog import model_info
from learn.reduce.naming_batches import (
    ANSWER_OVERHEAD_TOKENS,
    INPUT_TOKENS_PER_ITEM,
    MAX_BATCH,
    TOKENS_PER_ITEM,
)

# Verified candidates per mined session: 23 from the demo's 8 sessions (2.9).
EST_CANDIDATES_PER_SESSION: Final = 3.0
# Points over threshold per candidate: 7 of the demo's 23 (0.30).
EST_PROPOSALS_PER_CANDIDATE: Final = 0.3
KINDS: Final = 3  # directive, fix, request: naming asks per kind
# The fixed part of each call: its prompt file and the tool's schema (~4 chars a token).
PROMPT_TOKENS: Final = 1_200
# Coverage: an item and its shortlist of rules (learn.reduce.coverage, 8 rules).
COVERAGE_TOKENS_PER_ITEM: Final = 400
COVERAGE_BATCH: Final = 40
COVERAGE_ANSWER_PER_ITEM: Final = 30
# Judging: an item with its quotes and context (learn.reduce.judge).
JUDGE_TOKENS_PER_ITEM: Final = 600
JUDGE_BATCH: Final = 12
JUDGE_ANSWER_PER_ITEM: Final = 220


@dataclass(frozen=True, slots=True)
class StageEstimate:
    step: str  # name | coverage | judge
    model: str
    calls: int
    items: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


def reduce_estimates(
    *,
    to_name: Mapping[str, int],
    candidates: int,
    new_sessions: int,
    models: Mapping[str, str],
    max_per_kind: int,
) -> list[StageEstimate]:
    """Naming, coverage and judging for a run over `candidates` known candidates
    (`to_name`: per kind, the texts no model has named yet) and `new_sessions` to mine."""
    guessed = math.ceil(new_sessions * EST_CANDIDATES_PER_SESSION)
    per_kind = dict(to_name)
    if guessed:
        for kind in ("directive", "fix", "request"):
            per_kind[kind] = per_kind.get(kind, 0) + math.ceil(guessed / KINDS)
    naming_items = sum(per_kind.values())
    naming_calls = sum(math.ceil(n / MAX_BATCH) for n in per_kind.values() if n)
    # Only what is new is judged again: a point whose candidates were all named
    # before keeps its verdict (verdict memory), so a warm run asks nothing.
    proposals = min(math.ceil(naming_items * EST_PROPOSALS_PER_CANDIDATE), KINDS * max_per_kind,
                    candidates + guessed)
    out = [
        _stage("name", models["name"], naming_calls, naming_items,
               INPUT_TOKENS_PER_ITEM, TOKENS_PER_ITEM),
        _stage("coverage", models["coverage"], math.ceil(proposals / COVERAGE_BATCH), proposals,
               COVERAGE_TOKENS_PER_ITEM, COVERAGE_ANSWER_PER_ITEM),
        _stage("judge", models["judge"], math.ceil(proposals / JUDGE_BATCH), proposals,
               JUDGE_TOKENS_PER_ITEM, JUDGE_ANSWER_PER_ITEM),
    ]
    return out


def _stage(step: str, model: str, calls: int, items: int, in_per_item: int,
           out_per_item: int) -> StageEstimate:
    if not calls:
        return StageEstimate(step, model, 0, 0, 0, 0, 0.0)
    input_tokens = calls * PROMPT_TOKENS + items * in_per_item
    output_tokens = calls * ANSWER_OVERHEAD_TOKENS + items * out_per_item
    cost = model_info(model).cost(input_tokens, output_tokens)
    return StageEstimate(step, model, calls, items, input_tokens, output_tokens, cost)
