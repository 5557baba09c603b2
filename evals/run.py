"""Run the real pipeline on a labelled corpus and measure it.

    python -m evals [CORPUS ...] [--live --backend anthropic --model M] [--out F]
                    [--baseline evals/baseline.json] [--gate]

Offline (the default) the model answers come from `cache/` (the replay
backend): deterministic, free, and what CI gates on. `--live` asks a real
backend and records its answers into `cache/` so the same run can be replayed
later. `--record-oracle` (re)records the bundled fixtures from the gold oracle.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals import metrics
from evals.corpora import ALL_CORPORA, CORPORA, NOISY_ONLY
from evals.corpus import (
    BASELINE,
    CACHE,
    CorpusReport,
    build_live_backend,
    run_corpus,
)


def table(reports: Sequence[CorpusReport], baseline: dict[str, Any] | None) -> str:
    lines = []
    for r in reports:
        base = (baseline or {}).get(r.corpus, {}).get("metrics", {})
        rows = metrics.compare(r.metrics, base) if base else []
        by_name = {row[0]: row for row in rows}
        lines.append(f"### {r.corpus}\n")
        lines.append("| metric | value | baseline | delta |")
        lines.append("|---|---:|---:|---:|")
        for name, value in r.metrics.items():
            if name in by_name:
                _, b, _, d, bad = by_name[name]
                mark = " ✗" if bad else (" ✓" if d != 0 else "")
                lines.append(f"| {name} | {value:g} | {b:g} | {d:+g}{mark} |")
            else:
                lines.append(f"| {name} | {value:g} | – | – |")
        c = r.cost
        lines.append(f"| cost.model_calls | {c.get('model_calls', 0)} | | |")
        lines.append(f"| cost.input_tokens | {c.get('input_tokens', 0)} | | |")
        lines.append(f"| cost.output_tokens | {c.get('output_tokens', 0)} | | |")
        lines.append(f"| cost.usd | {c.get('cost_usd', 0.0):.4f} | | |")
        for stage, secs in r.stage_seconds.items():
            lines.append(f"| time.{stage}_s | {secs:g} | | |")
        if r.audit.get("accepts_sampled"):
            a = r.audit
            lines.append(f"| audit.accepts | {a['accepts_correct']}/{a['accepts_sampled']} correct, "
                         f"precision ≥ {a['precision_lower_95']} (95%) | | |")
        lines.append("")
    return "\n".join(lines)


def stale_note(reports: Sequence[CorpusReport]) -> str:
    """A plain sentence when replayed answers were recorded with other prompts."""
    stale: dict[str, str] = {}
    for r in reports:
        stale.update(r.stale_prompts)
    if not stale:
        return ""
    lines = ["NOTE: the current prompts are not the ones these answers were recorded with; the "
             "offline metrics measure the old prompts' answers (re-record with --record-oracle "
             "or --live):"]
    lines += [f"  - {tool}: {why}" for tool, why in sorted(stale.items())]
    return "\n".join(lines) + "\n"


def _miss_lines(reports: Sequence[CorpusReport]) -> list[str]:
    return [f"{r.corpus}: " + ", ".join(f"{tool} {n}" for tool, n in sorted(r.replay_misses.items()))
            for r in reports if r.replay_misses]


def miss_note(reports: Sequence[CorpusReport]) -> str:
    """Replayed calls that had no recording, per corpus and tool. A miss is a
    changed request (a prompt, a batch, a chunk), not a model's answer: the
    metrics it moves measure the missing recording, not the pipeline's quality."""
    lines = _miss_lines(reports)
    if not lines:
        return "replay misses: none (every replayed call had a recording)\n\n"
    return ("NOTE: replay misses (calls with no recording; they fall back and move metrics "
            "that then measure the missing recording, not quality):\n"
            + "".join(f"  - {line}\n" for line in lines) + "\n")


def lowered(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Every metric the new baseline would move in the worse direction."""
    out = []
    for corpus, entry in new.items():
        for section in ("metrics", "noisy"):
            before = old.get(corpus, {}).get(section, {})
            for name, _b, _c, _d, bad in metrics.compare(entry.get(section, {}), before):
                if bad:
                    out.append(f"{corpus} {section} {name}: {before[name]:g} -> {entry[section][name]:g}")
    return out


def gate_problems(reports: Sequence[CorpusReport], rows: Sequence[Any],
                  noisy_now: dict[str, Any], baseline: dict[str, Any] | None) -> list[str]:
    """Every reason the gate would fail: a metric below the baseline, a corpus with
    none, the noisy model's bar not held. Empty when there is no baseline."""
    from evals import faults as noisy

    if baseline is None:
        return []
    regressions = [
        (r.corpus, row) for r in reports
        for row in metrics.compare(r.metrics, baseline.get(r.corpus, {}).get("metrics", {}))
        if row[4]
    ]
    regressions += [
        (corpus, row) for corpus, now in noisy_now.items()
        for row in metrics.compare(now, baseline.get(corpus, {}).get("noisy", {}))
        if row[4]
    ]
    out = [f"{corpus} {name} regressed: {b:g} -> {c:g} ({d:+g})"
           for corpus, (name, b, c, d, _) in regressions]
    out += [f"{r.corpus} has no baseline" for r in reports if r.corpus not in baseline]
    out += [f"{c} has no noisy baseline" for c in noisy_now if "noisy" not in baseline.get(c, {})]
    if out:
        out += [f"(replay misses, not quality: {note})" for note in _miss_lines(reports)]
    out += noisy.acceptance(list(rows)) if rows else []
    return out


def verdict(problems: Sequence[str], baseline: dict[str, Any] | None, where: Path,
            corpora: int, noisy_ran: bool) -> str:
    """The one line a reader needs before the tables."""
    if baseline is None:
        return f"verdict: no baseline at {where}; nothing to compare the {corpora} corpora with"
    if problems:
        more = f" (+{len(problems) - 3} more below)" if len(problems) > 3 else ""
        return f"verdict: FAIL, {len(problems)} problem(s): {'; '.join(problems[:3])}{more}"
    return (f"verdict: PASS, no metric below the baseline on {corpora} corpora"
            + ("; the noisy model's bar holds" if noisy_ran else ""))


def _language_report(reports: Sequence[CorpusReport],
                     rows: Sequence[Any]) -> tuple[str, list[str]]:
    """A table per language for every corpus that has languages (the replayed run
    and the noisy model's all-faults run), and the lines of the per-language bar
    they miss."""
    problems: list[str] = []
    out: list[str] = []
    for r in reports:
        if not r.languages:
            continue
        runs: dict[str, dict[str, dict[str, float]]] = {"replay": r.languages}
        noisy_all = next((x for x in rows if x.corpus == r.corpus and x.fault == "all"), None)
        if noisy_all is not None:
            runs["noisy (all faults)"] = noisy_all.languages
        out.append(metrics.language_table(r.corpus, runs))
        for run, per in runs.items():
            problems += metrics.language_problems(r.corpus, run, per)
        bar = ", ".join(f"{k} {'>=' if metrics.DIRECTION[k] else '<='} {v:g}"
                        for k, v in metrics.LANGUAGE_BAR.items())
        out.append(f"per-language bar ({bar}): " + ("holds" if not problems else "FAILS") + "\n")
    return "\n".join(out), problems


def main(argv: Sequence[str] | None = None, *, live: Any = None) -> int:
    """The harness. `live`: the backend a `--live` run asks, already built and checked
    (`learn eval` builds it from the person's config); default: built here."""
    parser = argparse.ArgumentParser(prog="learn eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="*", default=sorted(CORPORA) + sorted(NOISY_ONLY))
    parser.add_argument("--live", action="store_true", help="ask a real backend; record its answers")
    parser.add_argument("--backend", default="anthropic", help="the live backend")
    parser.add_argument("--model", default=None, help="the live model (all steps)")
    parser.add_argument("--record-oracle", action="store_true",
                        help="re-record the bundled fixtures from the gold oracle")
    parser.add_argument("--cache-dir", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=None, help="write the JSON report here")
    parser.add_argument("--baseline", type=Path, default=BASELINE)
    parser.add_argument("--gate", action="store_true", help="exit 1 when a metric regresses")
    parser.add_argument("--write-baseline", action="store_true")
    parser.add_argument("--accept-regression", action="store_true",
                        help="let --write-baseline lower a metric")
    parser.add_argument("--no-noisy", action="store_true", help="skip the noisy model's per-fault runs")
    parser.add_argument("--noisy-seed", type=int, default=0)
    args = parser.parse_args(argv)

    from evals import faults as noisy

    unknown = [c for c in args.corpora if c not in ALL_CORPORA]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(sorted(ALL_CORPORA))}")
    mode = "oracle" if args.record_oracle else ("live" if args.live else "replay")
    # NOISY_ONLY corpora have no recordings: only the noisy model runs them.
    if mode == "live" and live is None:
        import click

        try:
            live = build_live_backend(args.backend, args.model)
        except click.ClickException as exc:  # learn run's one line and exit code (2 or 3)
            print(f"{parser.prog}: {exc.format_message()}", file=sys.stderr)
            return exc.exit_code
    reports = [run_corpus(c, mode=mode, live=live, model=args.model, cache_dir=args.cache_dir)
               for c in args.corpora if c in CORPORA]
    rows: list[noisy.FaultRow] = []
    if not args.no_noisy:
        for c in args.corpora:
            rows.extend(noisy.fault_runs(c, seed=args.noisy_seed))
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline.exists() else None
    noisy_now = noisy.baseline_metrics(rows)
    language_text, language_problems = _language_report(reports, rows)
    outcome_failures: list[str] = []
    outcome_text = ""
    if not args.no_noisy:
        # Rules before and after they are applied (evals/outcomes.py), noisy model.
        from evals.outcomes import run_outcomes

        checked = run_outcomes(seed=args.noisy_seed)
        outcome_failures = [f"outcomes scenario: {k}" for k, ok in checked.checks.items() if not ok]
        outcome_text = (f"\nOutcomes scenario (noisy model): {sum(checked.checks.values())}/"
                        f"{len(checked.checks)} checks pass"
                        + "".join(f"\n  FAIL {x}" for x in outcome_failures))
        # Rules followed or ignored at known rates, a path rule never loaded, Codex
        # sessions beside Claude Code's (evals/rules_work.py), noisy model.
        from evals.rules_work import run_rules_work

        worked = run_rules_work(seed=args.noisy_seed)
        failed = [f"rules-work scenario: {k}" for k, ok in worked.checks.items() if not ok]
        outcome_failures += failed
        outcome_text += (f"\nRules-work scenario (noisy model): {sum(worked.checks.values())}/"
                         f"{len(worked.checks)} checks pass"
                         + "".join(f"\n  FAIL {x}" for x in failed))
    problems = (gate_problems(reports, rows, noisy_now, baseline) + language_problems
                + outcome_failures)
    # The verdict first: the tables below run to 140 lines.
    print(verdict(problems, baseline, args.baseline, len(reports), bool(rows)) + "\n")
    print(stale_note(reports) + miss_note(reports) + table(reports, baseline))
    if rows:
        print(noisy.fault_table(rows))
    if outcome_text:
        print(outcome_text)
    if language_text:
        print(language_text)
    payload = {r.corpus: {"metrics": r.metrics, "cost": r.cost, "stage_seconds": r.stage_seconds,
                          "audit": r.audit, "stale_prompts": r.stale_prompts,
                          "replay_misses": r.replay_misses,
                          **({"languages": r.languages} if r.languages else {})} for r in reports}
    if args.out:
        out = {**payload, "noisy": noisy.to_json(rows)}
        args.out.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.write_baseline:
        base = {c: {"metrics": v["metrics"], **({"noisy": noisy_now[c]} if c in noisy_now else {})}
                for c, v in payload.items()}
        base |= {c: {"noisy": noisy_now[c]} for c in noisy_now if c not in payload}
        worse = lowered(baseline or {}, base)
        if worse and not args.accept_regression:
            for line in worse:
                print(f"write-baseline: {line} would lower the baseline", file=sys.stderr)
            print("write-baseline: refused; pass --accept-regression to lower it on purpose",
                  file=sys.stderr)
            return 1
        merged = dict(baseline or {})
        for c, entry in base.items():
            merged[c] = {**merged.get(c, {}), **entry}
        args.baseline.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n",
                                 encoding="utf-8")
        print(f"baseline written to {args.baseline}")
    if args.gate:
        if baseline is None:
            print(f"gate: no baseline at {args.baseline}", file=sys.stderr)
            return 1
        if problems:
            for line in problems:
                print(f"gate: {line}", file=sys.stderr)
            return 1
        print("gate: no metric below the baseline" + ("; the noisy model's bar holds" if rows else ""))
    return 0
