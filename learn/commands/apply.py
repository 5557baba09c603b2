"""`learn apply`: write accepted proposals into CLAUDE.md / AGENTS.md / .claude/rules, and the
other agents' files the project uses (GEMINI.md, Copilot's, Cursor's, Windsurf's, Kiro's), as
reviewed diffs.

Nothing is written without a yes: each file's change is shown as a unified
diff and confirmed, `--yes` is for scripts, and without a terminal and without
`--yes` it refuses (a pipeline that cannot answer must not be taken as consent).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from learn.commands import apply_writes
from learn.commands.apply_agents import ForAgents
from learn.commands.apply_applied import still_to_apply
from learn.commands.apply_checks import plan_checks
from learn.commands.apply_lock import after_runs, settled
from learn.commands.apply_recover import (
    Landed,
    interrupted,
    record_settled,
    release,
    say_finishing,
)
from learn.commands.apply_resume import (
    BATCH_FILES,
    batch_for,
    say_resuming,
    stopped_apply,
    writes_of,
)
from learn.commands.apply_undo import undo_last
from learn.commands.apply_writes import (
    Consent,
    Intent,
    Journaled,
    intend,
    new_batch,
    show,
    write_confirmed,
)
from learn.projects import checkout_folder, project_here, write_roots
from learn.records.proposal import Proposal, Scope
from learn.report.agent_targets import ORDER as AGENT_ORDER
from learn.report.apply import budget_warnings, edit_for, plan_all, rule_text_for
from learn.report.check_install import CheckError
from learn.report.edits import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    ApplyError,
    FilePlan,
    RuleEdit,
    decode_text,
    read_bytes,
    sha256,
)
from learn.report.grounded import unsaid_note
from learn.report.runs import (
    Decision,
    NoRunError,
    load_proposals,
    record_decision,
)
from learn.report.targets import (
    TargetChoice,
    TargetError,
    TargetKind,
    form_for,
    loaded_elsewhere,
    old_line_stays,
    scope_for,
)
from learn.report.words import flatten
from learn.store.proposals import REOFFER_FACTOR
from learn.visible import visible


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


def _select(proposals: tuple[Proposal, ...], only: tuple[str, ...],
            every: tuple[Proposal, ...], where: str) -> list[Proposal]:
    if only:
        # --only may name a proposal in any state (the judge declined it, it was
        # declined or applied before): the person asked for it by name.
        pool = (*proposals, *every)
        by_key = {p.key: p for p in reversed(pool)}
        # A bare label is accepted too: it is what the digest shows first.
        by_label = {p.label: p for p in reversed(pool)}
        missing = [k for k in only if k not in by_key and k not in by_label]
        if missing:
            known = ", ".join(sorted({p.key for p in proposals})[:8]) or "none"
            # A KEY that names no proposal is a usage error (exit 2), as a --project
            # folder that does not exist is.
            raise click.UsageError(f"not a proposal of {where}: {', '.join(missing)} "
                                   f"(pending here: {known}; `learn digest --all` lists "
                                   "every state, `--project DIR` picks another project)")
        return [by_key.get(k) or by_label[k] for k in only]
    # Without --only, what the judge accepted; a has-skill item wants the skill
    # sharpened, not a rule next to it.
    # An offline run's proposals were never judged: pending all the same.
    return [p for p in proposals if (p.verdict is None or p.verdict.accepted)
            and p.status != "has-skill"]


def here_project(project_dir: Path | None) -> str:
    """The project `apply` works for: the one named, else the current directory's
    (learn.projects: the repository, whichever of its checkouts this is). A folder
    that does not exist is a usage error, as for `learn run --project`."""
    from learn.commands._scope import existing_project
    from learn.index.known import named_project

    existing_project(project_dir)
    return named_project(project_dir)


SKIPPED = "skipped"
# What apply says it waits for when a `learn run` is storing (learn.lock.between_runs).
READING = "reading the proposals it stores"


def _resolve(p: Proposal, choice: TargetChoice, *, ask: bool, edit_text: str | None = None,
             decision: Decision = "accepted") -> RuleEdit | str:
    """The edit for `p`; when it has no single home, ask on a terminal, else say the
    choices and refuse (the reason). SKIPPED when the person chose to skip it."""
    try:
        return edit_for(p, choice, text=edit_text, decision=decision)
    except TargetError as exc:
        if not ask or not exc.choices:
            click.echo(f"refused {p.key}: {exc}", err=True)
            return str(exc)
        click.echo(f"{p.key}: {exc}")
        for i, path in enumerate(exc.choices, 1):
            click.echo(f"  {i}. {path}")
        n = click.prompt("Which project (0 to skip)?", type=click.IntRange(0, len(exc.choices)),
                         default=0)
        if n == 0:
            click.echo(f"skipped {p.key}")
            return SKIPPED
        chosen = replace(choice, project_dir=exc.choices[n - 1], follow_quotes=False)
        return edit_for(p, chosen, text=edit_text, decision=decision)


def undo_hint() -> str:
    """How what an apply wrote is put back, said beside each file it wrote. A caller
    that applies with a store of its own says its own way (`learn demo --apply`: the
    person's `learn apply --undo` finds nothing of the demo's on record) through the
    click context's `obj`, `{"undo_hint": ...}`."""
    return _said_by_caller("undo_hint", "`learn apply --undo` puts it back")


def states_hint() -> str:
    """Where every proposal's state is read, said when nothing is left to apply. The
    demo's store is its own, which the person's `learn digest --all` does not read: the
    demo says its own way, as for `undo_hint`, under `{"states_hint": ...}`."""
    return _said_by_caller("states_hint", "`learn digest --all` lists every state; --only KEY "
                                          "applies one the judge declined")


def _said_by_caller(name: str, default: str) -> str:
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    hint = obj.get(name) if isinstance(obj, dict) else None
    return hint if isinstance(hint, str) else default


@click.command(name="apply")
@click.option("--only", multiple=True, metavar="KEY",
              help="Apply only these proposals (repeatable; KEY as shown in the digest).")
@click.option("--prune", multiple=True, metavar="KEY",
              help="Remove a rule learn wrote (repeatable), shown as a diff first.")
@click.option("--dismiss", multiple=True, metavar="KEY",
              help="Same as `learn decline KEY` (repeatable): not proposed again until said "
                   "in twice as many sessions as when declined.")
@click.option("--undo", is_flag=True,
              help="Put back every file the last `learn apply` or `learn check` wrote (from "
                   "its backups), shown as diffs first; its proposals are pending again.")
@click.option("--target", "target_kind", type=click.Choice(["claude", "rules", "agents"]),
              default="claude", show_default=True,
              help="claude: CLAUDE.md of the rule's scope; rules: .claude/rules/<topic>.md; "
                   "agents: AGENTS.md.")
@click.option("--agents", is_flag=True, help="Same as --target agents.")
@click.option("--scope", type=click.Choice(["user", "project"]), default=None,
              help="Override the judged scope of every rule.")
@click.option("--file", "file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every rule to this instruction file instead (a CLAUDE.md, AGENTS.md "
                   "or .claude/rules/*.md of the project or of ~/.claude, ~/.codex).")
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None,
              help="The project whose pending proposals to apply, and whose files to edit "
                   "(default: the current directory's project; each rule then goes to the "
                   "project it was said in).")
@click.option("--agent", "agent_names", multiple=True, type=click.Choice(AGENT_ORDER),
              help="Write for these agents, each in the file it reads (repeatable; default: every "
                   "agent the project uses: with sessions learn read there, or with its own "
                   "instruction files there).")
@click.option("--edit", "edit_text", is_flag=True, help="Edit each rule's wording first.")
@click.option("--yes", is_flag=True, help="Write without asking (for scripts).")
@click.option("--dry-run", is_flag=True,
              help="Show the diffs and a confirmation token; write nothing.")
@click.option("--confirm", "confirm", default=None, metavar="TOKEN",
              help="Write exactly the changes a --dry-run showed with this token (nothing if "
                   "they changed since).")
@click.option("--since", default=None, metavar="AGE",
              help="Only proposals made within AGE (7d, 12h, 2w or a date).")
@click.option("--max-lines", type=click.IntRange(min=1), default=None,
              help=f"Warn when a file passes this many lines (config apply.max_lines, "
                   f"default {DEFAULT_MAX_LINES}).")
@click.option("--max-bytes", type=click.IntRange(min=1), default=None,
              help=f"Warn when a file passes this many bytes (config apply.max_bytes, "
                   f"default {DEFAULT_MAX_BYTES}).")
def command(only: tuple[str, ...], prune: tuple[str, ...], dismiss: tuple[str, ...], undo: bool,
            target_kind: str, agents: bool, agent_names: tuple[str, ...],
            scope: str | None, file: Path | None, project_dir: Path | None, edit_text: bool, yes: bool,
            dry_run: bool, confirm: str | None, since: str | None, max_lines: int | None,
            max_bytes: int | None) -> None:
    """Write this project's pending proposals into your instruction files, as diffs you confirm.

    Pending: proposed by any earlier run and not yet applied or declined. Rules go
    into a managed section (<!-- learn:begin --> ... <!-- learn:end -->) at the end of
    the file; a restated rule is rewritten on its own line; work you ask for by name
    becomes a command file (.claude/commands/<name>.md). Each agent the project uses
    gets the rule in the file it reads (GEMINI.md, .github/copilot-instructions.md,
    .cursor/rules, .windsurf/rules, .kiro/steering; see --agent). learn writes only
    instruction files (CLAUDE.md, AGENTS.md, .claude/rules, commands and settings, Codex
    rules, the other agents' rule files) in the project or the agents' homes. Every diff
    is shown before anything is written; the old file is backed up first; `--undo` puts
    back what the last apply (or `learn check`) wrote.
    """
    from learn.commands._scope import since_time

    consent = Consent(yes=yes, dry_run=dry_run, confirm=confirm)
    since_at = since_time(since)
    if file is not None:
        # As typed (`--file CLAUDE.md`) the path is relative, and planning refuses any
        # destination that is not absolute. absolute(), not resolve(): confinement must
        # still see a symlink to follow it and check where it leads.
        file = file.expanduser().absolute()
    # What a killed apply left pending decided first from the files, before this one plans
    # from them; the apply lock is held again only to write (write_confirmed), never while
    # the person reads the diffs (one_apply). An undo reads the journal under it itself.
    if undo:
        if not undo_last(consent=consent):
            sys.exit(1)
        return
    # Settled and read with no run storing (learn.lock.between_runs). Beside a run held
    # between its two store writes, apply wrote and recorded the offline run's
    # dont-mock-database-tests; the run then stored the same point, judged, as
    # real-database-in-tests, pending: the rule just written was offered again.
    settled(store=READING)
    here = here_project(project_dir)
    if prune:
        if not prune_keys(prune, here, consent=consent):
            sys.exit(1)
        return
    with after_runs(READING):
        stored = _stored(here, only, dismiss, since_at, since, project_dir,
                         placed=_names_a_place(file, agent_names, agents, scope))
    if stored is None:
        return
    only, every, pending = stored
    max_lines, max_bytes = _budget(max_lines, max_bytes)

    if dismiss:
        decline_keys(dismiss, here)
        if not only:
            return

    if not only:
        for p in pending:
            if p.status == "has-skill" and (p.verdict is None or p.verdict.accepted):
                click.echo(visible(f"note: {p.key} is covered by the `{p.existing_rule}` skill: "
                                   "sharpen its description instead (or --only it to add a "
                                   "rule anyway)"))
    chosen = _select(pending, only, every, here)
    # learn's check: a data file and a hook, not a line (learn.commands.apply_checks).
    offers = [p for p in chosen if p.surface == "check"]
    checks = plan_checks(offers, here, str(checkout_folder(project_dir or Path.cwd()))) \
        if offers else None
    chosen = [p for p in chosen if p.surface != "check"]
    held = interrupted({p.key for p in chosen})
    if not chosen and not offers:
        click.echo(f"nothing to apply: no pending accepted proposals for {here} "
                   f"({states_hint()})")
        return
    kind: TargetKind = "agents" if agents else target_kind  # type: ignore[assignment]
    scope_override: Scope | None = scope  # type: ignore[assignment]
    choice = TargetChoice(project_dir=project_dir or Path.cwd(), kind=kind, scope=scope_override,
                          file=file, follow_quotes=project_dir is None, project=here,
                          kind_named=_names_a_place(None, (), agents, None))
    ask = apply_writes.interactive() and not yes and confirm is None
    for_agents = ForAgents(choice, agent_names)

    edits: list[RuleEdit] = []
    by_key = {p.key: p for p in chosen}
    refused = False
    resolved: set[str] = set()  # the keys this apply has an edit for (none refused)
    for p in chosen:
        if edit_text:
            before = editable_text(p)
            edited = click.edit(before + "\n")
            text = (edited.strip() if form_for(p) == "command" else flatten(edited)) \
                if edited is not None else before
            if not text:
                click.echo(f"skipped {p.key}: empty rule")
                continue
            changed = text != before
            edit = _resolve(p, choice, ask=ask, edit_text=text if changed else None,
                            decision="edited" if changed else "accepted")
        else:
            edit = _resolve(p, choice, ask=ask)
        if isinstance(edit, str):
            refused = refused or edit != SKIPPED
            continue
        resolved.add(p.key)
        if edit.replace_line is None and (stays := old_line_stays(p, choice)) is not None:
            # A line in a file learn does not write (one CLAUDE.md @imports): evidence,
            # never rewritten; the person is told, or the agent reads both.
            # The line is the file's (a cloned repository's): shown as it reads.
            click.echo(visible(f'note: {p.key}: the old line "{flatten(p.existing_rule or "", 100)}" '
                               f"stays in {stays} (a file learn does not write): delete or edit "
                               "it by hand"))
        elif edit.replace_line is None and (there := loaded_elsewhere(p, choice)) is not None:
            # Another project's file (its agent reads it, this one's does not): that
            # project's rule, never rewritten from here; the person is told it is there.
            click.echo(visible(f'note: {p.key}: "{flatten(p.existing_rule or "", 100)}" is '
                               f"written in {there}, another project's file, which is left "
                               f"as it is; the rule goes to {edit.target}"))
        if (unsaid := unsaid_note(p, edit)) is not None:
            click.echo(visible(f"note: {unsaid}"))
        others = for_agents.edits(p, edit)
        if for_agents.keeps_main(edit):
            edits.append(edit)
        edits += others

    # The folder apply runs for may hold the files too (a named --file, a rule found there).
    plans = plan_all(edits, projects=[checkout_folder(choice.project_dir)])
    for plan in plans:
        plan.notes.extend(_checkout_notes(plan))
    say_finishing(held, plans)
    # An apply stopped before its last file, finished by this one: one apply for --undo.
    resuming = say_resuming(stopped_apply(), {(str(p.path), e.key) for p in plans
                                              if p.changed and p.refused is None
                                              for e in p.applied})
    plans += checks.plans if checks is not None else []

    def preview(plan: FilePlan) -> None:
        _health(plan, here, max_lines=max_lines, max_bytes=max_bytes, agents=for_agents.used)
        for warning in budget_warnings(plan, max_lines=max_lines, max_bytes=max_bytes):
            click.echo(f"warning: {warning}", err=True)

    shown = show(plans, preview)
    batch = new_batch()
    # key -> the files the person confirmed it for (writing): its decision is recorded once
    # they are all written, and held in the journal till then (learn.commands.apply_recover).
    planned: dict[str, set[str]] = {}
    # key -> what this apply wrote it to so far: the file, its backup, the decision.
    landed: dict[str, list[Landed]] = {}
    # The keys whose decision is recorded (with what an interrupted apply held of them).
    released: set[str] = set()
    # Every file of the batch the person confirmed, journaled with each decision: an apply
    # stopped before its last is finished by the next, as one (learn.commands.apply_resume).
    whole: dict[str, list[str]] = {}  # file -> the keys planned for it

    def writing(confirmed: Sequence[FilePlan]) -> None:
        nonlocal batch
        for plan in confirmed:
            if checks is not None and checks.owns(plan):
                continue
            whole[str(plan.path)] = sorted(e.key for e in plan.applied)
            for e in plan.applied:
                planned.setdefault(e.key, set()).add(str(plan.path))
        # Under the apply lock, before the first write: the batch every row is journaled in.
        batch = batch_for(batch, writes_of(whole), said=resuming)

    def written(plan: FilePlan, backup: Path | None) -> Intent:
        # Before the file is written: journaled pending, with its decisions; a crash
        # before it is settled is decided from the file (learn.commands.apply_recover).
        if checks is not None and checks.owns(plan):
            # A check's files are journaled as such: `--undo` puts them back together or
            # not at all (learn.report.undo), the install record with them.
            row = intend(batch, "check", plan, backup, here, checks.keys())

            def installed() -> None:
                assert checks is not None
                # The install record, journaled in this batch as its other files are. Not
                # written, the check's other files are put back and nothing is recorded
                # (apply_writes._write_whole): a hook with no install record is one
                # `learn check remove` cannot find.
                try:
                    checks.written(plan, Journaled(batch, "check", here))
                except CheckError as exc:
                    raise ApplyError(
                        f"learn's check is not installed, and {', '.join(checks.keys())} is "
                        f"not recorded as applied: its install record was not written ({exc})"
                    ) from exc
                if all(p.path in checks.done for p in checks.plans):
                    # Said once the whole check is in place, its record with it.
                    for p in checks.ordered():
                        click.echo(f"wrote {p.path} ({undo_hint()})")

            return Intent((row,), installed)
        decisions: list[dict[str, Any]] = [
            {"key": e.key, "decision": e.decision, "text": e.text, "form": e.form,
             "project": project_here(e.project) if e.project is not None else here,
             "every_project": e.project is None and choice.file is None
             and scope_for(by_key[e.key], choice) == "user",
             "files": sorted(planned.get(e.key, {str(plan.path)})),
             BATCH_FILES: whole} for e in plan.applied]
        row = intend(batch, "apply", plan, backup,
                     project_here(plan.applied[0].project) if plan.applied
                     and plan.applied[0].project else here, [e.key for e in plan.applied],
                     decisions)

        def decide() -> None:
            # A rule is applied once every file it was confirmed for holds it. Recorded
            # with its first file, a rule of an apply stopped before the others (killed,
            # Ctrl-C, a write that failed) was applied, so no later apply (which plans only
            # pending ones) wrote them. Until the last, the decision waits in the journal
            # row of each file written, and the proposal stays pending.
            for d in decisions:
                key = d["key"]
                mine = landed.setdefault(key, [])
                mine.append((str(plan.path), str(backup) if backup else None, d))
                if not set(d["files"]) <= {path for path, _, _ in mine}:
                    continue
                # With what an earlier apply stopped before finishing it wrote of it.
                released.add(key)
                _record(by_key[key], release(key, d["files"], mine))

        saved = f" (backup: {backup})" if backup else ""
        return Intent((row,), lambda: click.echo(
            f"wrote {plan.path}{saved} ({undo_hint()})"), decide)

    def what(plan: FilePlan) -> str:
        if checks is not None and checks.owns(plan):
            return "Write learn's check to"
        n = len(plan.applied)
        noun = "command" if plan.applied and plan.applied[0].form == "command" else "rule"
        return f"Write {n} {noun}{'s' if n != 1 else ''} to"

    # The decisions are recorded as the files are written, with no run storing meanwhile
    # (one_apply's store): a run that was reading the states they change waits for them.
    wrote = write_confirmed(plans, consent, written, what=what, whole=checks, writing=writing,
                            store=True)
    if not consent.dry_run:
        with after_runs("recording the decisions of an interrupted apply"):
            record_settled(held, plans, edits, {k: by_key[k] for k in resolved},
                           released | set(planned), _record)
    if refused or not shown or not wrote or (offers and checks is None):
        sys.exit(1)


def _stored(here: str, only: tuple[str, ...], dismiss: tuple[str, ...],
            since_at: datetime | None, since: str | None, project_dir: Path | None, *,
            placed: bool) -> tuple[tuple[str, ...], tuple[Proposal, ...],
                                   tuple[Proposal, ...]] | None:
    """What apply works from: the KEYs of --only still to apply, every proposal of `here`
    in any state (with --only) and the pending ones; None when there is nothing to do
    (said)."""
    from learn.commands._scope import NothingToShow, stored_proposals

    every: tuple[Proposal, ...] = ()
    if only:
        everything = load_proposals(None, here, every_state=True)
        every = everything.proposals if everything is not None else ()
        if not placed:
            # A KEY already applied (and still in its file) is said and not written
            # again (learn.commands.apply_applied); the rest are planned. With a place
            # named, it is planned there: a file that holds it is left as it is.
            states = everything.extra.get("states", {}) if everything is not None else {}
            only = still_to_apply(only, every, states, here)
            if not only and not dismiss:
                return None
    try:
        pending = stored_proposals(here, since_at, since, folder=project_dir).proposals
    except NothingToShow as exc:
        if not (only or dismiss):
            click.echo(f"nothing to apply: {exc}")
            return None
        named = {p.key for p in every} | {p.label for p in every}
        if dismiss or any(k not in named for k in only):  # a KEY names nothing here
            raise click.UsageError(f"not a proposal of {here}: "
                                   f"{', '.join((*only, *dismiss))}; {exc}") from exc
        # Nothing pending, but each KEY names a proposal of another state here (declined,
        # or applied and since pruned): --only asks for it by name.
        pending = ()
    except NoRunError as exc:
        raise click.ClickException(str(exc)) from exc
    return only, every, pending


def _names_a_place(file: Path | None, agent_names: tuple[str, ...], agents: bool,
                   scope: str | None) -> bool:
    """Whether the command line says where to write (--file, --agent, --agents, --target,
    --scope): an applied rule asked for by name is then written there too."""
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    target = ctx.get_parameter_source("target_kind") if ctx is not None else None
    return (file is not None or bool(agent_names) or agents or scope is not None
            or target not in (None, ParameterSource.DEFAULT))


def _record(p: Proposal, done: Sequence[Landed]) -> None:
    """The decisions `done` of rule `p` recorded: applied in each file (learn.report.runs)."""
    for path, kept, held in done:
        record_decision(p.key, held["decision"], held["text"], path, project=held["project"],
                        proposal=p, backup=kept, form=held["form"],
                        every_project=held["every_project"])


def _checkout_notes(plan: FilePlan) -> list[str]:
    """Which checkout of its repository a file is in, when that is a worktree: the
    rule reaches the repository's other checkouts when the worktree's branch is
    merged (learn.projects: one project, many checkouts)."""
    out: list[str] = []
    for folder in sorted({e.project for e in plan.applied if e.project is not None}):
        if linked_worktree(folder):
            out.append(f"{plan.path} is in the worktree {folder} of {project_here(folder)}: "
                       "the rules reach the other checkouts when its branch is merged")
    return out


def linked_worktree(folder: Path) -> bool:
    """Whether `folder` is in a linked worktree of its repository (its `.git` a file
    naming a git dir with a `commondir`: learn.projects.checkout), not the main checkout.

    Asked of the checkout itself: the project's key compared with the folder's path said
    every main checkout whose key is not its spelling was a worktree (on WSL a drive's
    key is `c:\\users\\me\\proj` for `/mnt/c/Users/Me/Proj`, on macOS keys are
    case-folded: an audit of 2026-12 saw the note on every apply there)."""
    from learn.projects import Known, path_key

    found = Known().checkout(path_key(str(folder)))
    return found is not None and found.is_worktree


def editable_text(p: Proposal) -> str:
    """What `--edit` opens: a command's body, else the rule line."""
    if form_for(p) == "command":
        return p.command_body or ""
    return rule_text_for(p)


def _health(plan: FilePlan, here: str, *, max_lines: int, max_bytes: int,
            agents: Iterable[str] = ()) -> None:
    """The preview's size line, and when the file is over its budget, learn's rules in it
    whose correction has not been said for months (learn.report.health)."""
    from learn.report.agent_targets import shared_line
    from learn.report.health import budget_line, over_budget, stale_rules

    if plan.applied and plan.applied[0].form in ("command", "permission", "codex-rule"):
        return
    if (shared := shared_line(plan.path, agents)) is not None:
        click.echo(shared)
    click.echo(f"size: {budget_line(plan.path, plan.new_text, max_lines=max_lines, max_bytes=max_bytes)}")
    if not over_budget(plan.path, plan.new_text, max_lines=max_lines, max_bytes=max_bytes):
        return
    with after_runs("reading when each rule was last said"):
        everything = load_proposals(None, here, every_state=True)
    last = {p.key: p.last_seen for p in (everything.proposals if everything else ())
            if p.last_seen}
    adding = {e.key for e in plan.applied}  # never offer to prune what is being added
    for stale in (x for x in stale_rules(plan.new_text, last_said=last) if x.key not in adding):
        click.echo(f"prune? `{stale.key}` not said since {stale.last} and the file is over its "
                   f"budget: `learn apply --prune {stale.key}` removes it")


def prune_keys(keys: tuple[str, ...], here: str, *, consent: Consent) -> bool:
    """Remove learn's lines for `keys` from the files they were written to, as diffs.

    What was applied is read, and the prune written, with no `learn run` storing meanwhile
    (after_runs, and write_confirmed's `store`), as an apply reads and writes: a prune held
    a run off only in the settle before it (apply's `settled`), so a run started after it,
    or while the person read the diff, stored beside the read and the write
    (tests/test_prune_waits_for_run.py)."""
    from learn.report.health import without_rules
    from learn.store import open_store

    with after_runs(READING), open_store() as store:
        applied = [a for k in keys for a in store.proposals.applied(key=k, project=here)]
    files = {a.target_file: a.project for a in applied}
    plans: list[FilePlan] = []
    ok = True
    for name in sorted(files):
        path = Path(name)
        # The hash is of the bytes on disk, which the write checks again: a text-mode read
        # turns CRLF into LF, and every prune of a CRLF file was refused as changed since.
        try:
            data = read_bytes(path)
            original = decode_text(path, data)
        except (OSError, ApplyError) as exc:
            click.echo(f"error: cannot read {path}: {exc}", err=True)
            ok = False
            continue
        if data is None or original is None:
            click.echo(f"error: cannot read {path}: no such file", err=True)
            ok = False
            continue
        plans.append(FilePlan(path=path, original=original, original_hash=sha256(data),
                              new_text=without_rules(original, set(keys)),
                              projects=(*write_roots(files[name], path), here)))
    if not files:
        click.echo(f"nothing to prune: learn wrote none of {', '.join(keys)} here", err=True)
        return False
    shown = show(plans)
    batch = new_batch()

    def pruned(plan: FilePlan, backup: Path | None) -> Intent:
        row = intend(batch, "prune", plan, backup, files.get(str(plan.path), here), list(keys))
        return Intent((row,), lambda: click.echo(f"pruned {plan.path}"))

    wrote = write_confirmed(plans, consent, pruned, what=lambda p: "Remove from", store=True)
    return ok and shown and wrote


def decline_keys(keys: tuple[str, ...], here: str) -> None:
    """Record each KEY declined in project `here`; it is not proposed there again until
    its evidence doubles (learn.store.proposals.REOFFER_FACTOR). Read and recorded with no
    run storing meanwhile (after_runs): a run in progress is waited for, and past the wait
    nothing is declined and the command says so, rather than a decline recorded between the
    run's reading the states and storing its own."""
    with after_runs(f"declining {', '.join(keys)}"):
        _decline(keys, here)


def _decline(keys: tuple[str, ...], here: str) -> None:
    everything = load_proposals(None, here, every_state=True)
    pool = everything.proposals if everything is not None else ()
    known = {p.key: p for p in pool} | {p.label: p for p in pool}
    missing = [k for k in keys if k not in known]
    if missing:
        raise click.UsageError(f"not a proposal of {here}: {', '.join(missing)} "
                               "(`learn digest --all` lists them)")
    for key in keys:
        p = known[key]
        user_wide = p.verdict is not None and p.verdict.scope == "user"
        record_decision(p.key, "dismissed", rule_text_for(p), None, project=here, proposal=p,
                        every_project=user_wide)
        where = "every project (a user-scope rule)" if user_wide else here
        click.echo(f"declined {p.key} in {where}: not proposed again unless said in at least "
                   f"{REOFFER_FACTOR}x as many sessions ({REOFFER_FACTOR * max(1, p.sessions)})")
