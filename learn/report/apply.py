"""Turning accepted proposals into edits of a context file, safely.

Users' complaint about every memory tool that writes CLAUDE.md is the same: a
correction became a permanent rule without asking, or the whole file was
rewritten. So the rules here are narrow:

- learn only ever appends inside its own managed section (created at the end
  of the file when absent), or rewrites the single line a restated rule lives
  on. The rest of the file is carried over byte for byte.
- the change is planned against a hash of the file, shown as a diff, and
  written only if the file still has that hash: an editor saving in between
  would otherwise be silently overwritten.
- the old file is backed up (0600, in learn's data dir) before the atomic
  replace, so a crash at any point leaves the original or the new file, and
  a copy of the original either way.

The planning half is pure (text in, text out: learn.report.edits); this is the
I/O half and the choice of destination.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from learn.paths import atomic_write_bytes, data_dir, ensure_private_dir
from learn.records.proposal import Proposal
from learn.report.agent_formats import agent_file_limit, plan_agent_file
from learn.report.edits import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    ApplyError,
    ConcurrentEditError,
    FilePlan,
    RuleEdit,
    marker,
    plan_text,
    sha256,
)
from learn.report.edits import read_bytes as _read
from learn.report.runs import Decision
from learn.report.surfaces_apply import plan_surface
from learn.report.targets import TargetChoice, choose, in_memory
from learn.report.words import day, flatten, plural


def read_only_reason(path: Path) -> str | None:
    """Why learn must not write `path` (a read-only file or folder), else None.

    The atomic replace renames a new file over the old one, which a read-only
    file does not prevent: so the check is learn's, made before planning. The
    mode bits are checked too, because os.access says yes to root for anything.
    """
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if not os.access(path, os.W_OK) or not mode & 0o222:
            return (f"{path} is read-only (mode {mode:04o}); learn does not overwrite it. Make "
                    f"it writable (chmod u+w {path}) and run again, or write elsewhere "
                    "(--target rules, --file FILE)")
        return None
    parent = next((d for d in path.parents if d.exists()), None)
    if parent is not None and not os.access(parent, os.W_OK):
        return f"cannot create {path}: {parent} is not writable"
    return None


def plan_file(path: Path, edits: Sequence[RuleEdit]) -> FilePlan:
    # Write through a symlink to the real file: dotfile managers link CLAUDE.md, and
    # replacing the link with a regular file would silently fork the user's config.
    real = path.expanduser().resolve()
    refused = read_only_reason(real)
    if refused:
        raise ApplyError(refused)
    if any(e.form == "command" for e in edits):
        return plan_command(real, edits)
    if any(e.form == "agent-rule" for e in edits):
        return plan_agent_file(real, edits, max_chars=agent_file_limit(real))
    if any(e.form in ("permission", "codex-rule", "path-rule") for e in edits):
        return plan_surface(real, edits)
    data = _read(real)
    try:
        original = None if data is None else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApplyError(f"{real} is not UTF-8 text; learn will not edit it") from exc
    new_text, applied, notes = plan_text(original or "", edits, real)
    return FilePlan(path=real, original=original, original_hash=sha256(data) if data is not None
                    else "", new_text=new_text, applied=applied, notes=notes)


def command_text(edit: RuleEdit) -> str:
    """A slash command file: what the person kept asking for, with room for their words."""
    description = flatten(edit.description or edit.text, 80).replace('"', "'")
    return (f'---\ndescription: "{description}"\n---\n{edit.text}\n\n$ARGUMENTS\n\n'
            f"{marker(edit.key)}, {edit.provenance} -->\n")


def plan_command(path: Path, edits: Sequence[RuleEdit]) -> FilePlan:
    """A new command file; an existing one is left alone (it is the person's own, or
    this one already)."""
    edit = edits[0]
    data = _read(path)
    new_text = command_text(edit)
    plan = FilePlan(path=path, original=None if data is None else "",
                    original_hash=sha256(data) if data is not None else "", new_text="")
    if data is None:
        plan.new_text = new_text
        plan.applied.append(edit)
    elif marker(edit.key) in data.decode("utf-8", "replace"):
        plan.notes.append(f"{edit.key}: the command {path.name} is already there")
    else:
        raise ApplyError(f"{path} exists and is a different command; learn does not replace it. "
                         "Rename or edit it by hand, or write a rule instead with "
                         f"--only {edit.key} --file FILE")
    for other in edits[1:]:
        plan.notes.append(f"{other.key}: {path.name} is taken by {edit.key}")
    return plan


def budget_warnings(plan: FilePlan, *, max_lines: int = DEFAULT_MAX_LINES,
                    max_bytes: int = DEFAULT_MAX_BYTES) -> list[str]:
    text = plan.new_text
    n_lines, n_bytes = len(text.splitlines()), len(text.encode("utf-8"))
    out = []
    if n_lines > max_lines:
        out.append(f"{plan.path} will have {n_lines} lines (budget {max_lines}): everything in "
                   "it is read on every turn; prune or move rules to .claude/rules/")
    if n_bytes > max_bytes:
        out.append(f"{plan.path} will be {n_bytes:,} bytes (budget {max_bytes:,}): prune it, "
                   "or move rules out")
    return out


def backups_dir() -> Path:
    return data_dir() / "backups"


def _atomic_replace(path: Path, data: bytes, mode: int) -> None:
    atomic_write_bytes(path, data, mode=mode)


def write_plan(plan: FilePlan) -> Path | None:
    """Write the planned text if the file is unchanged since planning; return the backup path."""
    refused = read_only_reason(plan.path)
    if refused:
        raise ApplyError(refused)
    current = _read(plan.path)
    now_hash = sha256(current) if current is not None else ""
    if (current is None) != (plan.original is None) or now_hash != plan.original_hash:
        raise ConcurrentEditError(f"{plan.path} changed since the diff was shown; nothing was "
                                  "written. Run `learn apply` again to see a fresh diff")
    backup: Path | None = None
    mode = 0o600
    if current is not None:
        # Keep the user's own permissions on a file they already had (it may be a
        # shared, committed CLAUDE.md); only files learn creates get 0600.
        mode = stat.S_IMODE(plan.path.stat().st_mode)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(plan.path).strip("/"))
        backup = ensure_private_dir(backups_dir()) / f"{name}.{stamp}.{now_hash[:8]}.bak"
        atomic_write_bytes(backup, current, mode=0o600)
    _atomic_replace(plan.path, plan.new_text.encode("utf-8"), mode)
    return backup


def rule_text_for(p: Proposal) -> str:
    """The one-line rule: the judge's wording, else the user's own words."""
    text = p.verdict.summary if p.verdict and p.verdict.summary.strip() else p.text
    return flatten(text)


def provenance_for(p: Proposal) -> str:
    last = day(p.last_seen)
    said = plural(p.sessions, "session")
    return f"{said}, last {last}" if last else said


def edit_for(p: Proposal, choice: TargetChoice, *, text: str | None = None,
             decision: Decision = "accepted") -> RuleEdit:
    """The edit for `p`; TargetError (learn.report.targets) when it has no single home."""
    target = choose(p, choice)
    words = flatten(text) if text is not None else rule_text_for(p)
    if target.form == "command" and text is None:
        # A command's body is what the person asked for, in their words.
        words = flatten(p.text)
    return RuleEdit(
        key=p.key,
        text=words,
        target=target.path,
        replace_line=(p.existing_rule if p.status in ("restated", "contradicts")
                      and not in_memory(p) else None),
        provenance=provenance_for(p),
        decision=decision,
        form=target.form,
        project=target.project,
        description=rule_text_for(p) if target.form == "command" else "",
        surface_rules=p.surface_rules,
        surface_commands=p.surface_commands,
    )


def plan_all(edits: Sequence[RuleEdit]) -> list[FilePlan]:
    """One plan per real file, in the order the files first appear; a file learn will
    not edit gets a plan with `refused` set (the others still go ahead)."""
    by_file: dict[Path, list[RuleEdit]] = {}
    for e in edits:
        by_file.setdefault(e.target.expanduser().resolve(), []).append(e)
    plans: list[FilePlan] = []
    for path, group in by_file.items():
        try:
            plans.append(plan_file(path, group))
        except ApplyError as exc:
            plans.append(FilePlan(path=path, original=None, original_hash="", new_text="",
                                  applied=list(group), refused=str(exc)))
    return plans
