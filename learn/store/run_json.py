"""A run's stored form: every field of a RunResult as JSON, and back.

A leaf (it imports only learn.records.proposal), so the run records (learn.store.runs)
and the proposal book (learn.store.proposals, and migration 0011's backfill) both
read it without importing each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from learn.records.proposal import (
    Funnel,
    Proposal,
    Quote,
    RunResult,
    RunUsage,
    Verdict,
    agents_from_json,
)

T = TypeVar("T")


def result_to_full_json(result: RunResult) -> dict[str, Any]:
    """Every field of the RunResult (to_json() drops some: quotes' projects, rationales)."""
    return dataclasses.asdict(result)


def known(cls: type[T], data: Mapping[str, Any]) -> dict[str, Any]:
    """The items of `data` that are fields of the dataclass `cls`: a run stored by a
    newer learn, with a field this one does not have, is read without it instead of
    failing ("Proposal.__init__() got an unexpected keyword argument"; members of a
    team upgrade at different times, and a new field needs no migration)."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return {k: v for k, v in data.items() if k in names}


def _verdict(data: dict[str, Any] | None) -> Verdict | None:
    return None if data is None else Verdict(**known(Verdict, data))


def proposal_from_full_json(data: dict[str, Any]) -> Proposal:
    """A Proposal from dataclasses.asdict() of one (the stored form)."""
    fields = known(Proposal, data)
    fields["quotes"] = tuple(Quote(**known(Quote, q)) for q in fields.get("quotes", ()))
    fields["intervening_commands"] = tuple(fields.get("intervening_commands", ()))
    fields["edited_files"] = tuple(fields.get("edited_files", ()))
    fields["authors"] = tuple(fields.get("authors", ()))
    fields["surface_rules"] = tuple(fields.get("surface_rules", ()))
    fields["surface_commands"] = tuple(fields.get("surface_commands", ()))
    fields["surface_allowed"] = tuple(fields.get("surface_allowed", ()))
    fields["verdict"] = _verdict(fields.get("verdict"))
    fields["agents"] = agents_from_json(fields.get("agents", ()))
    return Proposal(**fields)


def result_from_full_json(data: dict[str, Any]) -> RunResult:
    return RunResult(
        proposals=tuple(proposal_from_full_json(p) for p in data.get("proposals", ())),
        funnel=Funnel(**known(Funnel, data.get("funnel", {}))),
        usage=RunUsage(**known(RunUsage, data.get("usage", {}))),
        window_start=data.get("window_start"),
        window_end=data.get("window_end"),
        projects=tuple(data.get("projects", ())),
        failures=tuple(data.get("failures", ())),
        coverage_failed=bool(data.get("coverage_failed", False)),
        offline=bool(data.get("offline", False)),
        extra=dict(data.get("extra", {})),
        failed_stages=tuple(data.get("failed_stages", ())),
        verification=dict(data.get("verification", {})),
    )
