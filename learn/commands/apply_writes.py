"""How `learn apply` writes: every diff shown before anything is written, then each file
confirmed and recorded for `--undo` (learn.commands.apply_undo puts it back).

The person confirms every write, one of four ways:
- at a terminal, a yes per file, after all the diffs were shown;
- `--dry-run` shows the diffs and a confirmation token; `--confirm TOKEN` then writes
  exactly those changes and nothing else (the token is a hash of the planned
  files' before-hashes and new text: a file or a proposal that changed since makes
  it fail). This is how `/learn` writes inside Claude Code: the person sees the
  diffs there and says yes; Claude Code asks once more before running it;
- `--yes`, for scripts;
- neither, and not at a terminal: nothing is written.

Each write is journaled before its file is renamed into place, "pending", with the
backup of what it held (made first, here) and the decisions it carries, and settled
once it is written: no moment of a `learn apply` killed leaves a write the journal does
not know (learn.commands.apply_recover decides a pending one from the file itself).
`learn check` and `install-claude-command` write the same way (Journaled), under the
same lock (learn.commands.apply_lock.one_apply), held only while they write: never while
the person reads a diff. What reads or records proposals (`learn apply`, `--undo`,
`--prune`, `learn decline`) holds a `learn run` off as well, for as long (store=True,
apply_lock.after_runs).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import click

from learn.commands.apply_lock import one_apply
from learn.report.apply import put_back, save_backup, write_plan
from learn.report.confine import confine, learns_own, read_regular
from learn.report.edits import ApplyError, FilePlan, confirmation_token, sha256
from learn.visible import visible


@dataclass(frozen=True, slots=True)
class Intent:
    """What a write's callback recorded before its file is renamed into place: the journal
    rows (pending until the write is done: settled, or forgotten when it fails), and what
    to do once the file is written (say so; what needs the file there first)."""

    ids: tuple[int, ...] = ()
    then: Callable[[], None] | None = None
    # Right after the rename, before the rows are settled: an apply's decisions (the
    # proposals applied). A kill before the settle is made good by the next apply.
    record: Callable[[], None] | None = None


# Called with the plan and its backup BEFORE the file is written: journal it (intend).
Written = Callable[[FilePlan, Path | None], Intent]


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


def intend(batch: str, action: str, plan: FilePlan, backup: Path | None,
           project: str | None, keys: Sequence[str],
           decisions: Sequence[dict[str, Any]] = ()) -> int:
    """Journal the write of `plan`, pending, before it is made (the module doc); its row.
    A store that cannot record it stops the write (ApplyError): a write `--undo` does not
    know is what this order is for. The folders the write will make are the ones missing
    now (settled with the ones it made)."""
    from learn.store import StoreError, open_store

    after = "" if plan.remove else sha256(plan.new_text.encode("utf-8"))
    try:
        with open_store() as store:
            return store.journal.record(
                batch=batch, action=action, project=project, path=str(plan.path),
                before_hash=plan.original_hash, after_hash=after,
                backup_file=str(backup) if backup else None, keys=keys,
                made_folders=[str(d) for d in _missing(plan.path)], pending=True,
                decisions=decisions)
    except (StoreError, OSError) as exc:
        raise ApplyError(f"{plan.path} was not written: learn could not record it for "
                         f"`--undo` ({exc})") from exc


def _missing(path: Path) -> list[Path]:
    """The folders above `path` that are not there yet, outermost first."""
    out = [d for d in path.parents if not d.exists() and not d.is_symlink()]
    return list(reversed(out))


def _settle(ids: Sequence[int], plan: FilePlan) -> None:
    from learn.store import StoreError, open_store

    try:
        with open_store() as store:
            store.journal.settle(ids, [str(d) for d in plan.made])
    except (StoreError, OSError) as exc:
        # Left pending: the next apply or undo finds the file written and settles it.
        click.echo(f"warning: {plan.path} was written; its journal row is settled later "
                   f"({exc})", err=True)


def _forget(ids: Sequence[int]) -> None:
    from learn.commands.apply_recover import forget
    from learn.store import StoreError, open_store

    if not ids:
        return
    try:
        with open_store() as store:
            forget(store, store.journal.rows(ids))
    except (StoreError, OSError) as exc:
        # Left pending: the next apply or undo finds the file as it was and drops it.
        click.echo(f"warning: could not drop the journal rows of a write not made ({exc})",
                   err=True)


def show(plans: Sequence[FilePlan], extra: Callable[[FilePlan], None] | None = None) -> bool:
    """Print every plan's notes and diff (refusals to stderr); False when one was refused."""
    ok = True
    for plan in plans:
        if plan.refused:
            click.echo(f"refused: {plan.refused}", err=True)
            ok = False
            continue
        for note in plan.notes:
            # A note can name a file or quote a line of it (the file's own words).
            click.echo(visible(f"note: {note}"))
        if plan.changed:
            click.echo(plan.diff(), nl=False)
            if extra is not None:
                extra(plan)
    return ok


def _journal_generation() -> str:
    """The apply journal's generation ("" without a store: the token is the diffs alone)."""
    from learn.store import StoreError, open_store

    try:
        with open_store(readonly=True) as store:
            return store.journal.generation()
    except (StoreError, OSError):
        return ""


def write_confirmed(plans: Sequence[FilePlan], consent: Consent, on_written: Written, *,
                    what: Callable[[FilePlan], str], whole: Whole | None = None,
                    still: Callable[[], str | None] | None = None,
                    writing: Callable[[Sequence[FilePlan]], None] | None = None,
                    store: bool = False) -> bool:
    """Write the changed plans the person confirmed (see the module doc), after `show`
    printed them; `on_written` records each. False when something was not written
    that should have been (a refusal, a failed write, a stale token). `whole`: plans
    written all or none (_write_whole), at the place of the first of them.

    Every question is asked first, without the apply lock; the lock (one_apply) is held
    only while the confirmed plans are written. A person reading a diff held it before,
    and every other `learn apply`, `--undo` or `learn check` waited on them, then gave up
    saying a write was in progress. A file changed between the diff and the write is
    refused as before (its hash, checked again at the write); `still`, asked under the
    lock before anything is written, says why the plan no longer holds (None: it does),
    for what the files cannot show (the journal an undo was planned from). `writing` is
    told every plan the person confirmed, before the first is written: what the whole
    write is (an apply records a rule applied only once all its files are written).
    `store`: the writes record decisions on proposals (one_apply's `store`)."""
    todo = [p for p in plans if p.changed and not p.refused]
    if not todo:
        return True
    token = confirmation_token(plans, _journal_generation())
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
    together = [p for p in todo if whole is not None and whole.owns(p)]
    # What the person said yes to, in the order it is written: a plan, or the whole.
    chosen: list[FilePlan | list[FilePlan]] = []
    for plan in todo:
        if whole is not None and together and plan is together[0]:
            if _whole_confirmed(whole, together, asked, what):
                chosen.append(together)
            continue
        if any(plan is p for p in together):
            continue
        if asked and not click.confirm(f"{what(plan)} {plan.path}?", default=False):
            click.echo(f"skipped {plan.path}")
            continue
        chosen.append(plan)
    if not chosen:
        return True
    ok = True
    with one_apply(store="writing what you confirmed" if store else None):
        stale = still() if still is not None else None
        if stale is not None:
            click.echo(f"refusing to write: {stale}. Nothing was written.", err=True)
            return False
        if writing is not None:
            writing([p for item in chosen for p in (item if isinstance(item, list) else [item])])
        for item in chosen:
            if isinstance(item, list):
                assert whole is not None
                ok = _write_whole(whole, item, on_written) and ok
                continue
            done = _written(item, on_written)
            if done is False:
                ok = False
                continue
            if done[1].then is not None:
                done[1].then()
    return ok


def _written(plan: FilePlan, on_written: Written) -> tuple[Path | None, Intent] | Literal[False]:
    """`plan` written (write_journaled); False, said why, when not."""
    try:
        return write_journaled(plan, on_written)
    except ApplyError as exc:
        click.echo(f"error: {exc}", err=True)
    except OSError as exc:
        click.echo(f"error: could not write {plan.path}: {exc}; the original is unchanged",
                   err=True)
    return False


def write_journaled(plan: FilePlan, on_written: Written) -> tuple[Path | None, Intent]:
    """`plan` written: its backup (None: there was no file) and what `on_written` recorded
    for it, pending before the rename and settled after (the module doc). Raises
    ApplyError or OSError when it is not written, the rows recorded for it forgotten."""
    intent = Intent()
    try:
        backup = _backed_up(plan)
        intent = on_written(plan, backup)
        write_plan(plan, backup=False)
    except (ApplyError, OSError):
        # Not written (write_plan writes all or nothing): the rows, and nothing else, go.
        _forget(intent.ids)
        raise
    if intent.record is not None:
        intent.record()
    _settle(intent.ids, plan)
    return backup, intent


@dataclass
class Journaled:
    """The writes of one batch made outside write_confirmed: `learn check`'s files
    (learn.report.check_writes.Writer), `install-claude-command`'s, the install record of
    a check `learn apply` installs. Each journaled as every write of `learn apply` is
    (write_journaled): they were journaled after the write, and a `kill -9` between the
    two left a file learn wrote that `--undo` did not know about."""

    batch: str
    action: str  # "check" | "install"
    project: str | None
    keys: Sequence[str] = ()
    _rows: dict[Path, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False)

    def write(self, plan: FilePlan) -> Path | None:
        """`plan` written and journaled; its backup. Raises ApplyError or OSError."""
        def intent(p: FilePlan, backup: Path | None) -> Intent:
            return Intent((intend(self.batch, self.action, p, backup, self.project,
                                  self.keys),))

        backup, done = write_journaled(plan, intent)
        self._rows[plan.path] = done.ids
        return backup

    def put_back(self, plan: FilePlan, backup: Path | None) -> None:
        """`plan`, written by `write`, as it was (learn.report.apply.put_back), and its row
        gone: a write put back never happened. Killed between the two, the next undo
        finds the file as it was before (apply_recover.already_undone)."""
        put_back(plan, backup)
        _forget(self._rows.pop(plan.path, ()))


def _backed_up(plan: FilePlan) -> Path | None:
    """A copy of what `plan.path` holds, made before the write is journaled, so the row
    names it (None: there is no file). Read as write_plan reads it (confined, no link
    followed), and only while it holds what the diff was made from: write_plan checks
    that again in the folder it holds open."""
    real = confine(plan.path, plan.projects, internal=learns_own(plan.path))
    data = read_regular(real, follow=False) if real == plan.path else None
    if data is None:
        return None  # no file, or a link swapped in: write_plan says which, and writes nothing
    if plan.original is None or sha256(data) != plan.original_hash:
        raise ApplyError(f"{plan.path} changed since the diff was shown; nothing was written "
                         "and your version is as you left it. Run `learn apply` again to see "
                         "a fresh diff")
    return save_backup(plan.path, data)


def _whole_confirmed(whole: Whole, todo: Sequence[FilePlan], asked: bool,
                     what: Callable[[FilePlan], str]) -> bool:
    """Whether `todo` (the plans of `whole` to write) are to be written: each asked (in
    `whole.asked()` order; after a no, the rest are not asked and none is written)."""
    mine = [p for p in whole.asked() if any(p is t for t in todo)]
    for i, plan in enumerate(mine):
        if asked and not click.confirm(f"{what(plan)} {plan.path}?", default=False):
            click.echo(f"skipped {plan.path}")
            why = whole.not_written([p.path for p in mine[:i + 1]], [])
            for rest in mine[i + 1:]:
                click.echo(f"not writing {rest.path}: {why}", err=True)
            if i + 1 == len(mine):
                click.echo(why, err=True)
            return False
    return True


def _write_whole(whole: Whole, todo: Sequence[FilePlan], on_written: Written) -> bool:
    """`todo` (the plans of `whole` the person confirmed) written all or none, in
    `whole.ordered()` order. When one fails, the ones written before it are put back as
    they were, and none is recorded; so too when what is done once they are all written
    (their `then`: a check's install record) fails. False when one failed."""
    order = [p for p in whole.ordered() if any(p is t for t in todo)]
    done: list[tuple[FilePlan, Path | None]] = []
    intents: list[Intent] = []
    for i, plan in enumerate(order):
        written = _written(plan, on_written)
        if written is False:
            click.echo(whole.not_written([p.path for p in order[i:]],
                                         _undo_whole(done, intents)), err=True)
            return False
        done.append((plan, written[0]))
        intents.append(written[1])
    for intent in intents:
        if intent.then is None:
            continue
        try:
            intent.then()
        except (ApplyError, OSError) as exc:
            # A check's install record not written (learn.commands.apply): the hook and the
            # rules it would have been the record of are put back, and their rows go.
            back = "".join(f"; {p} is put back as it was" for p in _undo_whole(done, intents))
            click.echo(f"error: {exc}{back}", err=True)
            return False
    return True


def _undo_whole(done: Sequence[tuple[FilePlan, Path | None]],
                intents: Sequence[Intent]) -> list[Path]:
    """The plans of a whole written so far (`done`, with what each recorded) put back as
    they were, and their rows forgotten: put back, they never happened. One that could
    not be put back keeps its row. The ones put back."""
    restored = _put_back(done)
    _forget([n for (p, _), intent in zip(done, intents, strict=True)
             if p.path in restored for n in intent.ids])
    return restored


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
