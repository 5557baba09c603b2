"""Coverage: is a proposal already written in the user's rules or skills?

`contradicts` means a rule says the opposite and the user's latest word wins:
the rule is proposed as an edit. `restated` means the existing rule is not working (the user still has to say
it) and should be rewritten, not duplicated; `has-skill` means a skill exists
but its description does not make it trigger. A false "covered" tells the user
to rewrite a good rule, so unsure answers stay `new`, and a failed call leaves
everything `new` and sets `failed` (callers then write no suppression state).
Word overlap was tried first elsewhere (covered above 0.6 shared content
words) and erred both ways, so a model judges meaning; vectors only shortlist
which rule lines it sees.
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
from learn.records.proposal import CoverageStatus, Proposal
from learn.reduce.answers import VerdictsAnswer, request_key, rows_schema, valid_rows
from learn.reduce.file_readers import heard
from learn.reduce.rules import RuleCorpus

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import AnswerMemory

SHORTLIST_K = 8
MAX_RULES = 400
MAX_SKILLS = 120
SKILL_DESCRIPTION_CHARS = 300
MAX_ITEMS_PER_CALL = 40

CHECK_COVERAGE = ToolSpec(
    name="check_coverage",
    description="Say for each item whether an existing rule or skill already covers it.",
    input_schema=rows_schema(
        "verdicts",
        {
            "id": {"type": "integer"},
            "verdict": {"type": "string", "enum": ["rule", "skill", "contradicts", "new"]},
            "rule_index": {"type": "integer"},
            "skill_index": {"type": "integer"},
        },
        required=["id", "verdict"],
    ),
)


class _Row(BaseModel):
    id: int
    verdict: Literal["rule", "skill", "contradicts", "new"]
    rule_index: int | None = None
    skill_index: int | None = None


@dataclass(frozen=True, slots=True)
class CoverageResult:
    proposals: tuple[Proposal, ...]
    failed: bool = False
    calls: int = 0
    usage: CallUsage = field(default_factory=CallUsage)
    failures: tuple[str, ...] = ()
    skipped: str | None = None  # why no call was made (no rules, offline, nothing to check)


def _shortlist(
    texts: Sequence[str], corpus_texts: Sequence[str], embedder: Embedder, k: int, cap: int
) -> list[int]:
    """Indices into `corpus_texts` nearest any of `texts`, in corpus order."""
    if len(corpus_texts) <= min(cap, k * max(1, len(texts))):
        return list(range(len(corpus_texts)))
    import numpy as np

    vecs = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    corpus = np.asarray(embedder.embed(list(corpus_texts)), dtype=np.float32)
    sims = vecs @ corpus.T
    chosen: set[int] = set()
    order = np.argsort(-sims, axis=1, kind="stable")
    # Round-robin over proposals so each keeps its nearest lines under the cap.
    for rank in range(min(k, len(corpus_texts))):
        for row in order:
            if len(chosen) >= cap:
                break
            chosen.add(int(row[rank]))
    return sorted(chosen)


def check_coverage(
    proposals: Sequence[Proposal],
    corpus: RuleCorpus,
    *,
    backend: Backend | None,
    model: str,
    embedder: Embedder,
    kinds: Sequence[str] = ("directive", "fix", "request"),
    k: int = SHORTLIST_K,
    answers: AnswerMemory | None = None,
) -> CoverageResult:
    """Set `status`, `existing_rule` and `existing_rule_file` on each proposal of `kinds`.

    `answers` keeps each call's answer by its exact request and gives it back for the
    same request: a run stopped after a coverage answer (SIGKILL, Ctrl-C while judging)
    paid for it, and the next run, asking the same items against the same rules with
    the same model and prompt, does not pay again. Keyed by the request, not by item:
    an answer is about an item among the rules shortlisted for its batch."""
    out = list(proposals)
    todo = [i for i, p in enumerate(out) if p.kind in kinds]
    if not todo:
        return CoverageResult(tuple(out), skipped="nothing to check")
    if corpus.empty:
        return CoverageResult(tuple(out), skipped="no rules or skills found")
    if backend is None:
        return CoverageResult(tuple(out), skipped="offline")
    from learn.prompts import load_prompt

    prompt = load_prompt("coverage")
    usage = CallUsage()
    calls = 0
    updates: dict[int, Proposal] = {}
    for start in range(0, len(todo), MAX_ITEMS_PER_CALL):
        batch = todo[start : start + MAX_ITEMS_PER_CALL]
        texts = [out[i].text for i in batch]
        rule_idx = _shortlist(texts, [r.text for r in corpus.rules], embedder, k, MAX_RULES)
        skill_idx = _shortlist(
            texts, [f"{s.name}: {s.description}" for s in corpus.skills], embedder, k, MAX_SKILLS
        )
        rules = [corpus.rules[i] for i in rule_idx]
        skills = [corpus.skills[i] for i in skill_idx]
        user = format_items(
            [(n, out[i].kind, out[i].text) for n, i in enumerate(batch)],
            sections=[
                ("RULES", [r.display() for r in rules]),
                (
                    "SKILLS",
                    [f"{s.name} — {flatten(s.description, SKILL_DESCRIPTION_CHARS)}" for s in skills],
                ),
            ],
        )
        request = ModelRequest(
            step="coverage",
            model=model,
            system=prompt.text,
            tool=CHECK_COVERAGE,
            user=user,
            max_tokens=256 + 40 * len(batch),
        )
        key = request_key(request) if answers is not None else ""
        rows = answers.get(key) if answers is not None else None
        if rows is None:
            calls += 1
            try:
                parsed, response = call_tool(backend, request, VerdictsAnswer)
            except ModelError as exc:
                # Over-proposing is the chosen way to fail: everything stays new.
                return CoverageResult(
                    tuple(proposals), failed=True, calls=calls, usage=usage,
                    failures=(f"coverage: {exc}; every proposal left as new",),
                )
            usage = usage + response.usage
            rows = parsed.verdicts
            if answers is not None:
                answers.put(key, "coverage", rows)
        for row in valid_rows(rows, _Row):
            if not 0 <= row.id < len(batch) or batch[row.id] in updates:
                continue
            i = batch[row.id]
            if (row.verdict in ("rule", "contradicts") and row.rule_index is not None
                    and 0 <= row.rule_index < len(rules)):
                rule = rules[row.rule_index]
                # contradicts: the latest word wins, the rule is rewritten to the item.
                status: CoverageStatus = "restated" if row.verdict == "rule" else "contradicts"
                if status == "restated" and not heard(out[i].agents, rule.file):
                    # Written for another agent only (a Cursor rule said to Claude Code):
                    # not a rule that failed, one missing where it was said; still new.
                    # By every name of the file: a CLAUDE.md linked to AGENTS.md is
                    # Codex's too (learn.reduce.file_readers).
                    status = "new"
                updates[i] = dataclasses.replace(
                    out[i], status=status, existing_rule=rule.text, existing_rule_file=rule.file,
                )
            elif (
                row.verdict == "skill"
                and row.skill_index is not None
                and 0 <= row.skill_index < len(skills)
            ):
                skill = skills[row.skill_index]
                updates[i] = dataclasses.replace(
                    out[i], status="has-skill", existing_rule=skill.name, existing_rule_file=skill.file
                )
    for i, p in updates.items():
        out[i] = p
    return CoverageResult(tuple(out), calls=calls, usage=usage)
