"""Putting back what one `learn apply` wrote: the plans of `learn apply --undo`.

Each file the apply wrote (learn.store.apply_journal) goes back to what it held
before: its backup's bytes, or no file when learn created it. Shown as a diff and
confirmed like any other write, and written through the same checked path
(learn.report.apply.write_plan, learn.report.confine). A file changed since learn
wrote it is the person's now: it is refused, with its backup named, so the undo
never throws away their edits. A file learn created goes, and so do the folders its
write made (`.claude/`, `.cursor/rules/`: the journal's `made_folders`) once nothing is
left in them, innermost first; never a folder that was there before, nor one the
person has put anything in since.

An apply may write one file twice: an apply stopped before its last file is finished by the
next as the same batch (learn.commands.apply_resume), and that one can add to a file the
stopped one wrote. Undone one write at a time, the older write's plan, made from the file
as it is now, was refused as "changed since learn wrote it". So a batch's writes of one
file are undone as one (`whole_write`): from the newest's bytes to the oldest's backup,
when they follow each other unbroken.

learn's check (`learn check`, or a check offer `learn apply` installs) is several
files that only work together: its rules file, the hooks that run it, the install
record `learn check remove` goes by. Undone one by one, an edited settings file
was refused while the rules file and the record went: the person's hook stayed,
running a check of nothing, and nothing knew to take it out. So a check's writes
(journaled with action "check") are undone whole or not at all (CheckUndo).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path

from learn.projects import write_roots
from learn.report.confine import confine, learns_own, read_regular
from learn.report.edits import ApplyError, FilePlan, decode_text, sha256
from learn.report.held_folder import drop_if_empty
from learn.store.apply_journal import Write


@dataclass(slots=True)
class UndoPlan:
    write_ids: tuple[int, ...]  # every write of the file in the batch (whole_write)
    keys: tuple[str, ...]
    project: str | None
    plan: FilePlan
    check: bool = False  # a write of learn's check: undone with the batch's others
    folders: tuple[Path, ...] = ()  # the folders the write made: drop_made, once it is undone


def held_now(w: Write) -> tuple[Path, bytes | None]:
    """Where write `w`'s file is, confined as learn writes it, and what it holds now (None:
    no file). Raises ApplyError or OSError when it cannot be read as learn reads it."""
    path = Path(w.path)
    # The journal is learn's own: a write to learn's data (a check's rules file) is read
    # there, as the same kind of file.
    real = confine(path, write_roots(w.project, path), internal=learns_own(path))
    return real, read_regular(real, follow=False)


def hash_now(w: Write) -> str | None:
    """The hash of what write `w`'s file holds now ("" for no file); None when it cannot
    be read as learn reads it."""
    try:
        _, data = held_now(w)
    except (ApplyError, OSError):
        return None
    return sha256(data) if data is not None else ""


def undo_plan(w: Write) -> FilePlan:
    """The plan that puts `w.path` back as it was before write `w`; `refused` says why not."""
    path = Path(w.path)
    projects = write_roots(w.project, path)
    try:
        real, current = held_now(w)
        now = sha256(current) if current is not None else ""
        if now != w.after_hash:
            saved = f"; what it held before is in {w.backup_file}" if w.backup_file else ""
            raise ApplyError(f"{path} changed since learn wrote it; learn does not undo over your "
                             f"edits{saved}")
        plan = FilePlan(path=real, original=decode_text(real, current), original_hash=now, new_text="",
                        projects=tuple(projects))
        if not w.before_hash:
            plan.remove = True  # learn created it: undone, it is gone again
            return plan
        # Found by the path the journal recorded, never by its name: a backup named
        # the old way (the whole path, before names were capped) restores the same.
        backup = read_regular(confine(Path(w.backup_file), internal=True), follow=False) \
            if w.backup_file else None
        if backup is None or sha256(backup) != w.before_hash:
            raise ApplyError(f"{path}: the backup of what it held before ({w.backup_file}) is "
                             "missing or changed; learn cannot put it back")
        plan.new_text = decode_text(real, backup) or ""
        return plan
    except ApplyError as exc:
        return FilePlan(path=path, original=None, original_hash="", new_text="",
                        refused=str(exc), projects=tuple(projects))


def by_file(writes: Sequence[Write]) -> list[list[Write]]:
    """`writes` (oldest first) grouped by file, each group oldest first, the group of the
    newest write first."""
    groups: dict[str, list[Write]] = {}
    for w in writes:
        groups.setdefault(w.path, []).append(w)
    return sorted(groups.values(), key=lambda g: g[-1].id, reverse=True)


def whole_write(group: Sequence[Write]) -> Write:
    """The writes of one file in one batch (oldest first) as one write: from what the
    oldest found (its hash, its backup, the folders it made) to what the newest left."""
    first, last = group[0], group[-1]
    if len(group) == 1:
        return first
    keys = tuple(dict.fromkeys(k for w in group for k in w.keys))
    folders = tuple(dict.fromkeys(f for w in group for f in w.made_folders))
    return replace(last, before_hash=first.before_hash, backup_file=first.backup_file,
                   keys=keys, made_folders=folders)


def _broken(group: Sequence[Write]) -> str | None:
    """Why the writes of `group` cannot be undone as one: the file changed between two of
    them (not the bytes the one before left), so going back to the oldest's backup would
    throw that change away. None when they follow each other."""
    for a, b in pairwise(group):
        if a.after_hash != b.before_hash:
            saved = f"; what it held before is in {group[0].backup_file}" \
                if group[0].backup_file else ""
            return (f"{a.path} changed between two of learn's writes of it; learn does not "
                    f"undo over your edits{saved}")
    return None


def undo_plans(writes: Sequence[Write]) -> list[UndoPlan]:
    """One plan per file (whole_write), the newest first. When one of a check's files is
    refused, so are the others (CheckUndo)."""
    undos: list[UndoPlan] = []
    for group in by_file(writes):
        w = whole_write(group)
        plan = undo_plan(w)
        why = _broken(group)
        if why is not None and plan.refused is None:
            plan = FilePlan(path=Path(w.path), original=None, original_hash="", new_text="",
                            refused=why, projects=plan.projects)
        undos.append(UndoPlan(tuple(x.id for x in group), tuple(w.keys), w.project, plan,
                              check=any(x.action == "check" for x in group),
                              folders=tuple(Path(f) for f in w.made_folders)))
    for u in undos:
        if u.plan.remove and not u.plan.refused:
            u.plan.notes += [f"{f} goes too, if nothing else is in it (learn made it)"
                             for f in _held(u.plan.path, u.folders)]
    checks = [u.plan for u in undos if u.check]
    stuck = [p for p in checks if p.refused]
    for p in checks:
        if stuck and not p.refused and p.changed:
            names = ", ".join(str(s.path) for s in stuck)
            p.refused = (f"{p.path} is left as it is: learn's check is undone whole or not at "
                         f"all, and {names} cannot be (above); `learn check remove` takes "
                         "learn's hook out and keeps your edits")
    return undos


def _held(path: Path, folders: Sequence[Path]) -> list[Path]:
    """The folders of `folders` that hold `path`, innermost first: a folder recorded for
    a write is taken away only on the way to that write's own file."""
    above = set(path.parents)
    return sorted((f for f in folders if f in above), key=lambda f: len(f.parts), reverse=True)


def drop_made(path: Path, folders: Sequence[Path]) -> list[Path]:
    """The folders learn made for the write of `path` (now removed) taken away where
    nothing is left in them, innermost first (learn.report.held_folder.drop_if_empty: no
    link followed, none made again); the ones removed. The first that stays ends it: the
    folders above it hold it."""
    out: list[Path] = []
    for folder in _held(path, folders):
        if not drop_if_empty(folder):
            break
        out.append(folder)
    return out


def _learns(plan: FilePlan) -> bool:
    """Whether `plan` puts back a file of learn's own (the check's rules, its record)."""
    return learns_own(plan.path)


@dataclass(frozen=True, slots=True)
class CheckUndo:
    """The check's files of one undo, put back all or none
    (learn.commands.apply_writes.Whole): a failure on one puts back those undone
    before it, so the check is as it was, never a hook without its rules file."""

    plans: tuple[FilePlan, ...]

    def owns(self, plan: FilePlan) -> bool:
        return any(plan is p for p in self.plans)

    def asked(self) -> list[FilePlan]:
        """The person's files (settings, hooks) first, then learn's own."""
        return sorted(self.plans, key=_learns)

    def ordered(self) -> list[FilePlan]:
        """learn's data first when it comes back (it does nothing alone), last when it
        goes: the hooks are never left running a rules file that is not there."""
        def rank(p: FilePlan) -> int:
            if not _learns(p):
                return 1
            return 2 if p.remove else 0

        return sorted(self.plans, key=rank)

    def not_written(self, missing: Sequence[Path], put_back: Sequence[Path]) -> str:
        names = ", ".join(str(m) for m in missing)
        back = "".join(f"; {p} is put back as it was" for p in put_back)
        return (f"learn's check is not undone: {names} not written{back}; the check is as "
                "it was. Run `learn apply --undo` again")


def check_undo(undos: Sequence[UndoPlan]) -> CheckUndo | None:
    """The check's plans of `undos`, to be written whole; None when it has none."""
    plans = tuple(u.plan for u in undos if u.check)
    return CheckUndo(plans) if plans else None
