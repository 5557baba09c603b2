"""The namer's grouping checked against the quotes: a split point rejoined, a lump asked again.

One naming call can word one item of a point apart (a label of its own, which
alone never reaches a threshold) or give two points one label (one point's count
takes the other's sessions). Nothing downstream sees it: counting trusts labels.
Measured with the noisy model's `name_split` and `name_merge` faults, alone:
`hard` proposal recall 0.375 with a count error (split), 0.875 recall and
precision with a count error (merge); `multilingual` 0.84 with a count error.
With this module, at the same seed: split `hard` 0.75 and no count error, merge
`hard` 1.0, `multilingual` 0.95 and none (seeds 0-4 in docs/evals.md).

The model stays the judge of what is one point; it is overruled only where the
evidence learn already has says it was wrong, measured in the space the
pre-clusters were (cosine distance plus the wording penalty):

- apart and stray (lump): a label whose quotes fall into groups with no quote of
  one within `apart` of any quote of another (single linkage) keeps its largest
  group, and a quote far from label-mates that sit close together leaves it
  (`STRAY_GAP`); what leaves is asked again, apart from the quotes it was lumped
  with. Under MiniLM the quote of a point farthest from all its siblings sat at
  0.78 ("测试用 vitest，不要用 jest"); the quotes a lump put under a foreign label
  at 0.93-1.34 from every label-mate.
- move (lump): a quote whose every label-mate is farther from it, by
  `MOVE_MARGIN`, than every quote of another label is, and that label's quotes
  are all within `rejoin` of it, moves there ("now open a release PR with the
  changelog" under bump-the-version: 0.53 from "bump the version", 0.04-0.29
  from the release PR's quotes).
- rejoin (split): a label only one quote carries, coined in the same call as a
  label given to a quote of the same pre-cluster, joins that label when its quote
  is within `rejoin` of every quote carrying it and nearer to them, by
  `REJOIN_MARGIN`, than to any other quote: the call saw both, the
  pre-clustering put them together and the vectors as close as one point's
  paraphrases sit.

A quote far from its label-mates with no group to go to stays where the namer put
it: a paraphrase with no shared words looks the same ("only git add the files
you changed" / "don't stage other people's changes, just yours", 0.74).

`rejoin` sits under the nearest two distinct points of the eval corpora: under
MiniLM (with the wording penalty) the look-alikes closest in every member are
0.59 ("bump the version" / "open a release PR"), 0.60 (doc tools / network tools
off by default), 0.61 (run the tests / run ruff before committing); the quotes
of one point a split fault worded apart sat at 0.23-0.55. Character n-grams put
the closest look-alikes at 0.49 and one point's quotes anywhere from 0.3 to 0.97
apart, so there only near-identical wording is rejoined and nothing is asked
again. Never when a quote pair is the same words with the negation flipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from learn.reduce.contrast import Contrast

if TYPE_CHECKING:
    from learn.embed.base import Embedder
    from learn.reduce.fallback import Unique
    from learn.reduce.protocols import Vector


@dataclass(frozen=True, slots=True)
class Evidence:
    """The distances, per vector space, under which the namer is overruled."""

    rejoin: float  # every quote of the label it joins or moves to is this near
    apart: float | None = None  # a label's groups this far apart are two points (None: never)
    # A quote farther than this from every label-mate, and farther by STRAY_GAP than
    # the others are from each other, is a stray (None: never).
    stray: float | None = None


# Keyed by embedder-name prefix, like the cluster thresholds (learn/reduce/cluster.py).
_EVIDENCE: tuple[tuple[str, Evidence], ...] = (("minilm", Evidence(rejoin=0.55, apart=0.9, stray=0.64)),
                                               ("tfidf", Evidence(rejoin=0.3)))
DEFAULT_EVIDENCE = Evidence(rejoin=0.3)
# How much nearer a lone label's quote must be to the label it joins, in every
# member, than to any other quote of the run: a one-off look-alike sits about as
# near its neighbour point as the next one ("run the tests before committing":
# 0.61 from the ruff point, 0.63 from the real-database one).
REJOIN_MARGIN = 0.15
# How much nearer (every member of) another label must be than the nearest label-mate.
MOVE_MARGIN = 0.2
# A stray sits this much farther from its nearest label-mate than the other mates sit
# from each other at most. Correct groups of 3+ quotes in the eval corpora: at most
# 0.25 (MiniLM: "测试用 vitest，不要用 jest", 0.78 from its nearest sibling, which sit
# 0.52 apart); a force-push quote lumped with three emoji ones: 0.50 (0.73 / 0.23).
STRAY_GAP = 0.4
# Kept past the largest cut a check compares with: a neighbour at exactly the cut is kept.
_SLACK = 0.01

_FAMILY: dict[str, tuple[str, ...]] = {"directive": ("directive", "request"),
                                       "request": ("directive", "request")}


def evidence_for(embedder: Embedder) -> Evidence:
    name = embedder.name.lower()
    for prefix, value in _EVIDENCE:
        if name.startswith(prefix):
            return value
    return DEFAULT_EVIDENCE


@dataclass(frozen=True, slots=True)
class Regrouped:
    moved: int = 0  # quotes moved to a label whose quotes are all near them
    rejoined: int = 0  # lone labels folded into a label of their call and pre-cluster


class _Space:
    """One kind family's model-named quotes and the distances between them the checks read
    (learn.reduce.cluster.Neighbours: the pairs within `radius`, each label's own block;
    without a radius, every pair)."""

    def __init__(self, members: Sequence[Unique], vectors: Vector, contrast: Contrast,
                 radius: float = float("inf"), *, flips: bool = True) -> None:
        from learn.reduce.cluster import Neighbours

        self.members = members
        rows = [u.vector_row for u in members]
        self.near = Neighbours(vectors[rows], [u.text for u in members], contrast, radius,
                               [u.label or "" for u in members], flips=flips)

    @property
    def dist(self) -> Vector:
        """The whole square, when every pair was kept (no radius): for the tests."""
        import numpy as np

        out: Vector = np.stack(self.near.near_vals)
        return out

    def by_label(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for pos, u in enumerate(self.members):
            out.setdefault(u.label or "", []).append(pos)
        return out

    def fits(self, pos: int, group: Sequence[int], within: float) -> float | None:
        """The complete-linkage distance from `pos` to `group` when every member
        is within `within` (at most the radius) and none is its negation; else None."""
        import numpy as np

        others = [g for g in group if g != pos]
        flipped = self.near.flipped[pos]
        if not others or any(g in flipped for g in others):
            return None
        cols = self.near.near_cols[pos]
        at = np.searchsorted(cols, others)
        if bool((at >= len(cols)).any()) or bool((cols[np.minimum(at, len(cols) - 1)] != others).any()):
            return None  # a member past the radius, so past `within`
        far = float(self.near.near_vals[pos][at].max())
        return far if far <= within else None


def check_grouping(uniques: Sequence[Unique], vectors: Vector, contrast: Contrast,
                   call_of: Mapping[int, int], evidence: Evidence) -> Regrouped:
    """Relabel model-named `uniques` in place where the evidence above overrules
    the namer; `call_of` maps a unique's vector row to the naming call that
    labelled it (uniques named by an earlier run have none)."""
    moved = rejoined = 0
    for family in sorted({_FAMILY.get(u.kind, (u.kind,)) for u in uniques}):
        members = [u for u in uniques if u.kind in family and u.from_model and u.label]
        if len(members) < 2:
            continue
        # What _move and _rejoin compare: distances up to rejoin + REJOIN_MARGIN.
        space = _Space(members, vectors, contrast, evidence.rejoin + REJOIN_MARGIN + _SLACK)
        moved += _move(space, evidence.rejoin)
        rejoined += _rejoin(space, call_of, evidence.rejoin)
    return Regrouped(moved=moved, rejoined=rejoined)


def lumped(group: Sequence[Unique], vectors: Vector, contrast: Contrast, call_of: Mapping[int, int],
           evidence: Evidence) -> list[list[Unique]]:
    """The quotes of one kind this run's naming calls lumped under a label with
    quotes far from them, one list per group that leaves: a label whose quotes
    fall into parts far apart keeps its largest part; a stray leaves the rest.

    They are asked again, alone, not relabelled here: the vectors tell that a
    quote does not belong where it is, not where it does. Sent to the label its
    pre-cluster's other quotes carried, "run the tests before committing" (lumped
    with keep-functions-short) joined its look-alike run-ruff-before-commit
    (demo, name_merge: a count error at seeds 0, 1, 3)."""
    members = [u for u in group if u.from_model and u.label]
    if len(members) < 2 or (evidence.apart is None and evidence.stray is None):
        return []
    space = _Space(members, vectors, contrast, -1.0, flips=False)  # each label's own block only
    leaving: list[list[int]] = []
    for label, positions in sorted(space.by_label().items()):
        if len(positions) < 2:
            continue
        block = space.near.block(space.near.group_ids[label])
        local = {p: i for i, p in enumerate(positions)}
        parts = [positions]
        if evidence.apart is not None:
            ids = _components(block, evidence.apart)
            parts = [[g for g, c in zip(positions, ids, strict=True) if c == cid] for cid in sorted(set(ids))]
            # The largest keeps the label; parts of one size leave it where it is:
            # nothing says which of them the namer meant.
            parts.sort(key=lambda p: (-len(p), p[0]))
            if len(parts) > 1 and len(parts[0]) == len(parts[1]):
                parts = [positions]
            leaving += parts[1:]
        kept = parts[0]
        if evidence.stray is not None and len(kept) >= 3:
            for pos in kept:
                mates = [local[g] for g in kept if g != pos]
                nearest = float(block[local[pos], mates].min())
                spread = float(block[[[m] for m in mates], mates].max())
                if nearest > max(evidence.stray, spread + STRAY_GAP):
                    leaving.append([pos])
    # Only what a call of this run named: an earlier run's label was asked already.
    return [[members[p] for p in part] for part in leaving
            if all(members[p].vector_row in call_of for p in part)]


def _components(dist: Vector, apart: float) -> list[int]:
    """Single-linkage groups: two quotes share one when a chain of pairs within `apart` joins them."""
    n = int(dist.shape[0])
    ids = list(range(n))

    def find(x: int) -> int:
        while ids[x] != x:
            ids[x] = ids[ids[x]]
            x = ids[x]
        return x

    for i in range(n):
        for j in range(i + 1, n):
            if float(dist[i, j]) <= apart:
                ids[find(j)] = find(i)
    renumber: dict[int, int] = {}
    return [renumber.setdefault(find(i), len(renumber)) for i in range(n)]


def _move(space: _Space, rejoin: float) -> int:
    """Lumps near: decided on the labels as they stand, then applied, so the
    result does not depend on which label is visited first.

    The labels a quote may move to are those of its neighbours within `rejoin` whose
    every quote is among them: a loop over every label for every quote was 35 s of a
    profiled first run at 16,000 quotes (half of it; benchmarks/naming_scale.py)."""
    import numpy as np

    by_label = space.by_label()
    members = space.members
    kinds = {label: {members[g].kind for g in og} for label, og in by_label.items()}
    label_of = [u.label or "" for u in members]
    moves: list[tuple[int, str]] = []
    for label, group in sorted(by_label.items()):
        if len(group) < 2:
            continue
        for pos in group:
            kind = members[pos].kind
            mates = space.near.mates[pos][np.asarray(group) != pos]
            nearest_mate = float(mates.min())
            cols, vals = space.near.near_cols[pos], space.near.near_vals[pos]
            within = cols[vals.astype(np.float64) <= rejoin].tolist()
            seen: dict[str, int] = {}
            for c in within:
                seen[label_of[c]] = seen.get(label_of[c], 0) + 1
            best: tuple[float, str] | None = None
            for other, count in seen.items():
                og = by_label[other]
                # A group of one says nothing about where a point's quotes sit; and
                # a lump happens inside one call, of one kind. Moved to a request
                # label, a directive cut to "walk me through … change any code" left
                # its point a session short of the one the drift merge makes of the
                # two kinds (outcomes scenario: counted 3, not 4).
                if other == label or len(og) < 2 or count < len(og) or kinds[other] != {kind}:
                    continue
                far = space.fits(pos, og, rejoin)
                if far is not None and far + MOVE_MARGIN < nearest_mate and (best is None or (far, other) < best):
                    best = (far, other)
            if best is not None:
                moves.append((pos, best[1]))
    for pos, label in moves:
        space.members[pos].label = label
    return len(moves)


def _rejoin(space: _Space, call_of: Mapping[int, int], rejoin: float) -> int:
    """Splits: a lone label joins a label its call gave a quote of its pre-cluster.

    The labels' members are kept as they change and the quotes are indexed by call, kind
    and pre-cluster once: each lone label scanned every quote for its call's labels and
    again for each label's members (21.7 s of a first run at 4,070 candidates, 4x per
    doubling: scale audit, 2026-12)."""

    n = 0
    members = space.members
    current: dict[str, set[int]] = {}
    beside_of: dict[tuple[int, str, object], list[int]] = {}
    for q, m in enumerate(members):
        current.setdefault(m.label or "", set()).add(q)
        call = call_of.get(m.vector_row)
        if call is not None:
            beside_of.setdefault((call, m.kind, m.cluster), []).append(q)
    for label, group in sorted(space.by_label().items()):
        if len(group) != 1:
            continue
        pos = group[0]
        lone = members[pos]
        call = call_of.get(lone.vector_row)
        if call is None or lone.label != label:
            continue
        beside = {members[q].label or "" for q in beside_of.get((call, lone.kind, lone.cluster), ())
                  if q != pos}
        best: tuple[float, str, list[int]] | None = None
        for other in sorted(beside - {label}):
            og = sorted(current.get(other, ()))
            far = space.fits(pos, og, rejoin)
            if far is not None and (best is None or (far, other) < best[:2]):
                best = (far, other, og)
        if best is None:
            continue
        far, other, og = best
        # Any other quote nearer than far + REJOIN_MARGIN is among the neighbours.
        joined = set(og)
        if any(float(v) < far + REJOIN_MARGIN
               for c, v in zip(space.near.near_cols[pos].tolist(), space.near.near_vals[pos].tolist(),
                               strict=True) if c != pos and c not in joined):
            continue
        # Two lone labels: the one the drift merge would keep (the smaller) names both.
        name = min(label, other) if len(og) == 1 else other
        for q in [pos, *og]:
            current[members[q].label or ""].discard(q)
            current.setdefault(name, set()).add(q)
            members[q].label = name
        n += 1
    return n
