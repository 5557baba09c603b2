"""How `learn apply` writes: every diff shown before anything is written, then each file
confirmed, recorded for `--undo`, and `--undo` itself.

The person confirms every write, one of four ways:
- at a terminal, a yes per file, after all the diffs were shown;
- `--dry-run` shows the diffs and a confirmation token; `--confirm TOKEN` then writes
  exactly those changes and nothing else (the token is a hash of the planned
  files' before-hashes and new text: a file or a proposal that changed since makes
  it fail). This is how `/learn` writes inside Claude Code: the person sees the
  diffs there and says yes; Claude Code asks once more before running it;
- `--yes`, for scripts;
- neither, and not at a terminal: nothing is written.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import click

from learn.report.apply import put_back, write_plan
from learn.report.edits import ApplyError, FilePlan, confirmation_token, sha256

Written = Callable[[FilePlan, Path | None], None]


class Whole(Protocol):
    """Plans written whole or not at all: learn's check is its data file and the hooks
    that run it (learn.commands.apply_checks). A hook written without its data file ran
    a check of nothing, with no install record for `learn check remove` to find it by."""

    def owns(self, plan: FilePlan) -> bool:
        """Whether `plan` is one of them."""

    def asked(self) -> Sequence[FilePlan]:
        """The order the person is asked in: after a no, nothing more is asked."""

    def ordered(self) -> Sequence[FilePlan]:
        """The order they are written in: what does nothing alone first (the data file),
        what makes it run last (the hooks)."""

    def not_written(self, missing: Sequence[Path], put_back: Sequence[Path]) -> str:
        """What to tell the person when `missing` were not written (`put_back`: the ones
        written before and put back as they were)."""


@dataclass(frozen=True, slots=True)
class Consent:
    yes: bool = False
    dry_run: bool = False
    confirm: str | None = None  # the token `--dry-run` printed

    def words(self) -> str:
        return "--yes" if self.yes else f"--confirm {self.confirm}" if self.confirm else ""


def interactive() -> bool:
    return sys.stdin.isatty()


def asked(yes: bool, question: str) -> bool:
    """Consent to the changes just shown: `--yes`, else a yes at a terminal. Not at a
    terminal and without `--yes`, nothing is written (exit 2): a pipeline that cannot
    answer is never taken as consent (`learn check`, `install-claude-command --hooks`)."""
    if yes:
        return True
    if not _ask_here():
        click.echo("refusing to write without confirmation: not a terminal. Re-run with --yes "
                   "to write the changes above.", err=True)
        sys.exit(2)
    return click.confirm(question, default=False)


def _ask_here() -> bool:
    # Looked up at call time: a test (or a caller) replaces `interactive`.
    return interactive()


def new_batch() -> str:
    return uuid.uuid4().hex[:16]


def journal_write(batch: str, action: str, plan: FilePlan, backup: Path | None,
                  project: str | None, keys: Sequence[str]) -> None:
    """Record one write in the store (learn.store.apply_journal) for `learn apply --undo`.
    The file is written by then: a store that cannot record it costs the undo, not the
    write, and the backup is named instead.

    The hash recorded is of the bytes learn wrote, not of the file read again: an editor
    saving between the rename and this row was recorded as learn's own text, and the
    undo then put the backup over the person's save without a word (a write-path audit
    reproduced it). Now the undo sees a file changed since learn wrote it, and refuses."""
    from learn.store import StoreError, open_store

    after = "" if plan.remove else sha256(plan.new_text.encode("utf-8"))
    try:
        with open_store() as store:
            store.journal.record(batch=batch, action=action, project=project,
                                 path=str(plan.path), before_hash=plan.original_hash,
                                 after_hash=after,
                                 backup_file=str(backup) if backup else None, keys=keys,
                                 made_folders=[str(d) for d in plan.made])
    except (StoreError, OSError) as exc:
        saved = f"; what it held is in {backup}" if backup else ""
        click.echo(f"warning: {plan.path} was written but not recorded for `--undo` ({exc})"
                   f"{saved}", err=True)


def show(plans: Sequence[FilePlan], extra: Callable[[FilePlan], None] | None = None) -> bool:
    """Print every plan's notes and diff (refusals to stderr); False when one was refused."""
    ok = True
    for plan in plans:
        if plan.refused:
            click.echo(f"refused: {plan.refused}", err=True)
            ok = False
            continue
        for note in plan.notes:
            click.echo(f"note: {note}")
        if plan.changed:
            click.echo(plan.diff(), nl=False)
            if extra is not None:
                extra(plan)
    return ok


def write_confirmed(plans: Sequence[FilePlan], consent: Consent, on_written: Written, *,
                    what: Callable[[FilePlan], str], whole: Whole | None = None) -> bool:
    """Write the changed plans the person confirmed (see the module doc), after `show`
    printed them; `on_written` records each. False when something was not written
    that should have been (a refusal, a failed write, a stale token). `whole`: plans
    written all or none (_write_whole), at the place of the first of them."""
    todo = [p for p in plans if p.changed and not p.refused]
    if not todo:
        return True
    token = confirmation_token(plans)
    if consent.dry_run:
        click.echo(f"confirm: {token} (the same command with `--confirm {token}` writes exactly "
                   "the changes above, and nothing if they differ by then)")
        return True
    if consent.confirm is not None and consent.confirm != token:
        click.echo(f"refusing to write: the changes now planned (token {token}) are not the ones "
                   f"confirmed ({consent.confirm}); a file or a proposal changed since. Nothing "
                   "was written. Run with --dry-run again to see the new diffs.", err=True)
        sys.exit(2)
    asked = not consent.yes and consent.confirm is None
    if asked and not _ask_here():
        click.echo("refusing to write without confirmation: not a terminal. Look with --dry-run, "
                   "then write exactly what it showed with --confirm TOKEN (or --yes in a "
                   "script).", err=True)
        sys.exit(2)
    ok = True
    together = [p for p in todo if whole is not None and whole.owns(p)]
    for plan in todo:
        if whole is not None and together and plan is together[0]:
            ok = _write_whole(whole, together, asked, what, on_written) and ok
            continue
        if any(plan is p for p in together):
            continue
        if asked and not click.confirm(f"{what(plan)} {plan.path}?", default=False):
            click.echo(f"skipped {plan.path}")
            continue
        backup = _written(plan)
        if backup is False:
            ok = False
            continue
        on_written(plan, backup)
    return ok


def _written(plan: FilePlan) -> Path | Literal[False] | None:
    """`plan` written: its backup (None: there was no file); False, said why, when not."""
    try:
        return write_plan(plan)
    except ApplyError as exc:
        click.echo(f"error: {exc}", err=True)
    except OSError as exc:
        click.echo(f"error: could not write {plan.path}: {exc}; the original is unchanged",
                   err=True)
    return False


def _write_whole(whole: Whole, todo: Sequence[FilePlan], asked: bool,
                 what: Callable[[FilePlan], str], on_written: Written) -> bool:
    """`todo` (the plans of `whole` to write) written all or none: each asked first (in
    `whole.asked()` order; after a no, the rest are not asked and nothing is written),
    then written in `whole.ordered()` order. When one fails, the ones written before it
    are put back as they were, and none is recorded. False when one failed."""
    mine = [p for p in whole.asked() if any(p is t for t in todo)]
    for i, plan in enumerate(mine):
        if asked and not click.confirm(f"{what(plan)} {plan.path}?", default=False):
            click.echo(f"skipped {plan.path}")
            why = whole.not_written([p.path for p in mine[:i + 1]], [])
            for rest in mine[i + 1:]:
                click.echo(f"not writing {rest.path}: {why}", err=True)
            if i + 1 == len(mine):
                click.echo(why, err=True)
            return True
    order = [p for p in whole.ordered() if any(p is t for t in todo)]
    done: list[tuple[FilePlan, Path | None]] = []
    for i, plan in enumerate(order):
        backup = _written(plan)
        if backup is False:
            restored = _put_back(done)
            click.echo(whole.not_written([p.path for p in order[i:]], restored), err=True)
            return False
        done.append((plan, backup))
    for plan, backup in done:
        on_written(plan, backup)
    return True


def _put_back(done: Sequence[tuple[FilePlan, Path | None]]) -> list[Path]:
    """Each written plan of `done` put back as it was, newest first; the ones put back."""
    out: list[Path] = []
    for plan, backup in reversed(done):
        try:
            put_back(plan, backup)
        except (ApplyError, OSError) as exc:
            kept = f"; what it held is in {backup}" if backup else ""
            click.echo(f"warning: {plan.path} could not be put back ({exc}){kept}", err=True)
            continue
        out.append(plan.path)
    return out


def undo_last(*, consent: Consent) -> bool:
    """Put back every file the newest `learn apply` (or `--prune`, or `learn check`) wrote,
    as diffs confirmed like any write; its proposals are pending again. A check's files
    are put back whole or not at all (learn.report.undo.CheckUndo). False when something
    on record was not put back (refused, declined, failed); True when it all was, and
    when nothing is on record: nothing to do is not a failure (exit 0, docs/usage.md)."""
    from learn.report.undo import check_undo, drop_made, undo_plans
    from learn.store import open_store

    with open_store() as store:
        writes = store.journal.last_batch()
    if not writes:
        click.echo("nothing to undo: no `learn apply` or `learn check` write is on record (or "
                   "every one was undone)", err=True)
        return True
    undos = undo_plans(writes)
    by_plan = {id(u.plan): u for u in undos}
    plans = [u.plan for u in undos]
    what = "check" if all(w.action == "check" for w in writes) else "apply"
    click.echo(f"undo the {what} of {writes[0].written_at[:19]}: {len(writes)} file(s)")
    shown = show(plans)
    batch = new_batch()

    def undone(plan: FilePlan, backup: Path | None) -> None:
        u = by_plan[id(plan)]
        journal_write(batch, "undo", plan, backup, u.project, u.keys)
        with open_store() as store:
            # The journal is this machine's own connection (learn.store.api): not inside
            # the ledger's transaction, which holds the same SQLite file.
            store.journal.mark_undone([u.write_id])
            for key in u.keys:
                store.proposals.unapply(key, target_file=str(plan.path),
                                        since=next(w.written_at for w in writes
                                                   if w.id == u.write_id))
        gone = "removed" if plan.remove else "restored"
        click.echo(f"{gone} {plan.path}" + (f" (what it held is in {backup})" if backup else ""))
        if plan.remove:
            for folder in drop_made(plan.path, u.folders):
                click.echo(f"removed {folder} (learn made it; nothing is left in it)")

    wrote = write_confirmed(plans, consent, undone,
                            what=lambda p: "Remove" if p.remove else "Restore",
                            whole=check_undo(undos))
    return shown and wrote
