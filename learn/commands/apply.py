"""`learn apply`: write accepted proposals into CLAUDE.md / AGENTS.md / .claude/rules, as reviewed diffs.

Nothing is written without a yes: each file's change is shown as a unified
diff and confirmed, `--yes` is for scripts, and without a terminal and without
`--yes` it refuses (a pipeline that cannot answer must not be taken as consent).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from learn.reduce.types import Proposal, Scope
from learn.report.apply import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    ApplyError,
    RuleEdit,
    budget_warnings,
    edit_for,
    plan_all,
    rule_text_for,
    write_plan,
)
from learn.report.digest import flatten
from learn.report.runs import NoRunError, record_decision, require_run
from learn.report.targets import TargetChoice, TargetKind


def _interactive() -> bool:
    return sys.stdin.isatty()


def _budget(max_lines: int | None, max_bytes: int | None) -> tuple[int, int]:
    """Flags win over the config file, which wins over the defaults."""
    if max_lines is not None and max_bytes is not None:
        return max_lines, max_bytes
    from learn.config import ConfigError, load_config

    try:
        budget = load_config().apply
    except ConfigError as exc:
        raise click.ClickException(f"invalid config: {exc}") from exc
    return (max_lines if max_lines is not None else budget.max_lines,
            max_bytes if max_bytes is not None else budget.max_bytes)


def _select(proposals: tuple[Proposal, ...], only: tuple[str, ...]) -> list[Proposal]:
    if only:
        by_key = {p.key: p for p in proposals}
        # A bare label is accepted too: it is what the digest shows first.
        by_label = {p.label: p for p in proposals}
        missing = [k for k in only if k not in by_key and k not in by_label]
        if missing:
            known = ", ".join(sorted(by_key)[:8]) or "none"
            raise click.ClickException(f"not in the last run: {', '.join(missing)} "
                                       f"(its keys: {known})")
        return [by_key.get(k) or by_label[k] for k in only]
    # Without --only, what the judge accepted; a has-skill item wants the skill
    # sharpened, not a rule next to it.
    return [p for p in proposals if p.verdict is not None and p.verdict.accepted
            and p.status != "has-skill"]


@click.command(name="apply")
@click.option("--only", multiple=True, metavar="KEY",
              help="Apply only these proposals (repeatable; KEY as shown in the digest).")
@click.option("--dismiss", multiple=True, metavar="KEY",
              help="Record KEY as dismissed (repeatable) and write nothing for it.")
@click.option("--target", "target_kind", type=click.Choice(["claude", "rules", "agents"]),
              default="claude", show_default=True,
              help="claude: CLAUDE.md of the rule's scope; rules: .claude/rules/<topic>.md; "
                   "agents: AGENTS.md.")
@click.option("--agents", is_flag=True, help="Same as --target agents.")
@click.option("--scope", type=click.Choice(["user", "project"]), default=None,
              help="Override the judged scope of every rule in this run.")
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every rule to this file instead.")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None,
              help="The project whose files to edit (default: the project each rule was said in, "
                   "else the current directory).")
@click.option("--edit", "edit_text", is_flag=True, help="Edit each rule's wording first.")
@click.option("--yes", is_flag=True, help="Write without asking (for scripts).")
@click.option("--dry-run", is_flag=True, help="Show the diffs; write nothing.")
@click.option("--since", default=None, metavar="AGE", help="Only a run recorded within AGE.")
@click.option("--max-lines", type=click.IntRange(min=1), default=None,
              help=f"Warn when a file passes this many lines (config apply.max_lines, "
                   f"default {DEFAULT_MAX_LINES}).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=None,
              help=f"Warn when a file passes this many bytes (config apply.max_bytes, "
                   f"default {DEFAULT_MAX_BYTES}).")
def command(only: tuple[str, ...], dismiss: tuple[str, ...], target_kind: str, agents: bool,
            scope: str | None, file: Path | None, project_dir: Path | None, edit_text: bool, yes: bool,
            dry_run: bool, since: str | None, max_lines: int | None,
            max_bytes: int | None) -> None:
    """Write accepted proposals from the last run into your context files, as diffs you confirm.

    Rules go into a managed section (<!-- learn:begin --> ... <!-- learn:end -->) at the
    end of the file; a restated rule is rewritten on its own line. The rest of the file
    is never touched, and the old file is backed up first.
    """
    try:
        result = require_run(since)
    except (NoRunError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    max_lines, max_bytes = _budget(max_lines, max_bytes)

    known = {p.key: p for p in result.proposals} | {p.label: p for p in result.proposals}
    for key in dismiss:
        p = known.get(key)
        if p is None:
            raise click.ClickException(f"not in the last run: {key}")
        record_decision(p.key, "dismissed", rule_text_for(p), None)
        click.echo(f"dismissed {p.key}")
    if dismiss and not only:
        return

    dismissed = {known[k].key for k in dismiss}
    if not only:
        for p in result.proposals:
            if p.status == "has-skill" and p.verdict is not None and p.verdict.accepted:
                click.echo(f"note: {p.key} is covered by the `{p.existing_rule}` skill: sharpen "
                           "its description instead (or --only it to add a rule anyway)")
    chosen = [p for p in _select(result.proposals, only) if p.key not in dismissed]
    if not chosen:
        click.echo("nothing to apply: no accepted proposals in the last run "
                   "(use --only KEY to apply one the judge declined)")
        return
    kind: TargetKind = "agents" if agents else target_kind  # type: ignore[assignment]
    scope_override: Scope | None = scope  # type: ignore[assignment]
    choice = TargetChoice(project_dir=project_dir or Path("."), kind=kind, scope=scope_override,
                          file=file, follow_quotes=project_dir is None)

    edits: list[RuleEdit] = []
    for p in chosen:
        if edit_text:
            edited = click.edit(rule_text_for(p) + "\n")
            text = flatten(edited) if edited is not None else rule_text_for(p)
            if not text:
                click.echo(f"skipped {p.key}: empty rule")
                continue
            changed = text != rule_text_for(p)
            edits.append(edit_for(p, choice, text=text, decision="edited" if changed
                                  else "accepted"))
        else:
            edits.append(edit_for(p, choice))

    try:
        plans = plan_all(edits)
    except ApplyError as exc:
        raise click.ClickException(str(exc)) from exc

    failed = False
    for plan in plans:
        for note in plan.notes:
            click.echo(f"note: {note}")
        if not plan.changed:
            continue
        click.echo(plan.diff(), nl=False)
        for warning in budget_warnings(plan, max_lines=max_lines, max_bytes=max_bytes):
            click.echo(f"warning: {warning}", err=True)
        if dry_run:
            continue
        if not yes:
            if not _interactive():
                click.echo("refusing to write without confirmation: not a terminal. Re-run with "
                           "--yes to write, or --dry-run to only look.", err=True)
                sys.exit(2)
            n = len(plan.applied)
            if not click.confirm(f"Write {n} rule{'s' if n != 1 else ''} to {plan.path}?",
                                 default=False):
                click.echo(f"skipped {plan.path}")
                continue
        try:
            backup = write_plan(plan)
        except ApplyError as exc:
            click.echo(f"error: {exc}", err=True)
            failed = True
            continue
        except OSError as exc:
            click.echo(f"error: could not write {plan.path}: {exc}; the original is unchanged",
                       err=True)
            failed = True
            continue
        for e in plan.applied:
            record_decision(e.key, e.decision, e.text, str(plan.path))
        saved = f" (backup: {backup})" if backup else ""
        click.echo(f"wrote {plan.path}{saved}")
    if failed:
        sys.exit(1)
