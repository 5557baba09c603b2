"""Judging: a verdict per proposal, remembered with its vector evidence.

Verdicts are keyed by (dedup_key, role, prompt_version), where the dedup key is
the proposal's `kind:label`. A proposal whose label equals a judged canonical
key, or whose representative text embeds within `reuse_distance` of a judged
one, reuses that verdict without a model call: the same point said again must
not be judged again (and must not be judged differently). A failed call leaves
those proposals without a verdict, reported in `failures`; it is never fatal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.items import flatten, format_items
from learn.records.proposal import Proposal, Verdict
from learn.reduce.answers import VerdictsAnswer, rows_schema, valid_rows
from learn.reduce.cluster import DEFAULT_CONTRAST
from learn.reduce.contrast import contrast_between, is_negated
from learn.reduce.slug import canonical_slug

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import VerdictMemory
    from learn.reduce.windows import QuoteContext

ROLE = "judge"
REUSE_DISTANCE = 0.1
MAX_ITEMS_PER_CALL = 12
TOKENS_PER_VERDICT = 220
OTHER_QUOTES = 3
# One item line's bound. The context part (learn/reduce/windows.py LINE_CHARS)
# grew by the person's turn in full, and sits last: at the old 1600 an item with
# other quotes, a command and an existing rule lost its window to the cut.
ITEM_CHARS = 2000
REUSE_CONTRAST = DEFAULT_CONTRAST
# A swapped slot in near-identical wording ("doc tools" / "network tools" off by
# default) scores topic x Jaccard ~0.15-0.3; paraphrases that share few words
# score under 0.1.
REUSE_MAX_PENALTY = 0.1

RECORD_VERDICTS = ToolSpec(
    name="record_verdicts",
    description="Record a verdict for every item: should it become a written rule?",
    input_schema=rows_schema(
        "verdicts",
        {
            "id": {"type": "integer"},
            "accepted": {"type": "boolean"},
            "category": {"type": "string"},
            "scope": {"type": "string", "enum": ["user", "project"]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "summary": {"type": "string"},
            "rationale": {"type": "string"},
            "canonical_key": {"type": "string"},
        },
        required=["id", "accepted", "category", "scope", "confidence", "summary", "rationale"],
    ),
)


class _Row(BaseModel):
    id: int
    accepted: bool
    category: str
    scope: Literal["user", "project"]
    confidence: float
    summary: str
    rationale: str = ""
    canonical_key: str | None = None


@dataclass(frozen=True, slots=True)
class JudgeResult:
    proposals: tuple[Proposal, ...]
    judged: int = 0  # verdicts from a model call this run
    reused: int = 0  # verdicts taken from memory, no call
    calls: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    unjudged: tuple[str, ...] = ()  # proposal keys left without a verdict
    failures: tuple[str, ...] = ()


def wording_agrees(text: str, judged: str) -> bool:
    """Whether a verdict judged as `judged` (its rule text) may stand for `text`:
    the same negation guard and topic/number guards naming uses. A nearby vector
    or a shared canonical key is not enough: "add comments to the code" and
    "don't add comments to the code" embed ~0.15 apart."""
    if is_negated(text) != is_negated(judged):
        return False
    penalty = contrast_between([text], [judged], REUSE_CONTRAST)
    return float(penalty[0, 0]) < REUSE_MAX_PENALTY


def dedup_key(proposal: Proposal) -> str:
    return proposal.key


def describe(p: Proposal, context: QuoteContext | None = None) -> str:
    """The one-line item the judge sees: the quote plus the evidence that decides it
    (with `context`, what happened around the representative quote, and the
    person's whole turn when the quote is a fragment of it)."""
    parts = [f"{p.label}: \"{flatten(p.text, 300)}\""]
    times = "once" if p.count == 1 else f"{p.count} times"
    parts.append(f"said {times} in {p.sessions} session{'s' if p.sessions != 1 else ''}")
    if p.last_seen:
        parts.append(f"last {p.last_seen[:10]}")
    others = [q.text for q in p.quotes if q.text != p.text]
    uniq = list(dict.fromkeys(flatten(t, 160) for t in others))[:OTHER_QUOTES]
    if uniq:
        parts.append("also: " + " | ".join(f'"{t}"' for t in uniq))
    if p.command:
        parts.append(f"command: {flatten(p.command, 160)}")
    if p.error_excerpt:
        parts.append(f"error: {flatten(p.error_excerpt, 160)}")
    if p.status == "restated" and p.existing_rule:
        parts.append(f"already written as: \"{flatten(p.existing_rule, 200)}\"")
    elif p.status == "has-skill" and p.existing_rule:
        parts.append(f"a skill exists: {p.existing_rule}")
    if context is not None and p.quotes:
        quote = next((q for q in p.quotes if q.text == p.text), p.quotes[0])
        around = context(quote.session_id, quote.text)
        if around:
            parts.append(f"context: {around}")
    return "; ".join(parts)


def _verdict(row: _Row, model: str) -> Verdict | None:
    summary = row.summary.strip()
    if not summary:
        return None
    return Verdict(
        accepted=row.accepted,
        summary=summary,
        category=row.category.strip().lower() or "other",
        scope=row.scope,
        confidence=min(1.0, max(0.0, float(row.confidence))),
        rationale=row.rationale.strip(),
        canonical_key=canonical_slug(row.canonical_key),
        model=model,
    )


def judge_proposals(
    proposals: Sequence[Proposal],
    *,
    backend: Backend | None,
    model: str,
    embedder: Embedder,
    memory: VerdictMemory | None = None,
    reuse_distance: float = REUSE_DISTANCE,
    prompt_version: int | None = None,
    context: QuoteContext | None = None,
) -> JudgeResult:
    """Attach a verdict to every proposal it can; new verdicts go to `memory`."""
    out = list(proposals)
    if not out:
        return JudgeResult(())
    import numpy as np

    from learn.prompts import load_prompt

    prompt = load_prompt("judge")
    version = prompt.version if prompt_version is None else prompt_version
    vectors = np.asarray(embedder.embed([p.text for p in out]), dtype=np.float32)
    reused = 0
    todo: list[int] = []
    for i, p in enumerate(out):
        found: Verdict | None = None
        if memory is not None:
            found = memory.get(dedup_key(p), ROLE, version)
            if found is None:
                near = memory.nearest_verdict(
                    vectors[i], p.label, role=ROLE, prompt_version=version,
                    max_distance=reuse_distance, kind=p.kind,
                )
                found = near if near is not None and wording_agrees(p.text, near.summary) else None
        if found is None:
            todo.append(i)
            continue
        # Shown as reused and not written back under this proposal's key: a
        # reused verdict recorded as fresh would be reused again as if judged.
        out[i] = dataclasses.replace(p, verdict=dataclasses.replace(found, reused=True))
        reused += 1

    usage = CallUsage()
    calls = judged = 0
    failures: list[str] = []
    # Offline (backend None) nothing failed: the digest says once what an offline
    # run cannot see, unjudged proposals among it.
    queue = [(todo[s : s + MAX_ITEMS_PER_CALL], False)
             for s in range(0, len(todo) if backend is not None else 0, MAX_ITEMS_PER_CALL)]
    while queue:
        assert backend is not None
        batch, again = queue.pop(0)
        user = format_items(
            [(n, out[i].kind, describe(out[i], context)) for n, i in enumerate(batch)],
            limit=ITEM_CHARS,
        )
        request = ModelRequest(
            step="judge", model=model, system=prompt.text, tool=RECORD_VERDICTS, user=user,
            max_tokens=512 + TOKENS_PER_VERDICT * len(batch),
        )
        calls += 1
        try:
            parsed, response = call_tool(backend, request, VerdictsAnswer)
        except ModelError as exc:
            failures.append(f"judge: {len(batch)} proposal(s) left unjudged: {exc}")
            continue
        usage = usage + response.usage
        done: set[int] = set()
        for row in valid_rows(parsed.verdicts, _Row):
            if not 0 <= row.id < len(batch) or row.id in done:
                continue
            verdict = _verdict(row, response.model)
            if verdict is None:
                continue
            done.add(row.id)
            i = batch[row.id]
            out[i] = dataclasses.replace(out[i], verdict=verdict)
            judged += 1
            if memory is not None:
                memory.record(dedup_key(out[i]), ROLE, version, verdict, vectors[i])
        missing = [i for n, i in enumerate(batch) if n not in done]
        if missing and done and not again:
            # A partial answer: the proposals it skipped are asked once more,
            # alone. Unjudged, they were shown without a verdict (noisy eval).
            queue.insert(0, (missing, True))
        elif missing:
            failures.append(f"judge: {len(missing)} of {len(batch)} proposal(s) got no usable verdict")
    unjudged = tuple(p.key for p in out if p.verdict is None)
    return JudgeResult(tuple(out), judged, reused, calls, usage, unjudged, tuple(failures))
