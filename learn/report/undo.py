"""Putting back what one `learn apply` wrote: the plans of `learn apply --undo`.

Each file the apply wrote (learn.store.apply_journal) goes back to what it held
before: its backup's bytes, or no file when learn created it. Shown as a diff and
confirmed like any other write, and written through the same checked path
(learn.report.apply.write_plan, learn.report.confine). A file changed since learn
wrote it is the person's now: it is refused, with its backup named, so the undo
never throws away their edits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from learn.projects import write_roots
from learn.report.confine import confine, learns_own, read_regular
from learn.report.edits import ApplyError, FilePlan, decode_text, sha256
from learn.store.apply_journal import Write


@dataclass(slots=True)
class UndoPlan:
    write_id: int
    keys: tuple[str, ...]
    project: str | None
    plan: FilePlan


def undo_plan(w: Write) -> FilePlan:
    """The plan that puts `w.path` back as it was before write `w`; `refused` says why not."""
    path = Path(w.path)
    projects = write_roots(w.project, path)
    try:
        # The journal is learn's own: a write to learn's data (a check's rules file)
        # is put back there, as the same kind of file.
        real = confine(path, projects, internal=learns_own(path))
        current = read_regular(real, follow=False)
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


def undo_plans(writes: Sequence[Write]) -> list[UndoPlan]:
    """One plan per write (one per file: an apply writes each file once), newest first."""
    return [UndoPlan(w.id, tuple(w.keys), w.project, undo_plan(w)) for w in reversed(writes)]
