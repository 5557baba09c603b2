"""A run that could not count every session keeps the rules' last complete measure.

"Did the rules work?" is read from the newest run (learn.report.outcomes). A run
whose mining calls failed counts none of what the failed sessions said, so its
measure of a rule is lower than the truth, and it replaced the truth: on the demo
corpus, `learn run --offline` measured an applied rule "said in 2 of 4 sessions"
before it, and a `learn run --backend replay` with nothing recorded (every call
failed, 7 of 7 sessions) then said "0 of 4" for the same rule, and `learn outcomes`
went on saying 0 of 4. Such a run now carries each rule's measure from the newest
earlier run that measured it completely, saying so (`kept`: when it was measured,
and why this run did not); a rule no earlier run measured keeps this run's figures,
said as a partial measure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def unmeasured_why(*, sessions_failed: int, sessions_incomplete: int) -> str | None:
    """Why a run's counts cannot measure the rules (None: they can). The counts miss
    what was said in a session the model did not read in full, whatever the cause (a
    failed call, a stop before the end)."""
    if sessions_failed:
        return (f"the mining calls failed for {sessions_failed} "
                f"session{'' if sessions_failed == 1 else 's'} this run read")
    if sessions_incomplete:
        return (f"{sessions_incomplete} session{'' if sessions_incomplete == 1 else 's'} "
                "this run read were not mined in full")
    return None


def _ident(outcome: Mapping[str, Any]) -> tuple[Any, Any]:
    return outcome.get("project"), outcome.get("key")


def complete(outcome: Mapping[str, Any]) -> bool:
    """A measure counted over every session its run read (or carried from one)."""
    kept = outcome.get("kept")
    return not isinstance(kept, dict) or bool(kept.get("at"))


def kept_outcomes(fresh: Sequence[dict[str, Any]],
                  earlier: Iterable[tuple[str | None, Sequence[Any]]],
                  why: str | None) -> list[dict[str, Any]]:
    """The outcomes a run records: `fresh` (this run's, as JSON) when `why` is None;
    else each rule's newest complete measure in `earlier` ((when that run started,
    its outcomes as JSON), newest first), marked `kept: {"at", "why"}`, or this run's
    own, marked `kept: {"at": None, "why"}` (partial) when no earlier run measured it."""
    if why is None:
        return list(fresh)
    wanted = {_ident(o) for o in fresh}
    found: dict[tuple[Any, Any], dict[str, Any]] = {}
    for at, outcomes in earlier:
        for o in outcomes:
            if not isinstance(o, dict) or _ident(o) not in wanted or _ident(o) in found:
                continue
            if complete(o):
                kept = o.get("kept")
                measured = kept.get("at") if isinstance(kept, dict) else at
                found[_ident(o)] = {**o, "kept": {"at": measured, "why": why}}
        if len(found) == len(wanted):
            break
    return [found.get(_ident(o)) or {**o, "kept": {"at": None, "why": why}} for o in fresh]


def earlier_outcomes(store: Any) -> Iterable[tuple[str | None, Sequence[Any]]]:
    """Each stored run's (start, outcomes as JSON), newest first; unreadable rows skipped."""
    from learn.store.runs import readable_run

    for row in store.runs.stored_results():
        result = readable_run(row, notes=[])
        if result is not None:
            at = result.extra.get("started_at") or row.get("finished_at")
            yield (str(at) if at else None), list(result.extra.get("outcomes") or ())
