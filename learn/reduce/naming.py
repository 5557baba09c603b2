"""Global naming: one label per occurrence, with every occurrence of the window in view.

When each session named its own candidates the labels agreed with each other
3 times in 188 candidates, so nothing ever reached a threshold. Naming is
therefore done once per run over all candidates, and it is built to keep
agreeing with itself:

- identical quotes (whitespace-collapsed, case-folded) are merged before
  anything else, so they cannot be named apart;
- candidates are embedded and pre-clustered, so one call sees the paraphrases
  of a point side by side instead of scattered over batches;
- each call is offered the known labels nearest its items (by vector, from the
  store and from what this run already coined), not a fixed slice of the
  vocabulary: a 150-label slice drops exactly the label that fits;
- batches are sized to the output budget: a 200-item batch at ~14 tokens an
  item came close to a 4k cap, and one truncated answer threw away the whole
  batch;
- a failed or partial answer falls back per item, to its nearest labelled
  neighbour or the label its cluster shares, never to one slug per item (that
  fallback measured 0.98 labels per candidate: nothing could ever repeat);
- only model-made labels teach the vocabulary: a fallback label is used for
  its run and never remembered (neither as a known label offered to the model
  nor in the name cache). Remembered, fallback slugs of a failed run
  (`but-will-stay-as-10`) were offered as known labels to every later run, whose
  prompt says to reuse them exactly, and became the digest's keys (issue 21);
- an item whose naming call failed is grouped by the fallback only with what it
  is sure of (near-identical wording, `SURE_DISTANCE`): a failed run's looser
  grouping merged "This feels off to put it in one test" with "Good but simplify";
- items a whole answer left out (declined) fall back together, one pool per
  kind, not one by one and not through their pre-cluster: the same label in a
  cold and a warm run, and a point whose quotes were left out together stays one.
- the answers are checked against the quotes (learn/reduce/regroup.py): a
  quote far from every quote it was labelled with is asked again, apart from
  them, and a label one quote of a pre-cluster got beside its siblings' rejoins
  theirs; a namer that lumped or split inside one call cost `hard` recall 0.875
  and 0.375, each with a count error.

Kinds are never mixed: batches are per kind and a label is namespaced by kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from learn.models.base import Backend, CallUsage, ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.catalog import model_info
from learn.models.items import format_items
from learn.records.candidate import KINDS, MinedCandidate
from learn.reduce.answers import LabelsAnswer, rows_schema
from learn.reduce.cluster import cluster_ids, contrast_for, threshold_for
from learn.reduce.drift import merge_drifted_labels
from learn.reduce.fallback import Unique as _Unique
from learn.reduce.fallback import fall_back as _fall_back
from learn.reduce.fallback import pool_declined as _pool_declined
from learn.reduce.memory import InMemoryLabelIndex
from learn.reduce.naming_batches import (
    ANSWER_OVERHEAD_TOKENS,
    MAX_BATCH,
    TOKENS_PER_ITEM,
    batch_size_for,
    pack_batches,
)
from learn.reduce.naming_result import DECLINED, NamingResult, NamingStats
from learn.reduce.regroup import check_grouping, evidence_for, lumped
from learn.reduce.slug import is_label, normalize_label
from learn.textfold import fold

__all__ = [
    "ASSIGN_LABELS",
    "DECLINED",
    "MAX_BATCH",
    "NamingResult",
    "NamingStats",
    "batch_size_for",
    "name_candidates",
    "pack_batches",
]

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.protocols import LabelIndex, Vector

KNOWN_PER_ITEM = 3
MAX_KNOWN_LABELS = 40
OFFER_DISTANCE_CAP = 0.95
# How close (cosine distance plus the wording penalty) an item whose naming call
# failed must be to share a fallback group: the same point in nearly the same words.
SURE_DISTANCE = 0.08

ASSIGN_LABELS = ToolSpec(
    name="assign_labels",
    description="Give every item exactly one kebab-case label naming the point it makes.",
    input_schema=rows_schema(
        "labels",
        {"id": {"type": "integer"}, "label": {"type": "string"}},
        required=["id", "label"],
    ),
)


def _uniques(candidates: Sequence[MinedCandidate]) -> list[_Unique]:
    by_key: dict[tuple[str, str], _Unique] = {}
    for pos, cand in enumerate(candidates):
        norm = fold(cand.text)
        key = (cand.kind, norm)
        u = by_key.get(key)
        if u is None:
            by_key[key] = _Unique(cand.kind, norm, cand.text, [pos])
        else:
            u.members.append(pos)
            u.text = min(u.text, cand.text)
    # Canonical order (kind, then text): the same candidates in any order give
    # the same batches, the same requests and so the same labels.
    return sorted(by_key.values(), key=lambda u: (KINDS.index(u.kind) if u.kind in KINDS else 99, u.kind, u.norm))


def _known_for(
    batch: Sequence[_Unique],
    kind: str,
    vectors: Vector,
    index: LabelIndex | None,
    run_index: InMemoryLabelIndex,
    reach: float,
) -> tuple[list[str], set[str]]:
    """The labels to offer for reuse: those nearest the batch's items, from the
    store and from this run, nearest first; plus which came from the store."""
    best: dict[str, float] = {}
    stored: set[str] = set()
    # Every label this run has given in this kind is offered, however far:
    # a paraphrase with no shared words sits far from the label its group
    # got in an earlier batch, and a model not shown that label words the
    # same point anew (label drift between batches, issue 11).
    run_near = run_index.nearest_many(vectors[[u.vector_row for u in batch]], kind, MAX_KNOWN_LABELS)
    for u, near in zip(batch, run_near, strict=True):
        vec = vectors[u.vector_row]
        found = [(label, min(dist, reach)) for label, dist in near]
        if index is not None:
            hits = [h for h in index.nearest(vec, kind, KNOWN_PER_ITEM) if h[1] <= reach]
            stored.update(label for label, _ in hits)
            found = found + hits
        for label, dist in found:
            if dist > reach:
                continue
            if label not in best or dist < best[label]:
                best[label] = dist
    ranked = sorted(best.items(), key=lambda item: (item[1], item[0]))
    return [label for label, _ in ranked[:MAX_KNOWN_LABELS]], stored


def _reuse_labels(
    group: Sequence[_Unique],
    candidates: Sequence[MinedCandidate],
    labelled: Callable[[str, str], str | None],
    run_index: InMemoryLabelIndex,
    vectors: Vector,
) -> int:
    """Give each unique text the label an earlier run gave one of its exact
    wordings; returns how many were labelled so. They count as named by the
    model (an earlier call named them) and join this run's offered labels.
    A text an earlier answer declined to name is not asked again: it falls back."""
    n = 0
    for u in group:
        for pos in u.members:
            label = labelled(u.kind, candidates[pos].text)
            if label == DECLINED:
                u.declined = True
                break
            # A label read back from the store is a slug like every other, or none:
            # the cache is shared in a team store (learn.report.edits.is_safe_key).
            if label and is_label(label):
                u.label, u.from_model = label, True
                run_index.add(label, u.kind, vectors[u.vector_row])
                n += 1
                break
    return n


def _parse_rows(rows: Sequence[Any], n: int, truncated: bool) -> dict[int, str]:
    if truncated and rows:
        # The last row of a cut-off answer may hold half a label ("use-bun-no").
        rows = rows[:-1]
    out: dict[int, str] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        item_id, raw = row.get("id"), row.get("label")
        if isinstance(item_id, bool) or not isinstance(item_id, int) or not isinstance(raw, str):
            continue
        if not 0 <= item_id < n or item_id in out:
            continue
        label = normalize_label(raw)
        if label is not None:
            out[item_id] = label
    return out


def _answered(labelled: Sequence[_Unique], declined: Sequence[_Unique],
              candidates: Sequence[MinedCandidate]) -> list[tuple[str, str, str]]:
    """One answer's rows for the name cache, one per candidate wording, as
    NamingResult.named keeps them."""
    return [(u.kind, candidates[pos].text, DECLINED if u.declined else u.label or "")
            for u in (*labelled, *declined) for pos in u.members]


def _shared_point(embedder: Embedder) -> Callable[[Sequence[str]], str]:
    """Offline, a new label is slugged from the sentence its quotes share, the one the
    proposal opens with (learn.reduce.headline), not from a whole quote's first words."""
    from learn.reduce.headline import shared_sentence

    return lambda texts: shared_sentence(texts, embedder.embed)


def name_candidates(
    candidates: Sequence[MinedCandidate],
    *,
    embedder: Embedder,
    backend: Backend | None,
    model: str,
    index: LabelIndex | None = None,
    threshold: float | None = None,
    neighbour_threshold: float | None = None,
    max_output_tokens: int | None = None,
    max_batch: int = MAX_BATCH,
    labelled: Callable[[str, str], str | None] | None = None,
    on_answer: Callable[[Sequence[tuple[str, str, str]]], object] | None = None,
) -> NamingResult:
    """Label every candidate. `backend=None` (offline) names by fallback only.

    `labelled(kind, text)` is the label an earlier run gave that exact
    candidate (the store keeps one per stored candidate): such a candidate is
    not asked about again, so a warm run over unchanged sessions makes no
    naming call, and its label is offered to the new candidates it resembles.

    `on_answer` gets each answer's (kind, text, label) rows (DECLINED for a text
    the answer left out for good) the moment it is parsed, so a run killed before
    naming ends keeps what it paid for; the labels naming ends with (after its
    checks) are `NamingResult.named`.

    `threshold` is the pre-clustering cosine distance (default: the embedder's
    recommended one); `neighbour_threshold` bounds how far a failed item may
    borrow a neighbour's label (default: the same).
    """
    if not candidates:
        return NamingResult((), NamingStats())
    import numpy as np

    from learn.prompts import load_prompt

    t = threshold_for(embedder) if threshold is None else threshold
    near = t if neighbour_threshold is None else neighbour_threshold
    contrast = contrast_for(embedder)
    # Labels this far away are unrelated in any space we use (orthogonal is 1.0);
    # offering them only invites a wrong reuse.
    reach = min(OFFER_DISTANCE_CAP, t + 0.25)
    uniques = _uniques(candidates)
    vectors = np.asarray(embedder.embed([u.text for u in uniques]), dtype=np.float32)
    for row, u in enumerate(uniques):
        u.vector_row = row

    info = model_info(model)
    out_budget = max_output_tokens or info.max_output_tokens
    size = batch_size_for(out_budget, max_batch=max_batch, context_window=info.context_window)
    run_index = InMemoryLabelIndex()
    usage = CallUsage()
    calls = failed = truncated_calls = 0
    failures: list[str] = []
    known_before: set[tuple[str, str]] = set()
    reused = 0
    # vector row -> the naming call that labelled it: a split is judged within one call.
    call_of: dict[int, int] = {}
    evidence = evidence_for(embedder)
    lumps_asked = 0

    by_kind: dict[str, list[_Unique]] = {}
    for u in uniques:
        by_kind.setdefault(u.kind, []).append(u)

    clusters_of: dict[tuple[str, int], list[_Unique]] = {}
    for kind, group in by_kind.items():
        if labelled is not None:
            reused += _reuse_labels(group, candidates, labelled, run_index, vectors)
        if all(u.label is not None or u.declined for u in group):
            # Everything named before: clusters only shape batches and the
            # fallback, and clustering imported scikit-learn, 3 s of a warm run.
            ids = list(range(len(group)))
        else:
            ids = cluster_ids(
                vectors[[u.vector_row for u in group]], t, texts=[u.text for u in group], contrast=contrast
            )
        for u, cid in zip(group, ids, strict=True):
            u.cluster = cid
            clusters_of.setdefault((kind, cid), []).append(u)
        if backend is None:
            continue
        prompt = load_prompt("name")
        members = [
            [i for i, u in enumerate(group) if u.cluster == cid and u.label is None and not u.declined]
            for cid in sorted(set(ids))
        ]
        members = [m for m in members if m]
        queue = [(n, [group[i] for i in positions], False)
                 for n, positions in enumerate(pack_batches(members, size))]
        rechecked = False
        while True:
            if not queue:
                if rechecked:
                    break
                # Once the answers are in: quotes the namer lumped with points far
                # from them are asked again, alone (learn/reduce/regroup.py).
                rechecked = True
                parts = lumped(group, vectors, contrast, call_of, evidence)
                for part in parts:
                    for u in part:
                        u.label, u.from_model = None, False
                queue = [(batch_no, part, True) for batch_no, part in enumerate(parts, start=calls)]
                lumps_asked += sum(len(part) for part in parts)
                if not queue:
                    break
            batch_no, batch, again = queue.pop(0)
            known, stored = _known_for(batch, kind, vectors, index, run_index, reach)
            user = format_items(
                [(i, kind, u.text) for i, u in enumerate(batch)],
                sections=[("KNOWN LABELS", known)],
            )
            request = ModelRequest(
                step="name",
                model=model,
                system=prompt.text,
                tool=ASSIGN_LABELS,
                user=user,
                max_tokens=min(out_budget, ANSWER_OVERHEAD_TOKENS + 2 * TOKENS_PER_ITEM * len(batch)),
            )
            calls += 1
            try:
                parsed, response = call_tool(backend, request, LabelsAnswer)
            except ModelError as exc:
                failed += 1
                for u in batch:
                    u.call_failed = True
                failures.append(f"name: {kind} batch {batch_no} ({len(batch)} items) fell back: {exc}")
                continue
            usage = usage + response.usage
            cut = response.stop_reason == "max_tokens"
            if cut:
                truncated_calls += 1
            got = _parse_rows(parsed.labels, len(batch), cut)
            for i, label in got.items():
                u = batch[i]
                u.label, u.from_model = label, True
                call_of[u.vector_row] = calls
                run_index.add(label, kind, vectors[u.vector_row])
                if label in stored:
                    known_before.add((kind, label))
            missing = [u for i, u in enumerate(batch) if i not in got]
            declined: list[_Unique] = []
            if missing and got and not again:
                # A partial answer: the items it left out are asked once more,
                # alone, with the labels just given offered back. Left to the
                # fallback they borrowed a look-alike's label or got their own
                # (noisy eval, partial answers: recall 0.875 and a count error).
                queue.insert(0, (batch_no, missing, True))
            elif len(missing) > 1 and not again:
                # An answer that named none of its items: asked once more in two
                # halves, not as the same request, which a recording or a seeded
                # model answers the same way. Left out, "测试用 vitest，不要用 jest"
                # (cosine 0.78 and 1.01 from its two siblings: no fallback can
                # join them) got a label of its own (multilingual eval, partial
                # answers: a count error).
                half = (len(missing) + 1) // 2
                queue[:0] = [(batch_no, missing[:half], True), (batch_no, missing[half:], True)]
            elif missing:
                if not cut:
                    # A whole answer that left them out (twice, when it named
                    # others): the model had its say. Cached as declined, or
                    # every warm run would ask again; their label is a fallback.
                    for u in missing:
                        u.declined = True
                    declined = missing
                failures.append(
                    f"name: {kind} batch {batch_no}: {len(missing)} of {len(batch)} items "
                    f"unlabelled{' (answer truncated)' if cut else ''}; they fell back"
                )
            if on_answer is not None:
                on_answer(_answered([batch[i] for i in got], declined, candidates))

    # Before any fallback borrows a label or drifted labels merge: a lumped quote
    # near-duplicating its true siblings carried the drift merge across two points
    # (noisy eval, demo, name_merge seed 1: "bump the version" took the release PR's).
    regrouped = check_grouping(uniques, vectors, contrast, call_of, evidence)
    # Declined texts fall back together, apart from their pre-clusters (cold = warm).
    _pool_declined(clusters_of)
    known_before |= _fall_back(uniques, vectors, index, near, clusters_of, contrast,
                               sure=min(near, SURE_DISTANCE),
                               point_of=_shared_point(embedder) if backend is None else None)
    merged = merge_drifted_labels(uniques, vectors, contrast)

    labels: list[str] = [""] * len(candidates)
    examples: list[tuple[str, str, Vector]] = []
    named: dict[tuple[str, str], str] = {}
    fallbacks = unnamed_failed = 0
    for u in uniques:
        assert u.label is not None
        for pos in u.members:
            labels[pos] = u.label
            if u.from_model or u.declined:
                named[(u.kind, candidates[pos].text)] = u.label if u.from_model else DECLINED
        if not u.from_model:
            fallbacks += len(u.members)
            if u.call_failed:
                unnamed_failed += len(u.members)
            continue
        examples.append((u.kind, u.label, vectors[u.vector_row]))
    stats = NamingStats(
        candidates=len(candidates),
        unique_texts=len(uniques),
        calls=calls,
        failed_calls=failed,
        truncated_calls=truncated_calls,
        fallbacks=fallbacks,
        labels=len({(u.kind, u.label) for u in uniques}),
        known_reused=len(known_before),
        labels_merged=merged,
        labels_rejoined=regrouped.rejoined,
        quotes_moved=regrouped.moved,
        lumps_asked=lumps_asked,
        reused_texts=reused,
        unnamed_failed=unnamed_failed,
        usage=usage,
    )
    return NamingResult(
        tuple(labels), stats, tuple(failures), tuple(examples),
        tuple((kind, text, label) for (kind, text), label in named.items()),
    )
