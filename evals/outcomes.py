"""The outcomes eval: run, apply / decline, more sessions, run again; check every verdict.

Drives evals/corpora/outcomes.py through the real pipeline with the noisy model
(every fault on, seeded) and the real store: run 1 over phase 1; the rules are
written with `learn apply`'s own planning and recorded as applied at their dates
(one declined); phase 2 is added; run 2. Each check names what the issue asks for
and is True only when run 2 says it. `python -m evals.outcomes [--seed N]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.corpora import outcomes as scenario
from evals.corpus import isolated_home
from evals.gold import Gold
from evals.noisy import SCENARIO_FAULTS, NoisyModel
from evals.oracle import GoldOracle


@dataclass
class OutcomesReport:
    checks: dict[str, bool] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    injected: dict[str, int] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(self.checks.values())


def _group_of(oracle: GoldOracle, p: Any) -> str | None:
    """The gold group most of a proposal's quotes belong to (labels may drift)."""
    votes: dict[str, int] = {}
    for q in p.quotes:
        g = oracle._group_of(q.text)
        if g:
            votes[g] = votes.get(g, 0) + 1
    return max(votes, key=lambda k: votes[k]) if votes else None


def _by_group(oracle: GoldOracle, proposals: Sequence[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for p in proposals:
        g = _group_of(oracle, p)
        if g:
            out.setdefault(g, []).append(p)
    return out


def _run(backend: Any) -> Any:
    from learn.config import load_config
    from learn.pipeline import RunOptions, run_pipeline

    result, _ = run_pipeline(RunOptions(all_projects=True, since=None), load_config(),
                             backend=backend)
    return result


def run_outcomes(*, seed: int = 0, faults: Sequence[str] = SCENARIO_FAULTS) -> OutcomesReport:
    from learn.reduce.commands import copies_a_quote
    from learn.report.apply import edit_for, plan_all, write_plan
    from learn.report.digest import render_digest_markdown
    from learn.report.targets import TargetChoice
    from learn.store import open_store
    from learn.store.runs import default_store_path

    report = OutcomesReport()
    check = report.checks
    with tempfile.TemporaryDirectory(prefix="learn-eval-outcomes-") as tmp:
        root = Path(tmp) / "corpus"
        gold: Gold = scenario.build_before(root)
        shop = scenario.project_dir(root)
        with isolated_home(root):
            first = _run(NoisyModel(gold, faults, seed=seed))
            oracle = GoldOracle(gold)
            names = scenario.groups(Gold(corpus="names"))
            found = _by_group(oracle, first.proposals)
            check["run 1 proposes the four phase-1 rules"] = all(
                names[k] in found for k in ("push", "bun", "prs", "tabs"))
            if not check["run 1 proposes the four phase-1 rules"]:
                report.notes["run 1"] = json.dumps(sorted(found))
                return report
            applied: dict[str, str] = {}
            with open_store(default_store_path()) as store:
                book = store.proposals
                for short in ("push", "bun", "prs"):
                    p = found[names[short]][0]
                    edit = edit_for(p, TargetChoice(project_dir=shop, follow_quotes=True))
                    for plan in plan_all([edit]):
                        write_plan(plan)
                    book.decide(p.key, "applied", str(shop), at=scenario.APPLIED[short])
                    book.record_applied(project=str(shop), proposal=p, decision="accepted",
                                        form="rule", rule_text=edit.text,
                                        target_file=str(edit.target),
                                        backup_file=None, at=scenario.APPLIED[short])
                    applied[short] = p.key
                tabs = found[names["tabs"]][0]
                book.decide(tabs.key, "declined", str(shop))

            gold = scenario.build_after(root, gold)
            model = NoisyModel(gold, faults, seed=seed)
            second = _run(model)
            report.injected = dict(getattr(model, "injected", {}))
            oracle = GoldOracle(gold)
            props = _by_group(oracle, second.proposals)
            outcomes = {o["key"]: o for o in second.extra.get("outcomes") or ()}
            md = render_digest_markdown(second)
            report.notes["digest"] = md

            def verdict(short: str) -> str | None:
                o = outcomes.get(applied[short])
                return o["verdict"] if o else None

            check["holding: bun not said in 6 sessions since"] = verdict("bun") == "holding"
            push = outcomes.get(applied["push"]) or {}
            check["ignored: git push said again since, with the quotes"] = (
                verdict("push") == "ignored" and push.get("said_since") == 2
                and len(push.get("quotes_since") or ()) >= 2)
            check["too early: small PRs, 1 session since"] = verdict("prs") == "too-early"
            check["the digest has a section per applied rule"] = (
                "## Did the rules work?" in md
                and all(f"**{k.split(':', 1)[1]}**" in md for k in applied.values()))

            enforced = [p for p in second.proposals if p.surface == "permission"]
            check["the ignored rule is escalated to Bash(git push:*)"] = any(
                "Bash(git push:*)" in p.surface_rules for p in enforced)
            settings_ok = False
            for p in enforced:
                edit = edit_for(p, TargetChoice(project_dir=shop, follow_quotes=True))
                [plan] = plan_all([edit])
                data = json.loads(plan.new_text)
                settings_ok = (plan.refused is None and plan.path.name == "settings.json"
                               and "Bash(git push:*)" in data["permissions"]["deny"]
                               and plan.diff().startswith("--- /dev/null"))
            check["the escalation is a valid settings.json diff"] = settings_ok

            api = props.get(names["api"]) or []
            check["a directory-specific correction is a path-scoped rule"] = any(
                p.surface == "path-rule" and p.surface_rules == ("src/api/**",) for p in api)
            log = props.get(names["log"]) or []
            check["a proposal already in auto-memory is shown as a promotion"] = (
                any(p.status == "restated" and "memory" in (p.existing_rule_file or "")
                    for p in log) and "promote from memory to CLAUDE.md" in md)
            doc = props.get(names["doc"]) or []
            contradiction = [p for p in doc if p.status == "contradicts"]
            edit_ok = False
            for p in contradiction:
                [plan] = plan_all([edit_for(p, TargetChoice(project_dir=shop,
                                                            follow_quotes=True))])
                edit_ok = (scenario.GOOGLE_RULE not in plan.new_text
                           and f"-- {scenario.GOOGLE_RULE}" in plan.diff())
            check["a contradiction is proposed as an edit of the rule"] = edit_ok
            pending = {x.get("key") for x in second.extra.get("pending") or ()}
            check["the declined proposal is not shown again"] = (
                names["tabs"] not in props and tabs.key not in pending)
            plan_points = props.get(names["plan"], []) + props.get(names["think"], [])
            check["a directive and a request of one point are counted once"] = (
                len(plan_points) == 1 and plan_points[0].kind == "directive"
                and plan_points[0].sessions == 4)
            explain = props.get(names["explain"]) or []
            check["a repeated request is proposed as a command"] = any(
                p.surface == "command" and (p.verdict is None or p.verdict.accepted)
                for p in explain)
            check["the command's body is an instruction written from all its asks"] = any(
                p.command_body and not copies_a_quote(p.command_body, [q.text for q in p.quotes])
                for p in explain)
            report.notes["proposals"] = json.dumps(
                {k: [(p.key, p.sessions, p.status, p.surface) for p in v] for k, v in props.items()})
            report.notes["outcomes"] = json.dumps(
                {k: (o["verdict"], o["said_since"], o["sessions_since"]) for k, o in outcomes.items()})
    return report


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m evals.outcomes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = run_outcomes(seed=args.seed)
    for name, ok in report.checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    for name, note in report.notes.items():
        if name != "digest":  # the whole digest of run 2, for a test to read
            print(f"# {name}: {note}")
    print(f"# noisy faults fired in run 2: {json.dumps(report.injected, sort_keys=True)}")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
