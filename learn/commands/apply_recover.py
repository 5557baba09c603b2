"""What a `learn apply` (or an `--undo`, a `learn check`, an `install-claude-command`)
stopped half-way leaves, decided from the files themselves before the next one runs
(learn.commands.apply_writes.one_apply, which each of them holds).

A write is journaled "pending" before its file is renamed into place and settled after
(learn.store.apply_journal). An audit's `kill -9` between the rename and a journal row
written after it (1 in 25 random kills) left a write `--undo` did not know: it then put
back an OLDER apply, or said there was nothing to undo. Now a row still pending when
the next apply or undo starts is decided by the hash the file has now:
- the bytes learn meant to write: it was written, and belongs to its apply (settled),
  its proposals applied as the apply would have recorded them (the row carries the
  decisions: they are recorded after the rename, and a kill may fall between);
- the bytes from before (or no file, where the apply would have made it): it never was,
  and the row goes, with the decisions recorded for it (its proposals pending again);
- anything else: the person edited it since; the row stays, and `--undo` refuses it as
  it refuses any file changed since learn wrote it.

And an undo killed after putting one file back, before marking its apply undone, left
that file in its before-state while the journal still said "after": every later
`--undo` refused it as "changed since learn wrote it", for good, and older applies could
never be undone again. A file already back as it was before counts as undone
(already_undone): the next `--undo` finishes the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from learn.report.undo import hash_now
from learn.store.apply_journal import Write

if TYPE_CHECKING:
    from learn.store import Store


def settle_pending() -> None:
    """Every pending write of the journal decided by its file (the module doc)."""
    from learn.store import StoreError, open_store

    written: list[Write] = []
    try:
        with open_store() as store:
            for w in store.journal.pending():
                now = hash_now(w)
                if now == w.before_hash and now != w.after_hash:
                    forget(store, [w])
                    continue
                if now == w.after_hash:
                    written.append(w)
                store.journal.settle([w.id])
    except StoreError:
        return  # no store, no journal: nothing was recorded to decide
    for w in written:
        _decide(w)


def _decide(w: Write) -> None:
    """The decisions of write `w` (found made after a kill) not recorded yet, recorded."""
    from learn.report.runs import load_proposals, record_decision
    from learn.store import open_store

    for d in w.decisions:
        project = d["project"]
        with open_store() as store:
            if store.proposals.decided(None if d["every_project"] else project,
                                       [d["key"]]).get(d["key"]) in ("applied", "edited"):
                continue
        found = load_proposals(None, project, every_state=True)
        proposal = next((p for p in (found.proposals if found else ()) if p.key == d["key"]),
                        None)
        record_decision(d["key"], d["decision"], d["text"], w.path, project=project,
                        proposal=proposal, backup=w.backup_file, form=d["form"],
                        every_project=d["every_project"])


def forget(store: Store, writes: Sequence[Write]) -> None:
    """`writes` never happened: their rows go, and an apply's proposals are pending
    again (their decisions were recorded with the row, before the rename)."""
    for w in writes:
        if w.action == "apply":
            for key in w.keys:
                store.proposals.unapply(key, target_file=w.path, since=w.written_at)
    store.journal.forget([w.id for w in writes])


def already_undone(writes: Sequence[Write]) -> list[Write]:
    """The writes of `writes` whose file is back as it was before (its hash then, or no
    file where the write made it): an undo stopped after putting them back."""
    return [w for w in writes if w.before_hash != w.after_hash and hash_now(w) == w.before_hash]
