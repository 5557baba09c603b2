"""Quality metrics of one pipeline run against a corpus's gold.

Pure functions over plain data, so each can be tested (and broken on purpose)
without running the pipeline. Every metric says which direction is better;
the regression gate compares against the committed baseline in that direction.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.gold import Gold
from learn.textfold import fold


@dataclass(frozen=True)
class Occurrence:
    """One verified candidate as the run saw it, with the label it got."""

    session: str
    kind: str
    text: str
    label: str
    command: str | None = None


# name -> True when higher is better
DIRECTION: dict[str, bool] = {
    "mining.recall": True,
    "mining.precision": True,
    "mining.dropped_share": False,
    "mining.dropped_correctly": True,
    "naming.clusters_per_candidate": False,
    "naming.groups_merged": True,
    "naming.groups_collided": False,
    "naming.ari": True,
    "naming.v_measure": True,
    "proposals.precision": True,
    "proposals.recall": True,
    "proposals.count_errors": False,
    "proposals.decoy_leaks": False,
    "proposals.trap_leaks": False,
    "proposals.secret_leaks": False,
    "coverage.agreement": True,
    "judge.agreement": True,
    # Proposals of a gold group marked `limited` (its quotes are fragments of
    # messages that limit them) the judge accepted; only where the gold has one.
    "judge.limited_accepted": False,
    # Accepted requests whose command body is an instruction of its own (not one
    # quote copied), bodies that copy a quote, and rejected requests made commands.
    "commands.written": True,
    "commands.quote_copies": False,
    "commands.rejected_made_commands": False,
    # Share of sampled negative windows (the person corrected nothing) from
    # whose reply the miner reported something (evals/windows.py).
    "windows.reported_share": False,
}


def _gold_of(gold: Gold, session: str, kind: str, text: str, command: str | None) -> str | None:
    """The gold group an occurrence belongs to, matched on its session and quote
    (fixes on their command), or None when it is not gold (a mistake or noise)."""
    n = fold(text)
    for q in gold.quotes:
        if q.session != session or q.kind != kind:
            continue
        if kind == "fix":
            if command and q.command and fold(command) == fold(q.command):
                return q.group
        elif fold(q.text) == n or _fragments_of(n, fold(q.text)):
            return q.group
    return None


def _fragments_of(text: str, quote: str) -> bool:
    """Whether `text` is an ellipsis quote ("a … b") whose fragments all occur in
    `quote`, in order: verification keeps such a quote as the person's own
    fragments, so it is that gold quote, shortened."""
    parts = [p.strip() for p in re.split(r"\s*(?:…|\.\.\.)\s*", text) if p.strip()]
    if len(parts) < 2:
        return False
    at = 0
    for part in parts:
        found = quote.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def mining_metrics(gold: Gold, verified: Sequence[Occurrence], dropped: Sequence[Occurrence]) -> dict[str, float]:
    found: set[tuple[str, str]] = set()
    matched = 0
    for occ in verified:
        group = _gold_of(gold, occ.session, occ.kind, occ.text, occ.command)
        if group is not None:
            matched += 1
            found.add((occ.session, group))
    wanted = {(q.session, q.group) for q in gold.quotes}
    recall = len(found & wanted) / len(wanted) if wanted else 1.0
    precision = matched / len(verified) if verified else 0.0
    total = len(verified) + len(dropped)
    right_to_drop = sum(
        1 for occ in dropped if _gold_of(gold, occ.session, occ.kind, occ.text, occ.command) is None
    )
    return {
        "mining.recall": round(recall, 4),
        "mining.precision": round(precision, 4),
        "mining.dropped_share": round(len(dropped) / total, 4) if total else 0.0,
        "mining.dropped_correctly": round(right_to_drop / len(dropped), 4) if dropped else 1.0,
    }


def naming_metrics(gold: Gold, verified: Sequence[Occurrence]) -> dict[str, float]:
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    truth: list[str] = []
    pred: list[str] = []
    for occ in verified:
        group = _gold_of(gold, occ.session, occ.kind, occ.text, occ.command)
        if group is None:
            continue
        truth.append(group)
        pred.append(f"{occ.kind}:{occ.label}")
    if not truth:
        return {"naming.clusters_per_candidate": 1.0, "naming.groups_merged": 0.0,
                "naming.groups_collided": 0.0, "naming.ari": 0.0, "naming.v_measure": 0.0}
    labels_by_group: dict[str, set[str]] = defaultdict(set)
    groups_by_label: dict[str, set[str]] = defaultdict(set)
    for t, p in zip(truth, pred, strict=True):
        labels_by_group[t].add(p)
        groups_by_label[p].add(t)
    multi = [g for g in labels_by_group if sum(1 for t in truth if t == g) > 1]
    merged = sum(1 for g in multi if len(labels_by_group[g]) == 1)
    collided = {g for groups in groups_by_label.values() if len(groups) > 1 for g in groups}
    return {
        "naming.clusters_per_candidate": round(len(set(pred)) / len(pred), 4),
        "naming.groups_merged": round(merged / len(multi), 4) if multi else 1.0,
        "naming.groups_collided": float(len(collided)),
        "naming.ari": round(float(adjusted_rand_score(truth, pred)), 4),
        "naming.v_measure": round(float(v_measure_score(truth, pred)), 4),
    }


def _votes(gold: Gold, proposal: Mapping[str, Any]) -> Counter[str]:
    """Gold group -> how many of the proposal's quotes belong to it."""
    votes: Counter[str] = Counter()
    for q in proposal.get("quotes", []):
        group = _gold_of(gold, q["session_id"], proposal["kind"], q["text"], proposal.get("command"))
        if group is not None:
            votes[group] += 1
    return votes


def proposal_metrics(gold: Gold, proposals: Sequence[Mapping[str, Any]], written_text: Iterable[str] = (),
                     *, only: frozenset[str] | None = None) -> dict[str, float]:
    """`proposals` are RunResult JSON proposals (kind, label, sessions, quotes...).

    With `only` (gold group names) the proposal metrics cover those groups:
    what they should have been proposed as, and the proposals whose quotes are
    mostly theirs (a proposal matching no gold group counts only without it).
    """
    expected = {name for name, g in gold.groups.items() if g.proposed and (only is None or name in only)}
    hits: set[str] = set()
    false_pos = 0
    count_errors = 0
    decoy_leaks = 0
    for p in proposals:
        votes = _votes(gold, p)
        if not votes:
            if only is None:
                false_pos += 1
            continue
        group, _ = votes.most_common(1)[0]
        if only is not None and group not in only:
            continue
        if group not in expected:
            false_pos += 1
            decoy_leaks += 1
            continue
        if len(votes) > 1:
            # A look-alike merged in: the proposal carries another group's quotes.
            decoy_leaks += sum(1 for g in votes if g != group)
        if group in hits:
            false_pos += 1  # the same point proposed twice
        hits.add(group)
        if p.get("sessions") != gold.groups[group].sessions:
            count_errors += 1
    blob = "\n".join(
        [str(p.get("text", "")) + "\n" + "\n".join(q["text"] for q in p.get("quotes", [])) for p in proposals]
    )
    trap_leaks = sum(1 for t in gold.traps if fold(t) in fold(blob))
    everything = blob + "\n" + "\n".join(written_text)
    secret_leaks = sum(1 for s in gold.secrets if s in everything)
    n = len(proposals)
    return {
        "proposals.precision": round((n - false_pos) / n, 4) if n else 0.0,
        "proposals.recall": round(len(hits & expected) / len(expected), 4) if expected else 1.0,
        "proposals.count_errors": float(count_errors),
        "proposals.decoy_leaks": float(decoy_leaks),
        "proposals.trap_leaks": float(trap_leaks),
        "proposals.secret_leaks": float(secret_leaks),
    }


def command_metrics(gold: Gold, proposals: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Commands as the person would write them: every accepted request proposed gets a
    body of its own, none copies one quote, and no rejected request is a command.
    The copy check is the eval's own (a body that is a quote, folded), not learn's."""
    expected = {name for name, g in gold.groups.items()
                if g.kind == "request" and g.proposed and g.accepted}
    written: set[str] = set()
    copies = rejected = 0
    for p in proposals:
        verdict = p.get("verdict") or {}
        body = p.get("command_body")
        if body and verdict and not verdict.get("accepted"):
            rejected += 1
        votes = _votes(gold, p)
        if not votes or not body:
            continue
        group = votes.most_common(1)[0][0]
        said = [fold(q["text"]).strip(" .!?\"'") for q in p.get("quotes", [])]
        if fold(str(body)).strip(" .!?\"'") in said:
            copies += 1
        elif group in expected:
            written.add(group)
    return {
        "commands.written": round(len(written) / len(expected), 4) if expected else 1.0,
        "commands.quote_copies": float(copies),
        "commands.rejected_made_commands": float(rejected),
    }


# The metrics a language's table shows, and the bar each language must meet
# (issue 19): every proposal found, no decoy, no count error.
LANGUAGE_SHOWN = ("proposals.recall", "proposals.precision", "proposals.count_errors",
                  "proposals.decoy_leaks", "mining.recall")
LANGUAGE_BAR = {"proposals.recall": 1.0, "proposals.count_errors": 0.0, "proposals.decoy_leaks": 0.0}


def language_metrics(gold: Gold, verified: Sequence[Occurrence],
                     proposals: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """language -> the proposal metrics and mining recall of its gold groups alone
    (empty when no group of the corpus names its language)."""
    by_language: dict[str, set[str]] = defaultdict(set)
    for name, g in gold.groups.items():
        if g.language:
            by_language[g.language].add(name)
    out: dict[str, dict[str, float]] = {}
    for language, names in sorted(by_language.items()):
        only = frozenset(names)
        m = proposal_metrics(gold, proposals, only=only)
        wanted = {(q.session, q.group) for q in gold.quotes if q.group in only}
        found = {(occ.session, group) for occ in verified
                 if (group := _gold_of(gold, occ.session, occ.kind, occ.text, occ.command)) in only}
        m["mining.recall"] = round(len(found & wanted) / len(wanted), 4) if wanted else 1.0
        out[language] = {k: m[k] for k in LANGUAGE_SHOWN}
    return out


def language_problems(corpus: str, run: str, per_language: Mapping[str, Mapping[str, float]]) -> list[str]:
    """One line per language that misses LANGUAGE_BAR in `run` (empty: every language holds)."""
    problems = []
    for language, m in per_language.items():
        for name, want in LANGUAGE_BAR.items():
            value = m.get(name, 0.0)
            bad = value < want - 1e-9 if DIRECTION[name] else value > want + 1e-9
            if bad:
                problems.append(f"{corpus} {run} [{language}]: {name} {value:g}, the bar is {want:g}")
    return problems


def language_table(corpus: str, runs: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """Markdown: one table per language, a row per run (replayed answers, noisy model)."""
    languages = sorted({lang for per in runs.values() for lang in per})
    lines = []
    for language in languages:
        lines.append(f"### {corpus} [{language}]\n")
        lines.append("| run | " + " | ".join(LANGUAGE_SHOWN) + " |")
        lines.append("|---|" + "---:|" * len(LANGUAGE_SHOWN))
        for run, per in runs.items():
            m = per.get(language)
            if m is not None:
                lines.append(f"| {run} | " + " | ".join(f"{m.get(k, 0.0):g}" for k in LANGUAGE_SHOWN) + " |")
        lines.append("")
    return "\n".join(lines)


def agreement_metrics(gold: Gold, proposals: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    cov_total = cov_ok = judge_total = judge_ok = limited_ok = 0
    for p in proposals:
        votes = _votes(gold, p)
        if not votes:
            continue
        g = gold.groups[votes.most_common(1)[0][0]]
        cov_total += 1
        cov_ok += int(p.get("status") == g.coverage)
        verdict = p.get("verdict")
        if verdict is not None:
            judge_total += 1
            judge_ok += int(bool(verdict.get("accepted")) == g.accepted)
            limited_ok += int(g.limited and bool(verdict.get("accepted")))
    out = {
        "coverage.agreement": round(cov_ok / cov_total, 4) if cov_total else 0.0,
        "judge.agreement": round(judge_ok / judge_total, 4) if judge_total else 0.0,
    }
    if any(g.limited for g in gold.groups.values()):
        out["judge.limited_accepted"] = float(limited_ok)
    return out


def clopper_pearson_lower(successes: int, trials: int, alpha: float = 0.05) -> float:
    """One-sided lower bound on a proportion (exact): precision is at least this
    with confidence 1 - alpha."""
    if trials == 0 or successes == 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(alpha, successes, trials - successes + 1))


def clopper_pearson_upper(successes: int, trials: int, alpha: float = 0.05) -> float:
    if trials == 0 or successes == trials:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(1 - alpha, successes + 1, trials - successes))


def compare(current: Mapping[str, float], baseline: Mapping[str, float], *, tolerance: float = 1e-9) -> list[tuple[str, float, float, float, bool]]:
    """(metric, baseline, current, delta, regressed) for every metric in both."""
    rows = []
    directions = {**DIRECTION, **{f"noisy.{k}": v for k, v in DIRECTION.items()}}
    # A noisy fault run alone: `noisy.<fault>:<metric>`.
    directions |= {name: DIRECTION[name.split(":", 1)[1]] for name in current
                   if name.startswith("noisy.") and ":" in name and name.split(":", 1)[1] in DIRECTION}
    for name, higher_better in directions.items():
        if name not in current or name not in baseline:
            continue
        cur, base = float(current[name]), float(baseline[name])
        delta = cur - base
        regressed = (delta < -tolerance) if higher_better else (delta > tolerance)
        rows.append((name, base, cur, delta, regressed))
    return rows
