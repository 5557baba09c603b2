"""`learn check`: learn's own check for commands words cannot hold (learn.guard).

    learn check add git push --flag --force --flag -f --argument '+*' --reason "..."
    learn check list            what is checked here, and what it stopped or would have
    learn check test "git -C app push -f"     which rule a command line breaks
    learn check enforce ID      stop the agent from now on (record-only until then)
    learn check record ID       back to noting only
    learn check remove ID|--all take it away (the last one restores the settings)

A new rule starts record-only: the agent's command runs and the check notes it;
the digest then says how often it would have stopped the agent. Every change to
a settings file is shown as a diff and asked for first (--yes skips the question),
and journaled as `learn apply` journals its writes (pending before each rename, under
the apply lock, taken only to write, never while the diff is read:
learn.commands.apply_writes.Journaled, apply_lock.one_apply): `learn apply --undo` puts back what
the last command wrote, as it does an apply's, a command killed half-way included.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from learn.guard.rules import CheckRule, Mode, RuleSet


def _project(project_dir: Path | None) -> str:
    from learn.projects import project_here

    return project_here(project_dir or Path.cwd())


def _show_and_confirm(plan: object, yes: bool) -> bool:
    from learn.report.check_install import CheckPlan

    assert isinstance(plan, CheckPlan)
    if plan.empty:
        click.echo("nothing to change")
        return False
    for c in plan.changes:
        if c.before == c.after:
            continue
        if c.private:
            click.echo(f"learn's check rules: {c.path}")
            continue
        click.echo(c.diff(), nl=False)
    for note in plan.notes:
        click.echo(f"note: {note}")
    from learn.commands.apply_writes import asked

    return asked(yes, "write these changes?")


def _apply(project: str, rules: Sequence[CheckRule], agents: Sequence[str], yes: bool,
           project_dir: Path | None = None) -> None:
    """Show the changes, ask, write (exits 1 on a refused change). A new hook goes into
    the checkout the command runs in (`project_dir`, else the current directory). Every
    file written is one batch of `learn apply`'s journal: `learn apply --undo` puts them
    back together (learn.report.undo). The caller settled what a killed write left first
    (apply_lock.settled); the apply lock is taken here only to write, after the person
    said yes (one_apply): a change made meanwhile to a file the diff showed is refused
    (check_writes.write_plan), nothing written."""
    from learn.commands.apply_lock import one_apply
    from learn.commands.apply_writes import Journaled, new_batch
    from learn.projects import checkout_folder
    from learn.report.check_install import CheckError, plan_rules
    from learn.report.check_writes import write_plan

    try:
        plan = plan_rules(project, rules, agents=[a for a in ("claude", "codex", "codex-rules")
                                                  if a in agents],
                          checkout=str(checkout_folder(project_dir or Path.cwd())))
        if not _show_and_confirm(plan, yes):
            return
        with one_apply():
            write_plan(plan, project, writer=Journaled(new_batch(), "check", project))
    except CheckError as exc:
        click.echo(f"learn check: {exc}", err=True)
        sys.exit(1)
    click.echo("done (`learn apply --undo` puts it back)")


def _load(project: str) -> RuleSet:
    from learn.report.check_install import CheckError, current_rules

    try:
        return current_rules(project)
    except CheckError as exc:
        click.echo(f"learn check: {exc}", err=True)
        sys.exit(1)


@click.group("check")
def command() -> None:
    """learn's check: stop (or note) commands you told the agent never to run."""


_PROJECT = click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=None, help="The project (default: the current directory's).")
_YES = click.option("--yes", is_flag=True, help="Write without asking (the diff is still shown).")


@command.command("add", short_help="Check a program for flags and arguments you never want.")
@click.argument("program")
@click.argument("subcommand", required=False)
@click.option("--flag", "flags", multiple=True, help="A flag that must not appear (repeat).")
@click.option("--argument", "arguments", multiple=True,
              help="A pattern an argument must not match, e.g. '+*' (repeat).")
@click.option("--target", "targets", multiple=True,
              help="A pattern one argument must also match, e.g. 'main' '*:main' (repeat): "
                   "the rule then holds only where it is named.")
@click.option("--reason", required=True, help="Your words: what the agent is told when stopped.")
@click.option("--id", "rule_id", default=None, help="A name for the rule (default from the words).")
@click.option("--key", default=None, help="The learn proposal it enforces (kind:label).")
@click.option("--enforce", is_flag=True, help="Stop the agent at once (default: record only).")
@click.option("--codex", is_flag=True, help="Also install it in Codex's hooks.json.")
@_PROJECT
@_YES
def add(program: str, subcommand: str | None, flags: tuple[str, ...], arguments: tuple[str, ...],
        targets: tuple[str, ...], reason: str, rule_id: str | None, key: str | None, enforce: bool, codex: bool,
        project_dir: Path | None, yes: bool) -> None:
    """Check PROGRAM [SUBCOMMAND] for the flags and arguments you never want."""
    from learn.commands.apply_lock import settled
    from learn.guard.rules import BadRules, parse_rule
    from learn.isotime import now_iso
    from learn.report.check_install import installed_agents, with_rule

    project = _project(project_dir)
    rid = rule_id or "-".join(x for x in (program, subcommand, *(f.lstrip("-") for f in flags[:1]))
                              if x).lower()
    try:
        rule = parse_rule({"id": rid, "program": program, "subcommand": subcommand,
                           "flags": list(flags), "arguments": list(arguments), "reason": reason,
                           "mode": "enforce" if enforce else "record", "key": key,
                           "added_at": now_iso(), "targets": list(targets)})
    except BadRules as exc:
        raise click.BadParameter(str(exc)) from exc
    click.echo(f"{'enforce' if enforce else 'record only'}: {rule.words()} — \"{rule.reason}\"")
    settled()
    agents = sorted({"claude", *installed_agents(project), *(_codex_agent() if codex else [])})
    _apply(project, with_rule(_load(project).rules, rule), agents, yes, project_dir)


def _codex_agent() -> list[str]:
    """How Codex gets the check: its hooks (0.124+), else exact prefix rules."""
    from learn.report.check_install import codex_has_hooks

    has = codex_has_hooks()
    if has is None:
        click.echo("note: no `codex` on PATH; the check goes into ~/.codex/hooks.json for when "
                   "it is installed (0.124 or later runs it)")
    return ["codex-rules"] if has is False else ["codex"]


def _set_mode(rule_id: str, mode: Mode, project_dir: Path | None, yes: bool) -> None:
    from learn.commands.apply_lock import settled
    from learn.report.check_install import CheckError, installed_agents, with_mode

    project = _project(project_dir)
    settled()
    try:
        rules = with_mode(_load(project).rules, rule_id, mode)
    except CheckError as exc:
        click.echo(f"learn check: {exc}", err=True)
        sys.exit(1)
    _apply(project, rules, installed_agents(project) or ["claude"], yes, project_dir)


@command.command("enforce")
@click.argument("rule_id")
@_PROJECT
@_YES
def enforce_command(rule_id: str, project_dir: Path | None, yes: bool) -> None:
    """Stop the agent when it breaks RULE_ID (it was noting only)."""
    _set_mode(rule_id, "enforce", project_dir, yes)


@command.command("record")
@click.argument("rule_id")
@_PROJECT
@_YES
def record_command(rule_id: str, project_dir: Path | None, yes: bool) -> None:
    """Only note when the agent breaks RULE_ID; let the command run."""
    _set_mode(rule_id, "record", project_dir, yes)


@command.command("remove", short_help="Remove a rule (or --all), and learn's hook with the last.")
@click.argument("rule_id", required=False)
@click.option("--all", "every", is_flag=True, help="Remove every rule and learn's hook.")
@_PROJECT
@_YES
def remove(rule_id: str | None, every: bool, project_dir: Path | None, yes: bool) -> None:
    """Remove RULE_ID (or --all); the last one out takes learn's hook with it."""
    from learn.commands.apply_lock import settled
    from learn.report.check_install import installed_agents

    project = _project(project_dir)
    settled()
    current = _load(project).rules
    if not every and (rule_id is None or all(r.id != rule_id for r in current)):
        click.echo(f"learn check: no check rule {rule_id!r} here (learn check list)", err=True)
        sys.exit(1)
    left = [] if every else [r for r in current if r.id != rule_id]
    _apply(project, left, installed_agents(project), yes, project_dir)


@command.command("list", short_help="The rules checked here, and what each stopped.")
@_PROJECT
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: each rule, its mode, and what it stopped or noted.")
def list_command(project_dir: Path | None, as_json: bool) -> None:
    """The rules checked in this project, and what each stopped or would have."""
    from learn.guard.files import rules_file
    from learn.guard.rules import read_hits, tally
    from learn.report.check_install import installed_agents

    project = _project(project_dir)
    rules = _load(project).rules
    hits = read_hits(rules_file(project))
    rows = []
    for r in rules:
        would, would_s = tally(hits, r.id, r.added_at, "record")
        stopped, stopped_s = tally(hits, r.id, r.added_at, "enforce")
        rows.append({**r.to_json(), "would_have_stopped": would, "would_sessions": would_s,
                     "stopped": stopped, "stopped_sessions": stopped_s})
    if as_json:
        click.echo(json.dumps({"project": project, "agents": installed_agents(project),
                               "data_file": str(rules_file(project)), "rules": rows}, indent=2))
        return
    if not rows:
        click.echo("no check rules in this project (learn check add ...)")
        return
    for r, row in zip(rules, rows, strict=True):
        said = (f"would have stopped the agent {row['would_have_stopped']} time(s) in "
                f"{row['would_sessions']} session(s) while record-only")
        if r.mode == "enforce":
            said = (f"stopped the agent {row['stopped']} time(s) in {row['stopped_sessions']} "
                    f"session(s); {said}")
        click.echo(f"{r.id} [{r.mode}] {r.words()}: {said}\n    \"{r.reason}\"")


@command.command("test")
@click.argument("line")
@_PROJECT
def test_command(line: str, project_dir: Path | None) -> None:
    """Say which rule LINE breaks (nothing runs)."""
    from learn.guard.rules import check_line
    from learn.guard.shell import simple_commands

    hits = check_line(line, _load(_project(project_dir)).rules)
    click.echo("reads as: " + " ; ".join(" ".join(c.argv) for c in simple_commands(line)))
    if not hits:
        click.echo("no rule broken")
        return
    for h in hits:
        click.echo(f"breaks {h.rule.id} [{h.rule.mode}]: `{h.words}`")
    sys.exit(2 if any(h.rule.mode == "enforce" for h in hits) else 0)
