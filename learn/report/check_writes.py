"""Writing a planned check (learn.report.check_install.CheckPlan): by `learn apply`'s
own writer, all of its changes or none.

Each change is written by learn.report.apply.write_plan: confined again, inside the
folder confine approved held open, read again just before the rename, backed up
first, keeping the file's mode, owner and attributes. learn's inert data file goes
first, the agent files that run it after, the install record last; a failure puts
back what was already written, newest first. This module once wrote by path with a
writer of its own: a `.claude` folder swapped for a link after the check carried the
hook out of the project, and a failure on the second file left the first written.

Every file is written by the caller's Writer, which journals it (learn.store.apply_journal):
`learn apply --undo` puts a check's writes back as it puts back apply's. They were not
journaled, so the only way back from `learn check add` was `learn check remove` or
digging in the backups; then they were journaled once written, and a `kill -9` between
a file's rename and its row left a hook `--undo` did not know. The commands' Writer
(learn.commands.apply_writes.Journaled) journals each one pending before its rename, as
`learn apply` does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from learn.guard.files import checks_dir, record_file
from learn.paths import ensure_private_dir
from learn.report.check_install import CheckError, CheckPlan, read_settings_bytes
from learn.report.errors import ApplyError
from learn.report.held_folder import drop_if_empty

if TYPE_CHECKING:
    from learn.report.edits import FilePlan

# One file written: its plan and the backup of what it held (None: learn created it).
Written = tuple["FilePlan", Path | None]


class Writer(Protocol):
    """How each file of a check is written, and put back when the whole is not."""

    def write(self, plan: FilePlan) -> Path | None:
        """`plan` written; its backup (None: no file was there). Raises ApplyError or
        OSError when it is not."""

    def put_back(self, plan: FilePlan, backup: Path | None) -> None:
        """`plan`, just written, as it was (learn.report.apply.put_back)."""


class Unjournaled:
    """A Writer that records nothing: for a caller with no journal (a library call, a test).
    The commands journal every write (learn.commands.apply_writes.Journaled)."""

    def write(self, plan: FilePlan) -> Path | None:
        # Looked up at call time: a test makes a step fail.
        from learn.report import apply

        return apply.write_plan(plan)

    def put_back(self, plan: FilePlan, backup: Path | None) -> None:
        from learn.report.apply import put_back

        put_back(plan, backup)


def _confined(path: Path, project: str) -> Path:
    """`path` checked like every write learn makes (learn.report.confine)."""
    from learn.projects import write_roots
    from learn.report.confine import confine
    from learn.report.errors import ConfinementError

    try:
        # The project's folder, or another checkout of its repository (a worktree).
        return confine(path, write_roots(project, path), internal=True)
    except ConfinementError as exc:
        raise CheckError(str(exc)) from exc


def _file_plan(path: Path, before: bytes | None, after: bytes | None,
               projects: tuple[str, ...]) -> FilePlan:
    """One change as `learn apply` writes a file (learn.report.apply.write_plan), so a
    check is written by the same code: confined again, inside the folder confine
    approved held open, read again just before the rename, backed up first, keeping
    the file's mode, owner and attributes. `path` is the real file (confined)."""
    from learn.report.edits import FilePlan, decode_text, sha256

    try:
        new_text = decode_text(path, after) or ""
    except ApplyError as exc:
        raise CheckError(str(exc)) from exc
    # The hash of `before` decides whether the file is still as planned; the text is
    # only ever shown, so a file that is not UTF-8 is no reason to refuse.
    return FilePlan(path=path, original=None if before is None
                    else before.decode("utf-8", "replace"),
                    original_hash=sha256(before) if before is not None else "",
                    new_text=new_text, remove=after is None, projects=projects)


def _reason(exc: Exception) -> str:
    """What refused a write, without learn.report.apply's "nothing was written, run
    `learn apply` again": for a check, what was written before is put back instead."""
    return str(exc).split("; nothing was written")[0].split(". Nothing was written")[0]


def write_plan(plan: CheckPlan, project: str, root: Path | None = None, *,
               writer: Writer | None = None) -> list[Written]:
    """Write every change, whole or not at all, then the install record, each by `writer`
    (default: Unjournaled); every file written, in order, with its backup.

    Every destination is confined (learn.report.confine) and checked to hold what was
    planned against before any byte is written. Then each file is written by
    `learn apply`'s writer (_file_plan): learn's data file first, the agent files
    (the hooks that read it) after, the record last. When one fails (changed since
    the diff, a folder swapped for a link, a full disk), the ones written before it
    are put back from their backups, newest first, and the folders learn made for
    them go: a hook never stands without its data file and record, which `learn
    check remove` finds it by."""
    from learn.projects import write_roots
    from learn.report.writable import read_only_reason

    writer = writer or Unjournaled()
    ensure_private_dir(checks_dir(root))
    todo = sorted((c for c in plan.changes if c.after != c.before), key=lambda c: not c.private)
    plans = [_file_plan(_confined(c.path, project), c.before, c.after,
                        write_roots(project, c.path)) for c in todo]
    for c in plan.changes:
        if read_settings_bytes(c.path) != c.before:
            raise CheckError(f"{c.path} changed while learn was planning; run the command again")
    for p in plans:
        refused = read_only_reason(p.path, elsewhere="")
        if refused:
            raise CheckError(refused)
    done: list[tuple[FilePlan, Path | None]] = []
    made: list[Path] = []  # folders the writes made, to go again if the whole does not
    try:
        for c, p in zip(todo, plans, strict=True):
            made.extend(d for d in (p.path.parent, *p.path.parent.parents)
                        if not d.exists() and d not in made)
            done.append((p, writer.write(p)))
            if c.made_dir:
                drop_if_empty(p.path.parent)
        record = write_record(plan, project, root, writer=writer)
    except (CheckError, ApplyError, OSError) as exc:
        back = _put_back(done, writer)
        for folder in sorted(made, key=lambda d: len(d.parts), reverse=True):
            drop_if_empty(folder)
        raise CheckError(f"{_reason(exc)}; {back}. Run the command again") from exc
    return [*done, *([record] if record is not None else [])]


def _put_back(done: Sequence[tuple[FilePlan, Path | None]], writer: Writer) -> str:
    """Each written file of `done` as it was, newest first (`writer.put_back`:
    learn.report.apply.put_back, only while it still holds what learn wrote); what
    became of them, in words."""
    if not done:
        return "nothing was written"
    said = []
    for p, backup in reversed(done):
        try:
            writer.put_back(p, backup)
        except (ApplyError, OSError) as exc:
            kept = f"; what it held is in {backup}" if backup else ""
            said.append(f"{p.path} could not be put back ({exc}){kept}")
            continue
        said.append(f"{p.path} is put back as it was")
    return "; ".join(said)


def write_record(plan: CheckPlan, project: str, root: Path | None = None, *,
                 writer: Writer | None = None) -> Written | None:
    """Keep (or drop, with no rule left) what the settings held before learn's hook,
    written as every check file is (_file_plan), the last thing written; what was
    written, None when the record was already so. Backed up like the others, and
    journaled with them: an undo that took the hook and the rules out left the record
    still listing the hook as installed, with what the settings held at an install
    that no longer was."""
    record = _confined(record_file(project, root), project)
    before = read_settings_bytes(record)
    after = json.dumps(plan.record, indent=2).encode("utf-8") if plan.record else None
    if before == after:
        return None
    written = _file_plan(record, before, after, ())
    try:
        return written, (writer or Unjournaled()).write(written)
    except ApplyError as exc:
        raise CheckError(str(exc)) from exc
