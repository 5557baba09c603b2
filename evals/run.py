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
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals import metrics
from evals.corpora import CORPORA
from evals.gold import Gold

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "cache"
BASELINE = REPO / "evals" / "baseline.json"


@dataclass
class CorpusReport:
    corpus: str
    metrics: dict[str, float] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    audit: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def isolated_home(root: Path) -> Iterator[Path]:
    """Point HOME and learn's directories into `root` for the duration."""
    keys = ("HOME", "LEARN_DATA_DIR", "LEARN_CACHE_DIR", "LEARN_CONFIG_DIR",
            "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
    saved = {k: os.environ.get(k) for k in keys}
    try:
        for k in keys:
            os.environ.pop(k, None)
        os.environ["HOME"] = str(root / "home")
        os.environ["LEARN_DATA_DIR"] = str(root / "data")
        os.environ["LEARN_CACHE_DIR"] = str(root / "cache")
        os.environ["LEARN_CONFIG_DIR"] = str(root / "config")
        yield root
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def make_backend(kind: str, gold: Gold, *, live_backend: str | None, model: str | None,
                 cache_dir: Path) -> Any:
    from learn.models.replay import RecordingBackend, ReplayBackend

    if kind == "replay":
        return ReplayBackend(cache_dir)
    if kind == "oracle":
        from evals.oracle import GoldOracle

        return RecordingBackend(GoldOracle(gold), cache_dir)
    from learn.models.registry import get_backend

    assert live_backend is not None
    return RecordingBackend(get_backend(live_backend), cache_dir)


def run_corpus(name: str, *, mode: str = "replay", live_backend: str | None = None,
               model: str | None = None, cache_dir: Path = CACHE, audit_seed: int = 0) -> CorpusReport:
    from learn.config import load_config
    from learn.pipeline import RunOptions, run_pipeline

    build = CORPORA[name]
    report = CorpusReport(corpus=name)
    with tempfile.TemporaryDirectory(prefix=f"learn-eval-{name}-") as tmp:
        root = Path(tmp)
        gold = build(root / "corpus")
        with isolated_home(root / "corpus"):
            config = load_config()
            if model:
                config = config.model_copy(update={"models": config.models.model_copy(update={
                    "mine": model, "name": model, "coverage": model, "judge": model})})
            backend = make_backend(mode, gold, live_backend=live_backend, model=model,
                                   cache_dir=cache_dir)
            options = RunOptions(all_projects=True, since=None, show_all=True)
            started = time.perf_counter()
            result, trace = run_pipeline(options, config, backend=backend)
            wall = time.perf_counter() - started
            written = [p.read_text(errors="replace") for p in _files_under(root / "corpus" / "data")]
            written += [p.read_text(errors="replace") for p in _files_under(root / "corpus" / "cache")]
        data = result.to_json()
        verified = [metrics.Occurrence(o.session, o.kind, o.text, o.label, o.command)
                    for o in trace.labelled]
        dropped = [metrics.Occurrence(o.session, o.kind, o.text, "", o.command)
                   for o in trace.dropped]
        m: dict[str, float] = {}
        m.update(metrics.mining_metrics(gold, verified, dropped))
        m.update(metrics.naming_metrics(gold, verified))
        m.update(metrics.proposal_metrics(gold, data["proposals"], written))
        m.update(metrics.agreement_metrics(gold, data["proposals"]))
        report.metrics = m
        report.cost = dict(data["usage"])
        report.stage_seconds = {**{k: round(v, 3) for k, v in trace.stage_seconds.items()},
                                "total": round(wall, 3)}
        report.proposals = data["proposals"]
        report.audit = audit(data["proposals"], gold, seed=audit_seed)
    return report


def _files_under(root: Path) -> list[Path]:
    if not root.exists():
        return []
    out = []
    for p in root.rglob("*"):
        if p.is_file() and p.suffix in {".json", ".md", ".html", ".txt", ".jsonl", ".db", ""}:
            out.append(p)
    return out


def audit(proposals: Sequence[dict[str, Any]], gold: Gold, *, seed: int, per_side: int = 10) -> dict[str, Any]:
    """A seeded sample of accepted and rejected verdicts, each checked against gold,
    with one-sided Clopper-Pearson bounds on the judge's precision."""
    import random

    rng = random.Random(f"audit:{seed}")
    accepts = [p for p in proposals if p.get("verdict") and p["verdict"]["accepted"]]
    rejects = [p for p in proposals if p.get("verdict") and not p["verdict"]["accepted"]]
    sample_a = rng.sample(accepts, min(per_side, len(accepts)))
    sample_r = rng.sample(rejects, min(per_side, len(rejects)))

    def correct(p: dict[str, Any], accepted: bool) -> bool:
        g = gold.groups.get(p["label"])
        return g is not None and g.accepted == accepted and g.proposed

    good_a = sum(1 for p in sample_a if correct(p, True))
    good_r = sum(1 for p in sample_r if not correct(p, True))
    return {
        "accepts_sampled": len(sample_a),
        "accepts_correct": good_a,
        "precision_lower_95": round(metrics.clopper_pearson_lower(good_a, len(sample_a)), 4),
        "rejects_sampled": len(sample_r),
        "rejects_correct": good_r,
    }


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="learn eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="*", default=sorted(CORPORA))
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
    args = parser.parse_args(argv)

    unknown = [c for c in args.corpora if c not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(sorted(CORPORA))}")
    mode = "oracle" if args.record_oracle else ("live" if args.live else "replay")
    reports = [run_corpus(c, mode=mode, live_backend=args.backend, model=args.model,
                          cache_dir=args.cache_dir) for c in args.corpora]
    baseline = json.loads(args.baseline.read_text()) if args.baseline.exists() else None
    print(table(reports, baseline))
    payload = {r.corpus: {"metrics": r.metrics, "cost": r.cost, "stage_seconds": r.stage_seconds,
                          "audit": r.audit} for r in reports}
    if args.out:
        args.out.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    if args.write_baseline:
        base = {c: {"metrics": v["metrics"]} for c, v in payload.items()}
        args.baseline.write_text(json.dumps(base, indent=2, sort_keys=True) + "\n")
        print(f"baseline written to {args.baseline}")
    if args.gate:
        if baseline is None:
            print(f"gate: no baseline at {args.baseline}", file=sys.stderr)
            return 1
        regressions = [
            (r.corpus, row) for r in reports
            for row in metrics.compare(r.metrics, baseline.get(r.corpus, {}).get("metrics", {}))
            if row[4]
        ]
        missing = [r.corpus for r in reports if r.corpus not in baseline]
        if regressions or missing:
            for corpus, (name, b, c, d, _) in regressions:
                print(f"gate: {corpus} {name} regressed: {b:g} -> {c:g} ({d:+g})", file=sys.stderr)
            for corpus in missing:
                print(f"gate: {corpus} has no baseline", file=sys.stderr)
            return 1
        print("gate: no metric below the baseline")
    return 0
