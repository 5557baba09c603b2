"""`learn apply --undo`: what the newest `learn apply` (or `--prune`, or `learn check`) wrote,
put back from the journal it recorded (learn.commands.apply_writes), as diffs confirmed
like any write, under the same apply lock (learn.commands.apply_lock.one_apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from learn.commands.apply_lock import one_apply
from learn.commands.apply_writes import Consent, Intent, intend, new_batch, show, write_confirmed
from learn.report.edits import FilePlan


def undo_last(*, consent: Consent) -> bool:
    """Put back every file the newest `learn apply` (or `--prune`, or `learn check`) wrote,
    as diffs confirmed like any write; its proposals are pending again. A check's files
    are put back whole or not at all (learn.report.undo.CheckUndo). False when something
    on record was not put back (refused, declined, failed); True when it all was, and
    when nothing is on record: nothing to do is not a failure (exit 0, docs/usage.md).

    An undo stopped half-way (killed) is finished by the next: a file already back as it
    was before counts as undone (learn.commands.apply_recover). What is on record is read
    under the apply lock (one_apply, which first decides the writes a killed command left
    pending), and the lock is let go while the diffs are shown and asked about; taken
    again to write, the undo is refused if the journal's newest batch is no longer the
    one shown (another command wrote or undid meanwhile)."""
    from learn.commands.apply_recover import already_undone
    from learn.report.undo import by_file, check_undo, drop_made, undo_plans
    from learn.store import open_store
    from learn.store.apply_journal import Write

    def newest() -> list[Write]:
        with open_store() as store:
            return store.journal.last_batch()

    def finish(ws: Sequence[Write], path: Path, folders: Sequence[Path]) -> None:
        """The writes `ws` of one file (oldest first: learn.report.undo.whole_write) are
        undone (the file at `path` is as it was before the oldest): their proposals pending
        again, then the rows marked together, so a stop between the two is finished
        again, and never leaves one write of the file marked and the other not."""
        with open_store() as store:
            # The journal is this machine's own connection (learn.store.api): not inside
            # the ledger's transaction, which holds the same SQLite file.
            for w in ws:
                for key in w.keys:
                    store.proposals.unapply(key, target_file=w.path, since=w.written_at)
            store.journal.mark_undone([w.id for w in ws])
        if not ws[0].before_hash:
            for folder in drop_made(path, folders):
                click.echo(f"removed {folder} (learn made it; nothing is left in it)")

    # An undone apply's proposals are pending again.
    with one_apply(store="undoing the last apply"):
        writes = newest()
        back = already_undone(writes)
        if not consent.dry_run:
            for group in by_file(back):
                finish(group, Path(group[0].path),
                       [Path(f) for w in group for f in w.made_folders])
    if not writes:
        click.echo("nothing to undo: no `learn apply` or `learn check` write is on record (or "
                   "every one was undone)", err=True)
        return True
    what = "check" if all(w.action == "check" for w in writes) else "apply"
    click.echo(f"undo the {what} of {writes[0].written_at[:19]}: "
               f"{len({w.path for w in writes})} file(s)")

    for group in by_file(back):
        click.echo(f"already put back: {group[0].path} (an undo stopped before it finished)")
    writes = [w for w in writes if w not in back]
    if not writes:
        return True
    undos = undo_plans(writes)
    by_plan = {id(u.plan): u for u in undos}
    by_id = {w.id: w for w in writes}
    plans = [u.plan for u in undos]
    shown = show(plans)
    batch = new_batch()

    def undone(plan: FilePlan, backup: Path | None) -> Intent:
        u = by_plan[id(plan)]
        row = intend(batch, "undo", plan, backup, u.project, u.keys)

        def then() -> None:
            gone = "removed" if plan.remove else "restored"
            click.echo(f"{gone} {plan.path}"
                       + (f" (what it held is in {backup})" if backup else ""))
            finish([by_id[i] for i in u.write_ids], plan.path, u.folders)

        return Intent((row,), then)

    shown_ids = sorted(w.id for w in writes)
    done_before = {w.id for w in back}

    def still() -> str | None:
        now = sorted(w.id for w in newest() if w.id not in done_before)
        if now == shown_ids:
            return None
        return ("what the last `learn apply` (or `learn check`) wrote changed since the diffs "
                "were shown: another learn command wrote or undid meanwhile. Run `learn apply "
                "--undo` again to see what is on record now")

    wrote = write_confirmed(plans, consent, undone,
                            what=lambda p: "Remove" if p.remove else "Restore",
                            whole=check_undo(undos), still=still, store=True)
    return shown and wrote
