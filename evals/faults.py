"""The noisy model's per-fault report: what each ordinary imperfection costs.

For each corpus the pipeline runs once with the noisy model's faults all off
(the ideal run), once per fault alone, and once with every fault on. A row's
cost is its metric minus the ideal run's. The acceptance bar (issue 11): with
every fault on, proposal recall at least 0.95 of the ideal run's, proposal
precision at least 0.95, and no count errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.corpus import run_corpus
from evals.noisy import ALL_RUN, ALONE, FAULTS

RECALL_RATIO = 0.95
MIN_PRECISION = 0.95
# The metrics the table shows per fault (the full set is in the JSON report).
SHOWN = ("proposals.recall", "proposals.precision", "proposals.count_errors",
         "mining.recall", "mining.precision", "naming.ari", "windows.reported_share",
         "commands.written", "judge.agreement", "judge.limited_accepted")


@dataclass
class FaultRow:
    corpus: str
    fault: str  # "none" (ideal), a fault name, or "all"
    metrics: dict[str, float] = field(default_factory=dict)
    injected: dict[str, int] = field(default_factory=dict)
    languages: dict[str, dict[str, float]] = field(default_factory=dict)  # per-language metrics


def fault_runs(corpus: str, *, seed: int = 0, faults: Sequence[str] = FAULTS) -> list[FaultRow]:
    plan: list[tuple[str, tuple[str, ...]]] = [("none", ())]
    plan += [(f, (f,)) for f in faults]
    plan.append(("all", tuple(f for f in faults if f in ALL_RUN)))
    rows = []
    for name, on in plan:
        report = run_corpus(corpus, mode="noisy", faults=on, seed=seed)
        rows.append(FaultRow(corpus, name, dict(report.metrics), dict(report.injected),
                             dict(report.languages)))
    return rows


def acceptance(rows: Sequence[FaultRow]) -> list[str]:
    """What the all-faults run misses of the bar, one line per miss (empty: it holds)."""
    problems = []
    for corpus in sorted({r.corpus for r in rows}):
        ideal = next(r for r in rows if r.corpus == corpus and r.fault == "none").metrics
        noisy = next(r for r in rows if r.corpus == corpus and r.fault == "all").metrics
        want = RECALL_RATIO * ideal["proposals.recall"]
        if noisy["proposals.recall"] < want - 1e-9:
            problems.append(f"{corpus}: noisy recall {noisy['proposals.recall']:g} < "
                            f"{RECALL_RATIO} x ideal {ideal['proposals.recall']:g}")
        if noisy["proposals.precision"] < MIN_PRECISION - 1e-9:
            problems.append(f"{corpus}: noisy precision {noisy['proposals.precision']:g} < {MIN_PRECISION}")
        if noisy["proposals.count_errors"] > 0:
            problems.append(f"{corpus}: noisy run has {noisy['proposals.count_errors']:g} count error(s)")
        if noisy.get("commands.quote_copies", 0) > 0:
            problems.append(f"{corpus}: {noisy['commands.quote_copies']:g} command body(ies) copy "
                            "one quote")
        if noisy.get("commands.written", 1.0) < ideal.get("commands.written", 1.0) - 1e-9:
            problems.append(f"{corpus}: noisy commands written {noisy['commands.written']:g} < "
                            f"ideal {ideal['commands.written']:g}")
    return problems


def _cell(value: float, ideal: float | None) -> str:
    if ideal is None or abs(value - ideal) < 1e-9:
        return f"{value:g}"
    return f"{value:g} ({value - ideal:+.3g})"


def fault_table(rows: Sequence[FaultRow]) -> str:
    """Markdown: one line per (corpus, fault), each metric with its cost against the ideal run."""
    lines = ["### noisy model: cost per fault (value, and change against the ideal run)\n",
             "| corpus | fault | fired | " + " | ".join(SHOWN) + " |",
             "|---|---|---:|" + "---:|" * len(SHOWN)]
    for corpus in sorted({r.corpus for r in rows}):
        ideal = next(r for r in rows if r.corpus == corpus and r.fault == "none").metrics
        for r in (x for x in rows if x.corpus == corpus):
            fired = sum(r.injected.values())
            cells = [_cell(r.metrics[m], None if r.fault == "none" else ideal.get(m))
                     if m in r.metrics else "–" for m in SHOWN]
            lines.append(f"| {corpus} | {r.fault} | {fired} | " + " | ".join(cells) + " |")
    problems = acceptance(rows)
    lines.append("")
    lines.append("acceptance (all faults: recall >= 0.95 x ideal, precision >= 0.95, no count errors): "
                 + ("holds" if not problems else "FAILS: " + "; ".join(problems)))
    return "\n".join(lines) + "\n"


def to_json(rows: Sequence[FaultRow]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in rows:
        out.setdefault(r.corpus, {})[r.fault] = {"metrics": r.metrics, "injected": r.injected,
                                                 **({"languages": r.languages} if r.languages else {})}
    return out


def baseline_metrics(rows: Sequence[FaultRow]) -> dict[str, dict[str, float]]:
    """corpus -> the all-faults run's metrics, under `noisy.` names, and each ALONE
    fault's run under `noisy.<fault>:` names, for the gate."""
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        if r.fault == "all":
            out.setdefault(r.corpus, {}).update({f"noisy.{k}": v for k, v in r.metrics.items()})
        elif r.fault in ALONE:
            out.setdefault(r.corpus, {}).update({f"noisy.{r.fault}:{k}": v for k, v in r.metrics.items()})
    return out


def noisy_direction(name: str, direction: Mapping[str, bool]) -> bool | None:
    """Whether higher is better for a `noisy.`-prefixed metric (None: not gated)."""
    return direction.get(name.removeprefix("noisy.")) if name.startswith("noisy.") else None
