"""What a `learn apply` (or an `--undo`, a `learn check`, an `install-claude-command`)
stopped half-way leaves, decided from the files themselves before the next one runs
(learn.commands.apply_lock.one_apply, which each of them holds).

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

And an apply stopped after the first file of a rule, before the others (CLAUDE.md written,
AGENTS.md not): the rule was recorded applied with the first file, and the next apply,
which plans only pending proposals, never wrote the others (an audit: Codex's AGENTS.md
left without the rules Claude's file had, and "nothing to apply" ever after). Now an
apply's decision about a key carries the files the person confirmed it for (its
`files`), and is recorded only once every one of them is written: until then it is held
in the journal (`held`), the proposal stays pending, and the next apply plans it again;
its files already holding the rule are left as they are (the plan skips a rule whose
marker is there), the others written, and then the held decisions are recorded with it
(`release`): the files, the states and applied_rules end as an apply never stopped
leaves them. A decision journaled before `files` existed is recorded as it was: alone.

And when the next apply covers such a rule but writes none of its missing files (`--agent
claude`, AGENTS.md declined at the prompt, its words already there by hand), nothing
released the held decisions: the rule stayed pending for good and every apply said it was
"finishing" it (an audit of 2026-12). Now an apply that leaves every file it planned for
the rule as it is (holding the rule, or declined), none refused, records them with the
files that still hold the rule (`record_settled`), and says "finishing" only when it
writes a file the stopped apply had not (`say_finishing`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from learn.report.edits import ApplyError, FilePlan, RuleEdit, decode_text, has_marker
from learn.report.undo import hash_now, held_now
from learn.store.apply_journal import Write

if TYPE_CHECKING:
    from learn.records.proposal import Proposal
    from learn.store import Store


def settle_pending() -> None:
    """Every pending write of the journal decided by its file (the module doc); then the
    held decisions of every key whose apply has now written all its files, recorded."""
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
            held = _held(store)
    except StoreError:
        return  # no store, no journal: nothing was recorded to decide
    for w in written:
        _decide(w)
    # A kill after the last file of a key was written, before its decisions were all
    # recorded (the write found made above, or a stop between two of them): the apply
    # is finished, so what it decided is recorded now, as it would have been.
    done: set[str] = set()
    for h in held:
        if h.missing or h.key in done:
            continue
        done.add(h.key)  # its release records the other applies' held decisions of it too
        for path, backup, d in release(h.key, h.files,
                                       [(x.write.path, x.write.backup_file, x.decision)
                                        for x in held if x.key == h.key
                                        and x.write.batch == h.write.batch]):
            record(path, backup, d)


@dataclass(frozen=True, slots=True)
class Held:
    """A decision an apply's write carries about `key`, not recorded: its batch had not
    written every file of `files` (the ones the person confirmed the key for) when it
    stopped. `missing`: the ones it had not."""

    write: Write
    decision: dict[str, Any]
    files: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def key(self) -> str:
        return str(self.decision["key"])


def _held(store: Store) -> list[Held]:
    """Every held decision (Held) of the journal: of an apply's write done and not undone,
    carrying `files`, whose proposal is still pending and has no applied_rules row for
    that write. Decided since (applied by another apply, declined), it is not held: the
    person's later word stands."""
    rows = store.journal.decided_writes()
    if not rows:
        return []
    pending = store.proposals.pending_keys()
    out: list[Held] = []
    for w in rows:
        for d in w.decisions:
            key = str(d["key"])
            if "files" not in d or key not in pending:
                continue
            if store.proposals.decided(None if d["every_project"] else d["project"], [key]):
                continue
            if any(a.target_file == w.path and a.applied_at >= w.written_at
                   for a in store.proposals.applied(key=key)):
                continue  # recorded (a stop between its record and the row's settle)
            wrote = {x.path for x in rows if x.batch == w.batch
                     and any(e["key"] == key for e in x.decisions)}
            files = tuple(d["files"])
            out.append(Held(w, d, files, tuple(f for f in files if f not in wrote)))
    return out


def unfinished() -> list[Held]:
    """The held decisions of applies stopped before they wrote every file of a key: what
    the next apply finishes (learn.commands.apply says so)."""
    from learn.store import StoreError, open_store

    try:
        with open_store() as store:
            return [h for h in _held(store) if h.missing]
    except StoreError:
        return []


# What an apply wrote of a rule: the file, its backup, the decision its row carries.
Landed = tuple[str, str | None, dict[str, Any]]


def release(key: str, files: Collection[str], mine: Sequence[Landed]) -> list[Landed]:
    """What to record now that `key` is written to every file of `files`, its batch's: its
    decisions there (`mine`), and those held by an earlier apply stopped before finishing
    `key`, for each file of theirs that still holds the rule (its marker; not one of
    `files`: written again by this batch, that write is the one to record). Looked up before
    any is recorded (held means still pending). Killed before they all are, the next
    apply or undo records them (settle_pending)."""
    from learn.store import StoreError, open_store

    try:
        with open_store() as store:
            # Not told apart by batch: a batch finishing an interrupted one is that one's
            # (Stopped), and the interrupted apply's held decisions are the earlier ones.
            # By file: what this batch wrote of the rule is `mine`, never taken twice.
            ours = {*files, *(path for path, _, _ in mine)}
            earlier = [h for h in _held(store) if h.key == key and h.write.path not in ours]
    except StoreError:
        earlier = []
    return [*mine, *((h.write.path, h.write.backup_file, h.decision)
                     for h in earlier if _holds(h))]


def interrupted(chosen: set[str]) -> list[list[Held]]:
    """Say which rules an apply stopped before it finished (killed, Ctrl-C, a write that
    failed) wrote to some of their files and not the others, that this apply does not
    cover (`chosen`): pending still, and how to finish them. The held decisions of the
    ones it covers are returned, for each rule one per file its apply wrote: what
    `say_finishing` and `record_settled` weigh once the files are planned."""
    by_rule: dict[tuple[str, str], list[Held]] = {}
    for h in unfinished():
        by_rule.setdefault((h.write.batch, h.key), []).append(h)
    out: list[list[Held]] = []
    for (_, key), held in by_rule.items():
        if key in chosen:
            out.append(held)
            continue
        click.echo(f"note: an interrupted `learn apply` (of {held[0].write.written_at[:19]}) "
                   f"left {key} in {', '.join(h.write.path for h in held)}, not yet in "
                   f"{', '.join(held[0].missing)}; `learn apply --only {key}` finishes it")
    return out


def _writes_of(key: str, plans: Sequence[FilePlan]) -> set[str]:
    """The files this apply plans to write `key` to (not refused)."""
    return {str(plan.path) for plan in plans
            if plan.refused is None and any(e.key == key for e in plan.applied)}


def say_finishing(held: Sequence[list[Held]], plans: Sequence[FilePlan]) -> None:
    """Say an interrupted apply is being finished, for the rules this apply writes to a
    file that apply had not written yet. Said before anything was planned, it was said on
    every apply that wrote nothing of the rule (`--agent claude`, the file declined, its
    words already there): a rule held for good, and an apply claiming to finish it."""
    for rule in held:
        h, wrote = rule[0], [x.write.path for x in rule]
        if _writes_of(h.key, plans) - set(wrote):
            click.echo(f"finishing an interrupted `learn apply` (of {h.write.written_at[:19]}): "
                       f"{h.key} is in {', '.join(wrote)}, not yet in {', '.join(h.missing)}")


def record_settled(held: Sequence[list[Held]], plans: Sequence[FilePlan],
                   edits: Sequence[RuleEdit], covered: dict[str, Proposal],
                   decided: Collection[str],
                   record: Callable[[Proposal, Sequence[Landed]], None]) -> None:
    """Record the held rules this apply covered (`covered`: the proposals it has an edit
    for) and leaves as they are: every file it planned for the rule already holds it, or
    the person said no to it (or excluded it: `--agent claude`), and none was refused.
    Their held decisions are recorded with the files the interrupted apply wrote that
    still hold the rule (`release`). Before, nothing ever recorded them: pending for good,
    and every apply said it was finishing them.

    `decided`: the keys this apply recorded itself, or the person confirmed a write of (a
    write that failed leaves them held); `record`: how the apply records a rule's
    decisions."""
    groups: dict[str, set[str]] = {}  # real file -> the keys planned for it
    for e in edits:
        groups.setdefault(os.path.realpath(e.target.expanduser()), set()).add(e.key)
    for rule in held:
        h = rule[0]
        if h.key not in covered or h.key in decided:
            continue
        if any(plan.refused is not None for plan in plans
               if h.key in groups.get(str(plan.path), ())):
            continue
        done = release(h.key, (), ())
        record(covered[h.key], done)
        if done:
            click.echo(f"{h.key}: recorded as applied in {', '.join(d[0] for d in done)}, "
                       f"where an interrupted `learn apply` (of {h.write.written_at[:19]}) "
                       f"wrote it; this apply plans it for no other file (not "
                       f"{', '.join(h.missing)})")


def _holds(h: Held) -> bool:
    """Whether the file of held decision `h` holds its rule now (learn.report.edits'
    marker): one the person took it out of since is not recorded as holding it."""
    try:
        real, data = held_now(h.write)
        text = decode_text(real, data) if data is not None else None
    except (ApplyError, OSError):
        return False
    return text is not None and has_marker(text, h.key)


def record(path: str, backup: str | None, d: dict[str, Any]) -> None:
    """Decision `d` of an apply's write of `path` (backup `backup`) recorded: the proposal
    applied (or edited) there, with its applied_rules row."""
    from learn.report.runs import load_proposals, record_decision

    found = load_proposals(None, d["project"], every_state=True)
    proposal = next((p for p in (found.proposals if found else ()) if p.key == d["key"]), None)
    record_decision(d["key"], d["decision"], d["text"], path, project=d["project"],
                    proposal=proposal, backup=backup, form=d["form"],
                    every_project=d["every_project"])


def _decide(w: Write) -> None:
    """The decisions of write `w` (found made after a kill) not recorded yet, recorded.
    One carrying `files` is left to settle_pending: recorded only once its batch wrote
    every one of them."""
    from learn.store import open_store

    for d in w.decisions:
        if "files" in d:
            continue
        project = d["project"]
        with open_store() as store:
            if store.proposals.decided(None if d["every_project"] else project,
                                       [d["key"]]).get(d["key"]) in ("applied", "edited"):
                continue
        record(w.path, w.backup_file, d)


def forget(store: Store, writes: Sequence[Write]) -> None:
    """`writes` never happened: their rows go, and an apply's proposals are pending
    again (their decisions were recorded with the row, before the rename)."""
    for w in writes:
        if w.action == "apply":
            for key in w.keys:
                store.proposals.unapply(key, target_file=w.path, since=w.written_at)
    store.journal.forget([w.id for w in writes])


def already_undone(writes: Sequence[Write]) -> list[Write]:
    """The writes of `writes` (one batch's, oldest first) whose file is back as it was
    before (its hash then, or no file where the write made it): an undo stopped after
    putting them back. A file the batch wrote twice (an interrupted apply and the one that
    finished it: learn.commands.apply_resume) is back when it is as before the first."""
    first: dict[str, Write] = {}
    last: dict[str, Write] = {}
    for w in writes:
        first.setdefault(w.path, w)
        last[w.path] = w
    return [w for w in writes if first[w.path].before_hash != last[w.path].after_hash
            and hash_now(w) == first[w.path].before_hash]
