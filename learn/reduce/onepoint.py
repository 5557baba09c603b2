"""One point, one count: the same point said as a directive in some sessions and as a
request in others is one group.

Naming labels each kind apart, and counting already folds a label named under
both kinds (learn.reduce.counting._reconcile_kinds). What it cannot fold is the
same point under two labels: "let's talk through the approach first" (directive,
`discuss-approach-first`) and "help me think it through before you change code"
(request, `think-it-through`) were counted 2 + 2 on a real project, each half
below what the person said. Here a request group joins the directive group whose
quotes are nearest in meaning, when the nearest pair of quotes is at least
ONE_POINT_SIMILARITY apart in the embedder's space: stricter than naming's
pre-clustering cut (which a model then refines), because a wrong merge here has
no model after it. The merged group is a directive (the person's point, as a rule;
the judge can still say it is a command).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from learn.records.proposal import Proposal
from learn.reduce.counting import Occurrence

# Half of naming's cosine-distance cut: 0.68 similarity with MiniLM (its cut is
# 0.64 distance), 0.56 with TF-IDF (0.88). Unmeasured beyond the eval scenario
# (evals/corpora/outcomes.py): its paraphrase pair merges, its distinct requests do not.
SIMILARITY_FRACTION = 0.5
# How far under the cut a stacked product's score may sit and its group still be scored
# pair by pair: float32 sums of unit vectors of a few hundred to a thousand dimensions
# differ by a few 1e-7 between product shapes, far under this.
_NEAR_CUT = 1e-3


def one_point(occs: Sequence[Occurrence], embedder: Any) -> list[Occurrence]:
    """`occs` with each request group that is a directive group's point relabelled as it."""
    import numpy as np

    from learn.reduce.cluster import threshold_for
    from learn.reduce.contrast import SCRIPT_WEIGHT, Contrast, Wording

    # MiniLM, trained on English, puts unrelated Chinese sentences 0.31-0.56 apart
    # (issue 19): the same lexical term naming's clustering adds for non-Latin text
    # keeps a Chinese request from joining an unrelated Chinese directive here.
    script = Contrast(script=SCRIPT_WEIGHT)

    groups: dict[tuple[str, str], list[Occurrence]] = {}
    for o in occs:
        groups.setdefault((o.candidate.kind, o.label), []).append(o)
    directives = sorted(k for k in groups if k[0] == "directive")
    requests = sorted(k for k in groups if k[0] == "request" and ("directive", k[1]) not in groups)
    if not directives or not requests:
        return list(occs)
    cut = 1.0 - SIMILARITY_FRACTION * threshold_for(embedder)
    texts = {k: sorted({o.candidate.text for o in groups[k]}) for k in (*directives, *requests)}

    def vectors(key: tuple[str, str]) -> Any:
        v = np.asarray(embedder.embed(texts[key]), dtype=np.float32)
        return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)

    # Every request group is scored against every directive group, so each text's
    # wording is read once and each request group's contrast with all directive
    # texts is one block (audit 58, F3: re-reading them per pair grew 3-5x per
    # doubling). The similarities that decide stay one product per pair of groups: a
    # BLAS sum depends on the matrices' shapes, and a stacked product differed from the
    # per-pair one in the last bit for most blocks, which can move a tie at the cut.
    # But one stacked product per request group finds the directive groups that can
    # reach the cut at all (a last-bit difference is far under `_NEAR_CUT`): a product
    # per pair of groups was 6.5 s of a first run at 16,000 quotes (quadratic in the
    # points: this round's benchmarks/naming_scale.py).
    dvecs = [vectors(k) for k in directives]
    stacked = np.concatenate(dvecs)
    order = [t for k in directives for t in texts[k]]
    cols = np.arange(len(order))
    starts = np.cumsum([0] + [len(texts[k]) for k in directives])
    wording = Wording(order + [t for r in requests for t in texts[r]], script)
    first = len(order)
    into: dict[str, str] = {}
    for r in requests:
        rv = vectors(r)
        rows = np.arange(first, first + len(texts[r]))
        first += len(texts[r])
        penalty = wording.between(rows, cols)
        rough = np.maximum.reduceat(rv @ stacked.T - penalty, starts[:-1], axis=1).max(axis=0)
        best, score = None, cut
        for j in np.flatnonzero(rough >= cut - _NEAR_CUT).tolist():
            block = slice(starts[j], starts[j + 1])
            s = float((rv @ dvecs[j].T - penalty[:, block]).max())
            if s >= score:
                best, score = directives[j], s
        if best is not None:
            into[r[1]] = best[1]
    if not into:
        return list(occs)
    out: list[Occurrence] = []
    for o in occs:
        if o.candidate.kind == "request" and o.label in into:
            o = Occurrence(o.session, dataclasses.replace(o.candidate, kind="directive"),
                           into[o.label])
        out.append(o)
    return out


def requests_as_commands(proposals: Sequence[Proposal], min_sessions: int) -> list[Proposal]:
    """A request asked for by name in at least `min_sessions` sessions that the judge
    accepted (or that no judge saw: an offline run) is work the person wants on call: a
    command, not a rule line. One the judge rejected stays rejected: on real projects a
    request rejected as one-off work ("一次性的工作", confidence 0.85) had become an
    accepted command file carrying the rejection's words."""
    out: list[Proposal] = []
    for p in proposals:
        v = p.verdict
        if (p.kind == "request" and p.status == "new" and p.sessions >= min_sessions
                and (v is None or v.accepted)):
            p = dataclasses.replace(p, surface="command")
        out.append(p)
    return out
