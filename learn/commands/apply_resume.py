"""An apply stopped before it wrote every file the person confirmed, and the apply that
writes the rest: one apply for `--undo`.

An audit (2026-12, F2) killed `learn apply` after it renamed CLAUDE.md into place and
before it wrote `.claude/commands/open-release-pr.md` (5 of 16 kill points). The next
apply settled the killed write as an apply of its own, without a word, and wrote the
command file as a second; `--undo` then removed the command file only, and CLAUDE.md kept
the killed apply's rules until a second `--undo`. For the person there was one apply: it
crashed, so they ran it again.

So each decision an apply journals carries every file of its batch the person confirmed,
with the rules planned for each (`batch_files`, in the row's JSON beside `files`: no
migration). The newest batch not undone whose rows do not cover them stopped early
(killed, Ctrl-C, a write that failed); an apply that writes one of those rules to one of
its missing files while it is still the newest joins that batch, says so before its diffs,
and one `--undo` puts back both parts, as if the apply had never stopped. An apply that
writes none of them (`--only` another rule, another project, the missing file declined,
`--agent claude`) is its own, and `--undo` takes it first, as before.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import click

# The key of an apply decision (learn.commands.apply) naming every file its batch writes,
# each with the rules planned for it.
BATCH_FILES = "batch_files"

# A rule written to a file: (the file, the proposal key).
Written = tuple[str, str]


def writes_of(files: Mapping[str, Sequence[str]]) -> set[Written]:
    """`files` (a file -> the rules written to it) as (file, rule) pairs."""
    return {(path, key) for path, keys in files.items() for key in keys}


@dataclass(frozen=True, slots=True)
class Stopped:
    """The newest apply, stopped before it wrote the rules of `missing` (it wrote the
    files of `wrote`)."""

    batch: str
    written_at: str
    wrote: tuple[str, ...]
    missing: tuple[Written, ...]

    def finished_by(self, writes: Collection[Written]) -> bool:
        """Whether an apply writing `writes` writes a rule of this one to a file it did
        not write it to: the same rule in the same file, not merely the same file."""
        return not set(self.missing).isdisjoint(writes)

    def files_missing(self) -> list[str]:
        return sorted({path for path, _ in self.missing})


def stopped_apply() -> Stopped | None:
    """The newest apply not undone, when it wrote only part of what the person confirmed;
    None when it wrote it all (or is not an apply). A batch partly undone (an undo
    stopped half-way: the next `--undo` finishes it) or still being written (a pending
    row: another learn writing now) is not one to finish."""
    from learn.store import StoreError, open_store

    try:
        with open_store(readonly=True) as store:
            newest = store.journal.last_batch()
            rows = store.journal.batch(newest[0].batch) if newest else []
    except (StoreError, OSError):
        return None
    if not rows or any(w.undone_at is not None or w.pending for w in rows):
        return None
    confirmed = {pair for w in rows for d in w.decisions
                 for pair in writes_of(d.get(BATCH_FILES) or {})}
    missing = confirmed - {(w.path, key) for w in rows for key in w.keys}
    if not missing:
        return None
    return Stopped(rows[0].batch, rows[0].written_at, tuple(sorted({w.path for w in rows})),
                   tuple(sorted(missing)))


def say_resuming(stopped: Stopped | None, writes: Collection[Written]) -> bool:
    """Before the diffs: say this apply finishes `stopped` when it writes one of its missing
    rules (`writes`: what it plans to write). Whether it said so."""
    if stopped is None or not stopped.finished_by(writes):
        return False
    # "completing", not "finishing": that word is learn.commands.apply_recover's, said per
    # rule, and only when a file the rule is missing is written.
    click.echo(f"completing an interrupted `learn apply` (of {stopped.written_at[:19]}): it "
               f"wrote {', '.join(stopped.wrote)}, not yet {', '.join(stopped.files_missing())}; "
               "this apply writes the rest as part of it, and one `learn apply --undo` puts "
               "back both")
    return True


def batch_for(fresh: str, writes: Collection[Written], *, said: bool) -> str:
    """The batch this apply journals `writes` (what the person confirmed) in: the stopped
    apply's when they finish it (looked at again under the apply lock: another command may
    have written or undone since the diffs), else `fresh`. `said`: say_resuming told the
    person it would finish one; when it does not after all, say so."""
    stopped = stopped_apply()
    if stopped is not None and stopped.finished_by(writes):
        return stopped.batch
    if said:
        click.echo("note: this apply is not part of the interrupted one after all (its missing "
                   "rules are not written now, or another learn command wrote since): "
                   "`learn apply --undo` puts back this apply alone")
    return fresh
