"""`learn apply` of learn's check (a proposal with surface "check", learn.report.check_offer).

The check is not a line: it is a rule in learn's check data file and, the first
time, learn's hook in the project's `.claude/settings.local.json`. Both are planned
by learn.report.check_install and handed to `learn apply` as file plans, so they
are shown, confirmed (one `--confirm TOKEN` for everything an apply writes),
written through the same confinement and journal as every other write: each
file, the install record included, is journaled as a check's write, which
`learn apply --undo` puts back whole or not at all (learn.report.undo). The rule
starts record-only.

The check is installed whole or not at all. From a git worktree the settings
write was refused (confined to the main checkout) while the rules file was
still written, the install record named the worktree's settings as holding the
hook and the offer was recorded as applied: a check recorded as in place that
ran nowhere. So the agent files are confined where `learn check` confines them
(the project's folder or another checkout of its repository), a destination
that cannot be written refuses the whole check before anything is, and the
check's files are written all or none (learn.commands.apply_writes.Whole): asked
about hook first (a no, and the rules file is not asked about), written rules
file first and hooks last, and when one is not written (changed since the diff,
a full disk) the ones written before it are put back and nothing is recorded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from learn.guard.rules import BadRules, CheckRule
from learn.projects import write_roots
from learn.records.proposal import Proposal
from learn.report.check_install import CheckError, CheckPlan
from learn.report.check_writes import Writer, Written
from learn.report.edits import FilePlan, sha256


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


@dataclass
class CheckApply:
    """The file plans of the checks being applied, and what to record once written: a
    learn.commands.apply_writes.Whole, written all or none."""

    project: str
    check: CheckPlan
    offers: list[tuple[Proposal, CheckRule]]
    plans: list[FilePlan] = field(default_factory=list)  # the agent files, then the data file
    data: FilePlan | None = None  # learn's data file (the check's rules), when it changes
    done: set[Path] = field(default_factory=set)

    def owns(self, plan: FilePlan) -> bool:
        return any(plan is p for p in self.plans)

    def keys(self) -> list[str]:
        return [p.key for p, _ in self.offers]

    def asked(self) -> list[FilePlan]:
        """The agent files first: when the person says no to one, learn's data file is not
        asked about (the check would run nowhere here), and a "y" meant for it is not read."""
        return self.plans

    def ordered(self) -> list[FilePlan]:
        """learn's data file first, the agent files (the hooks) last. Written the other way,
        a data file that failed (a full disk, a `learn check` changing it meanwhile) left
        the hook in the person's settings with no rules file and no install record, which
        `learn check remove` goes by: a hook nothing would take out."""
        return sorted(self.plans, key=lambda p: p is not self.data)

    def written(self, plan: FilePlan, writer: Writer) -> Written | None:
        """After each of its plans is written (apply_writes writes them all or none): once
        every one is, the install record (written and journaled by `writer`, with the
        others' batch) and the decisions (the proposal applied, as form "check")."""
        from learn.guard.files import rules_file
        from learn.report.check_writes import write_record
        from learn.report.runs import record_decision

        self.done.add(plan.path)
        if any(p.path not in self.done for p in self.plans):
            return None
        record = write_record(self.check, self.project, writer=writer)
        for p, rule in self.offers:
            record_decision(p.key, "accepted", rule.reason, str(rules_file(self.project)),
                            project=self.project, proposal=p, form="check")
            click.echo(f"{p.key}: learn's check notes what it would stop (record-only); "
                       f"`learn check enforce {rule.id}` makes it stop the agent")
        return record

    def not_written(self, missing: Sequence[Path], put_back: Sequence[Path]) -> str:
        names = ", ".join(str(m) for m in missing)
        was = "was" if len(missing) == 1 else "were"
        back = "".join(f"; {p} is put back as it was" for p in put_back)
        return (f"learn's check is not installed: {names} {was} not written, so the check "
                f"would run nowhere here{back}, and {', '.join(self.keys())} is not recorded "
                "as applied. Run `learn apply` again to install it.")


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
    from learn.report.check_offer import check_rule_of, offered_in

    pairs: list[tuple[Proposal, CheckRule]] = []
    now = now_iso()
    try:
        rules = list(current_rules(project).rules)
        for p in offers:
            # Never in place of a rule of the same id the person has (offered_in).
            rule, kept = offered_in(rules, check_rule_of(p)._replace(added_at=now))
            mode = "record-only" if rule.mode == "record" else "enforced, as it was"
            click.echo(f"{p.key}: learn's check, {mode}: {rule.words()} — \"{rule.reason}\"")
            if kept:
                click.echo(f"note: {kept}")
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

    # The agent's files first, learn's data file last: the order they are shown and asked
    # in (CheckApply.asked); written the other way round (CheckApply.ordered).
    changes = [c for c in sorted(check.changes, key=lambda c: c.private) if c.after != c.before]
    # Each agent file where `learn check` writes it (check_writes._confined): the
    # project's folder, or the checkout of its repository apply runs in (a worktree).
    where: list[tuple[Path, tuple[str, ...]]] = []
    for c in changes:
        roots = write_roots(project, c.path)
        real = _confined(c.path, roots) if not c.private else c.path
        if isinstance(real, str):
            click.echo(f"refused: learn's check: {real}; nothing was written for the check",
                       err=True)
            return None
        where.append((real, roots))
    ensure_private_dir(checks_dir())  # learn's data: 0700 before its first file
    # The rules file dates each check it adds to the second it is written; a `--confirm`
    # a while after the dry run confirms the same changes at another second.
    stamp = json.dumps(now)
    plans = [FilePlan(path=real, original=_text(c.before),
                      original_hash=sha256(c.before) if c.before is not None else "",
                      new_text=_text(c.after) or "", remove=c.after is None, projects=roots,
                      confirmed=(_text(c.after) or "").replace(stamp, '"(when written)"'))
             for c, (real, roots) in zip(changes, where, strict=True)]
    data = next((plan for plan, c in zip(plans, changes, strict=True) if c.private), None)
    return CheckApply(project, check, pairs, plans, data=data)


def _confined(path: Path, roots: tuple[str, ...]) -> Path | str:
    """The real file behind the agent file `path` when learn may write it under `roots`,
    else why not (not a destination learn writes, a link out, read-only): asked before
    anything is written, so a check is never left half in place."""
    from learn.report.confine import confine
    from learn.report.errors import ConfinementError
    from learn.report.writable import read_only_reason

    try:
        real = confine(path, roots)
    except ConfinementError as exc:
        return str(exc)
    return read_only_reason(real) or real
