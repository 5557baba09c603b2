"""`learn apply` of learn's check (a proposal with surface "check", learn.report.check_offer).

The check is not a line: it is a rule in learn's check data file and, the first
time, learn's hook in the project's `.claude/settings.local.json`. Both are planned
by learn.report.check_install and handed to `learn apply` as file plans, so they
are shown, confirmed (one `--confirm TOKEN` for everything an apply writes),
written through the same confinement and journal (`learn apply --undo` puts the
settings back) as every other write. The rule starts record-only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from learn.guard.rules import BadRules, CheckRule
from learn.records.proposal import Proposal
from learn.report.check_install import CheckError, CheckPlan
from learn.report.edits import FilePlan, sha256


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


@dataclass
class CheckApply:
    """The file plans of the checks being applied, and what to record once written."""

    project: str
    check: CheckPlan
    offers: list[tuple[Proposal, CheckRule]]
    plans: list[FilePlan] = field(default_factory=list)
    done: set[Path] = field(default_factory=set)

    def owns(self, plan: FilePlan) -> bool:
        return any(plan is p for p in self.plans)

    def keys(self) -> list[str]:
        return [p.key for p, _ in self.offers]

    def written(self, plan: FilePlan) -> None:
        """After each of its plans is written: once the data file is, the install record
        and the decisions (the proposal applied, as form "check")."""
        from learn.guard.files import rules_file
        from learn.report.check_install import write_record
        from learn.report.runs import record_decision

        self.done.add(plan.path)
        if plan.path != self.plans[-1].path:
            return
        write_record(self.check, self.project)
        for p, rule in self.offers:
            record_decision(p.key, "accepted", rule.reason, str(rules_file(self.project)),
                            project=self.project, proposal=p, form="check")
            click.echo(f"{p.key}: learn's check notes what it would stop (record-only); "
                       f"`learn check enforce {rule.id}` makes it stop the agent")


def plan_checks(offers: Sequence[Proposal], project: str,
                checkout: str | None = None) -> CheckApply | None:
    """The file plans that put every offered check in place (record-only) for `project`,
    the hook in `checkout` (the checkout apply runs in); None, with the reason printed,
    when one cannot be."""
    from learn.isotime import now_iso
    from learn.report.check_install import (
        current_rules,
        installed_agents,
        plan_rules,
        with_rule,
    )
    from learn.report.check_offer import check_rule_of

    pairs: list[tuple[Proposal, CheckRule]] = []
    now = now_iso()
    try:
        rules = list(current_rules(project).rules)
        for p in offers:
            rule = check_rule_of(p)._replace(added_at=now)
            click.echo(f"{p.key}: learn's check, record-only: {rule.words()} — \"{rule.reason}\"")
            rules = with_rule(rules, rule)
            pairs.append((p, rule))
        check = plan_rules(project, rules, agents=sorted({"claude", *installed_agents(project)}),
                           checkout=checkout)
    except (BadRules, CheckError) as exc:
        click.echo(f"refused: {exc}", err=True)
        return None
    for note in check.notes:
        click.echo(f"note: {note}")
    from learn.guard.files import checks_dir
    from learn.paths import ensure_private_dir

    ensure_private_dir(checks_dir())  # learn's data: 0700 before its first file
    # The agent's files first, learn's data file last: its write completes the install.
    changes = sorted(check.changes, key=lambda c: c.private)
    # The rules file dates each check it adds to the second it is written; a `--confirm`
    # a while after the dry run confirms the same changes at another second.
    stamp = json.dumps(now)
    plans = [FilePlan(path=c.path, original=_text(c.before),
                      original_hash=sha256(c.before) if c.before is not None else "",
                      new_text=_text(c.after) or "", remove=c.after is None,
                      projects=(project,),
                      confirmed=(_text(c.after) or "").replace(stamp, '"(when written)"'))
             for c in changes if c.after != c.before]
    return CheckApply(project, check, pairs, plans)
