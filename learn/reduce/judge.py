"""Judging: a verdict per proposal, remembered with its vector evidence.

Verdicts are keyed by (dedup_key, role, prompt_version), where the dedup key is
the proposal's `kind:label` within the projects its quotes were said in
(`memory_key`). A proposal whose label equals a judged canonical key, or whose
representative text embeds within `reuse_distance` of a judged one, reuses that
verdict without a model call: the same point said again must not be judged again
(and must not be judged differently). A failed call leaves those proposals
without a verdict, reported in `failures`; it is never fatal.

A verdict is reused only where the judge saw the quotes it stands for
(`remembered`): judged in the same projects, or on the very quotes now counted.
Keyed store-wide, shopfront's "no vi.mock of lib/db, run `pnpm test:db`" was
proposed in notes-api, whose quotes were about sqlite fixtures the judge never saw
(an end-to-end run over four projects, 2026-12): one more judge call costs less
than a rule that is wrong for the project it is written into.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.items import flatten, format_items
from learn.projects import Known, project_of
from learn.records.proposal import Proposal, Verdict
from learn.reduce.answers import VerdictsAnswer, rows_schema, valid_rows
from learn.reduce.cluster import DEFAULT_CONTRAST
from learn.reduce.contrast import contrast_between, is_negated
from learn.reduce.slug import canonical_slug
from learn.textfold import fold

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import Vector, VerdictMemory
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


def _token(parts: Sequence[str]) -> str:
    # Hashed, not spelled: a project is a folder ("c:\\users\\ana\\vault"), and
    # the memory reads a key's kind up to its first colon.
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class _Said:
    """What a proposal's verdict is grounded in: the words of its quotes, each with
    the project it was said in ("" where none is known)."""

    words: tuple[tuple[str, str], ...]  # (project, folded text)

    @classmethod
    def of(cls, p: Proposal) -> _Said:
        known = Known()  # one per proposal: a project is decided once, not per quote
        return cls(tuple((project_of(q.project, known) or "", fold(q.text)) for q in p.quotes))

    @property
    def projects(self) -> list[str]:
        return sorted({project for project, _ in self.words if project})

    def key(self, p: Proposal, project: str | None) -> str:
        """A key for the words said in `project` (None: all of them, in any project):
        a verdict recorded under it was judged on exactly those words."""
        texts = sorted({t for where, t in self.words if project is None or where == project})
        return f"{p.kind}#{_token([project or '', *texts])}:{p.label}"


def _scope(p: Proposal, said: _Said) -> str:
    """The "kind" part of p's memory key: its kind within the projects its quotes were
    said in. Nearest and canonical lookups match keys by "<kind>:" (learn.reduce.
    protocols.VerdictMemory), so with this as their kind they find only verdicts
    judged in those projects. Quotes of no known project (a team run, whose
    sessions are the repository's) keep the plain kind, as before."""
    projects = said.projects
    return f"{p.kind}@{_token(projects)}" if projects else p.kind


def memory_key(p: Proposal, said: _Said | None = None) -> str:
    """The key p's verdict is remembered under: its `kind:label` within its projects."""
    return f"{_scope(p, said or _Said.of(p))}:{p.label}"


def _grounded_keys(p: Proposal, said: _Said, verdict: Verdict) -> list[str]:
    """Where else a fresh verdict may be found by a proposal in other projects: each
    project's share of the quotes when they span several (a later run in one of
    them counts that share: the judge saw it), and, for a user-level rule, the
    words themselves (a rule for every project, judged from the same words)."""
    projects = said.projects
    keys = [said.key(p, project) for project in projects] if len(projects) > 1 else []
    if verdict.scope == "user" and projects:
        keys.append(said.key(p, None))
    return keys


def remembered(p: Proposal, vector: Vector, memory: VerdictMemory, *, version: int,
               reuse_distance: float) -> Verdict | None:
    """The verdict p may reuse without a call, or None: judge it.

    Only one grounded in p's quotes: judged in p's projects (its key, else a near
    or same-canonical verdict of theirs whose wording agrees), or judged on the
    words p counts now, in p's project, by a run over several projects; or a
    user-level rule judged from the same words anywhere. Never another project's
    verdict of the same key: the judge did not see these quotes."""
    said = _Said.of(p)
    found = memory.get(memory_key(p, said), ROLE, version)
    if found is not None:
        return found
    projects = said.projects
    if len(projects) == 1:
        found = memory.get(said.key(p, projects[0]), ROLE, version)
        if found is not None:
            return found
    if projects:
        found = memory.get(said.key(p, None), ROLE, version)
        if found is not None and found.scope == "user":
            return found
    near = memory.nearest_verdict(vector, p.label, role=ROLE, prompt_version=version,
                                  max_distance=reuse_distance, kind=_scope(p, said))
    return near if near is not None and wording_agrees(p.text, near.summary) else None


def remember(p: Proposal, verdict: Verdict, vector: Vector, memory: VerdictMemory, *,
             version: int) -> None:
    """Record a fresh verdict under every key `remembered` may find it by."""
    said = _Said.of(p)
    for key in (memory_key(p, said), *_grounded_keys(p, said, verdict)):
        memory.record(key, ROLE, version, verdict, vector)


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
        found = (None if memory is None else
                 remembered(p, vectors[i], memory, version=version, reuse_distance=reuse_distance))
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
                remember(out[i], verdict, vectors[i], memory, version=version)
        missing = [i for n, i in enumerate(batch) if n not in done]
        if missing and done and not again:
            # A partial answer: the proposals it skipped are asked once more,
            # alone. Unjudged, they were shown without a verdict (noisy eval).
            queue.insert(0, (missing, True))
        elif missing:
            failures.append(f"judge: {len(missing)} of {len(batch)} proposal(s) got no usable verdict")
    unjudged = tuple(p.key for p in out if p.verdict is None)
    return JudgeResult(tuple(out), judged, reused, calls, usage, unjudged, tuple(failures))
