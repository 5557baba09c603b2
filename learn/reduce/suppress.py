"""Suppression, the per-kind cap and the funnel.

An item already shown comes back only if it was said again after it was shown
(last_seen > shown_at, both session activity times, never the model's clock):
otherwise every run would re-propose what the user already saw and declined.
Suppression runs before the cap so held-back items don't take cap slots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from learn.isotime import parse_iso
from learn.projects import quote_projects
from learn.records.proposal import Funnel, Proposal
from learn.reduce.counting import (
    CountConfig,
    Occurrence,
    count_points,
    over_threshold,
)
from learn.reduce.protocols import ShownState


def is_held_back(proposal: Proposal, state: ShownState) -> bool:
    """Shown before, in every project it is said in now, and not said again since."""
    record = state.get(proposal.key, quote_projects(proposal.quotes), point=proposal)
    if record is None:
        return False
    if record.reoffer_at_sessions is not None:
        # Declined: saying it again is not enough, the evidence must grow.
        return proposal.sessions < record.reoffer_at_sessions
    shown = parse_iso(record.shown_at)
    if shown is None:
        # An unreadable record must not hide an item forever: over-proposing
        # is the chosen way to fail.
        return False
    seen = parse_iso(proposal.last_seen)
    return seen is None or seen <= shown


@dataclass(frozen=True, slots=True)
class Reduced:
    shown: tuple[Proposal, ...]
    held_back: tuple[Proposal, ...]
    cut: tuple[Proposal, ...]
    below_threshold: tuple[Proposal, ...]
    funnel: Funnel


def select(
    points: Sequence[Proposal],
    *,
    candidates: int,
    config: CountConfig,
    state: ShownState | None = None,
    show_all: bool = False,
) -> Reduced:
    """Threshold → suppression → per-kind cap, with exact funnel numbers."""
    passed = over_threshold(points, config)
    passed_keys = {p.key for p in passed}
    below = [p for p in points if p.key not in passed_keys]
    held: list[Proposal] = []
    kept: list[Proposal] = []
    for p in passed:
        if not show_all and state is not None and is_held_back(p, state):
            held.append(p)
        else:
            kept.append(p)
    shown: list[Proposal] = []
    cut: list[Proposal] = []
    per_kind: dict[str, int] = {}
    for p in kept:
        n = per_kind.get(p.kind, 0)
        if n < config.max_per_kind:
            shown.append(p)
            per_kind[p.kind] = n + 1
        else:
            cut.append(p)
    funnel = Funnel(
        candidates=candidates,
        points=len(points),
        over_threshold=len(passed),
        shown=len(shown),
        held_back=len(held),
        cut=len(cut),
        below_threshold=len(below),
    )
    return Reduced(tuple(shown), tuple(held), tuple(cut), tuple(below), funnel)


def reduce_occurrences(
    occs: Sequence[Occurrence],
    *,
    config: CountConfig | None = None,
    state: ShownState | None = None,
    show_all: bool = False,
) -> Reduced:
    """Count, threshold, suppress and cap labelled occurrences."""
    return select(
        count_points(occs),
        candidates=len(occs),
        config=config or CountConfig(),
        state=state,
        show_all=show_all,
    )
