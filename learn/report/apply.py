"""Turning accepted proposals into edits of a context file, safely.

Users' complaint about every memory tool that writes CLAUDE.md is the same: a
correction became a permanent rule without asking, or the whole file was
rewritten. So the rules here are narrow:

- learn only ever appends inside its own managed section (created at the end
  of the file when absent), or rewrites the single line a restated rule lives
  on. The rest of the file is carried over byte for byte.
- the change is planned against a hash of the file, shown as a diff, and
  written only if the file still has that hash: an editor saving in between
  would otherwise be silently overwritten. The hash is checked again after the
  backup and the new text are on disk, just before the rename: those take two
  fsyncs, long enough for a save to land.
- the old file is backed up (0600, in learn's data dir) before the atomic
  replace, so a crash at any point leaves the original or the new file, and
  a copy of the original either way. The new file takes the old one's mode,
  owner, group and user.* attributes (a shared CLAUDE.md stays shared).
- every step of the write happens inside the folder confine approved, held
  open (`_hold`): a folder swapped for a link after the check cannot carry
  the write out of the project.

The planning half is pure (text in, text out: learn.report.edits); this is the
I/O half and the choice of destination.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from learn.paths import ensure_private_dir
from learn.records.proposal import Proposal
from learn.reduce.pathscope import scoped_safely
from learn.report.agent_formats import agent_file_limit, plan_agent_file
from learn.report.claimed_line import unrelated_note
from learn.report.codex_commands import is_skill_policy
from learn.report.command_plan import plan_command, with_policy
from learn.report.confine import backups_dir, confine, learns_own, read_regular, surface_of
from learn.report.edits import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    MAX_RULE_CHARS,
    ApplyError,
    ConcurrentEditError,
    FilePlan,
    RuleEdit,
    body_too_long,
    decode_text,
    editable_text,
    is_safe_key,
    plan_text,
    sha256,
    too_long,
)
from learn.report.held_folder import (
    Folder,
    Staged,
    data_of,
    fill,
    held_now,
    hold,
    replace_in,
    seen,
    unlink_in,
)
from learn.report.prose import is_prose, plain_prose
from learn.report.runs import Decision
from learn.report.surfaces_apply import plan_surface
from learn.report.targets import TargetChoice, TargetError, choose
from learn.report.words import day, flatten, plural
from learn.report.writable import read_only_reason, read_planned


def plan_file(path: Path, edits: Sequence[RuleEdit],
              projects: Iterable[Path | str | None] = ()) -> FilePlan:
    """The plan for one file: `path` checked by learn.report.confine first (inside
    `projects` or the agents' homes, an instruction surface after following links),
    then planned against its real file. ConfinementError / ApplyError say why not."""
    roots = (*projects, *(e.project for e in edits))
    # Written through a symlink to the real file (dotfile managers link CLAUDE.md,
    # and replacing the link would fork the person's config), once the real file
    # is known to be an instruction surface inside the project or the homes.
    real = confine(path, roots)
    refused = read_only_reason(real)
    if refused:
        raise ApplyError(refused)
    if is_skill_policy(real):
        # Only `_with_policy` writes there, and only learn's own text: a rule or a command
        # added to it (`--file`) would not parse, and Codex ignores a metadata file that
        # does not (fail open), so the skill would be used unasked again.
        raise ApplyError(f"{real} is a Codex skill's metadata, where learn writes only its "
                         "own policy (a skill used when you name it); write the rule to an "
                         "instruction file instead")
    if any(e.form == "command" for e in edits):
        plan = plan_command(real, edits)
    elif any(e.form == "agent-rule" for e in edits):
        plan = plan_agent_file(real, edits, max_chars=agent_file_limit(real))
    elif any(e.form in ("permission", "codex-rule", "path-rule") for e in edits):
        plan = plan_surface(real, edits)
    else:
        data = read_planned(real)
        original = editable_text(real, data)
        new_text, applied, notes = plan_text(original or "", edits, real)
        plan = FilePlan(path=real, original=original, original_hash=sha256(data)
                        if data is not None else "", new_text=new_text, applied=applied,
                        notes=notes)
    plan.projects = tuple(str(r) for r in roots if r is not None)
    for note in (n for e in edits for n in e.notes):
        if note not in plan.notes:
            plan.notes.append(note)
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


def _atomic_replace(staged: Staged, data: bytes, mode: int) -> None:
    """The new text of an instruction file staged (_fill): the step of `write_plan` a full
    disk fails, apart from the backup's own."""
    fill(staged, data, mode)


# A backup is named after the file it keeps, to be found by eye in the folder. A path of
# 266 characters made a name of ~300 bytes, over NAME_MAX (255 on ext4 and APFS), and the
# write failed; past 120 characters the name keeps the path's end (the file and the
# folders nearest it) and a hash of the whole path, so two long paths ending alike still
# get two names. `learn apply --undo` finds a backup by the path its journal recorded,
# never by its name, so backups named either way restore.
_BACKUP_NAME_CHARS = 120


def backup_name(path: Path, data: bytes, stamp: str) -> str:
    """The file name of the backup of `data` (what `path` held), made at `stamp`."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(path).strip("/"))
    if len(name) > _BACKUP_NAME_CHARS:
        whole = sha256(str(path).encode("utf-8", "surrogateescape"))[:12]
        name = f"{name[-_BACKUP_NAME_CHARS:].lstrip('._-')}~{whole}"
    return f"{name}.{stamp}.{sha256(data)[:8]}.bak"


def save_backup(path: Path, data: bytes) -> Path:
    """A private copy of `data` (what `path` held) in learn's backups folder, named
    after the file and the time; `learn apply --undo` restores it."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    ensure_private_dir(backups_dir())
    backup = confine(backups_dir() / backup_name(path, data, stamp), internal=True)
    folder = hold(backup.parent, seen(backup.parent), private=True)
    try:
        replace_in(folder, backup.name, data, 0o600, None, lambda: None)
    finally:
        folder.close()
    return backup


def _unchanged_since_planning(plan: FilePlan, current: bytes | None, when: str) -> None:
    now_hash = sha256(current) if current is not None else ""
    if (current is None) != (plan.original is None) or now_hash != plan.original_hash:
        raise ConcurrentEditError(f"{plan.path} changed {when}; nothing was written and your "
                                  "version is as you left it. Run `learn apply` again to see "
                                  "a fresh diff")


def write_plan(plan: FilePlan, *, backup: bool = True) -> Path | None:
    """Write the planned text if the file is unchanged since planning; return the backup path.

    The destination is checked again here (learn.report.confine): a link swapped in
    since planning must not carry the write elsewhere, and a second name (a hard
    link) made since must not be split from this one. A plan that names learn's own
    data (a check's rules file) was made by learn (plan_file refuses such a name), so
    it may be written there, and only there. Then the file is written inside the
    folder confine approved, held open (`_hold`). `backup=False`: no copy of what the
    file holds (put_back, which restores a copy already made)."""
    private = learns_own(plan.path)
    real = confine(plan.path, plan.projects, internal=private)
    if real != plan.path:
        raise ConcurrentEditError(f"{plan.path} now leads to {real}; nothing was written. Run "
                                  "`learn apply` again to see a fresh diff")
    identity = seen(real.parent)
    refused = read_only_reason(plan.path)
    if refused:
        raise ApplyError(refused)
    folder = hold(real.parent, identity, private=private)
    plan.made = folder.made
    try:
        return _write_in(folder, plan, keep=backup)
    finally:
        folder.close()


def _private(plan: FilePlan) -> bool:
    """Whether a new file `plan` makes is made 0600: learn's own, or an agent's settings."""
    if learns_own(plan.path):
        return True
    surface = surface_of(plan.path, tuple(Path(p) for p in plan.projects))
    return surface is not None and surface.kind == "claude-settings"


def _write_in(folder: Folder, plan: FilePlan, *, keep: bool) -> Path | None:
    leaf = plan.path.name
    held = held_now(folder, leaf)
    _unchanged_since_planning(plan, data_of(held), "since the diff was shown")
    backup: Path | None = None
    # A new file of the person's (a CLAUDE.md, a rule file, a command) is made as any new
    # file is, 0666 less the umask (held_folder.replace_in): it was 0600 while the rest of
    # the project was 0644, unreadable by teammates and the tools reading it. learn's own
    # files (backups, checks) and a new settings file (whose `env` may come to hold keys)
    # stay 0600.
    mode: int | None = 0o600 if _private(plan) else None
    if held is not None:
        # Keep the user's own permissions on a file they already had (it may be a
        # shared, committed CLAUDE.md).
        mode = stat.S_IMODE(held.st.st_mode)
        backup = save_backup(plan.path, held.data) if keep else None
    if plan.remove:
        # The backup took a write and an fsync: a save landing meanwhile is kept.
        _unchanged_since_planning(plan, data_of(held_now(folder, leaf)), "while learn was backing it up")
        unlink_in(folder, leaf)
        return backup

    def last_look() -> None:
        _unchanged_since_planning(plan, data_of(held_now(folder, leaf)), "while learn was writing it")

    replace_in(folder, leaf, plan.new_text.encode("utf-8"), mode, held, last_look,
                _atomic_replace)
    return backup


def put_back(plan: FilePlan, backup: Path | None) -> None:
    """The file `plan` was just written to, as it was before: its backup's bytes, or no
    file when the write made it. Through write_plan (confined, in the folder held open),
    and only while the file still holds what learn wrote: an edit since is the person's.
    For a write that must not stand alone (a check's data file whose hook was not
    written: learn.commands.apply_writes)."""
    wrote = None if plan.remove else plan.new_text.encode("utf-8")
    before = read_regular(confine(backup, internal=True)) if backup is not None else None
    if backup is not None and before is None:
        raise ApplyError(f"{plan.path}: its backup {backup} is missing; learn cannot put it back")
    undo = FilePlan(path=plan.path, original=decode_text(plan.path, wrote),
                    original_hash=sha256(wrote) if wrote is not None else "",
                    new_text=decode_text(plan.path, before) or "", remove=before is None,
                    projects=plan.projects)
    if undo.changed:
        write_plan(undo, backup=False)


def rule_text_for(p: Proposal) -> str:
    """The one-line rule: the judge's wording, else the user's own words (worded as a
    rule offline: Proposal.rule_text)."""
    return flatten(p.rule_text)


def provenance_for(p: Proposal) -> str:
    last = day(p.last_seen)
    said = plural(p.sessions, "session")
    # A day only: `day` gives back what is no date as it is (a hand-edited store's text).
    return f"{said}, last {last}" if last and _DAY.fullmatch(last) else said


_DAY: Final = re.compile(r"\d{4}-\d{2}-\d{2}")


def _rejected_request(p: Proposal) -> bool:
    return p.kind == "request" and p.verdict is not None and not p.verdict.accepted


def _written_description(p: Proposal) -> str:
    """The description the command writer wrote for the command list with the body
    (learn.reduce.commands), as prose on one line; "" when none was written or it is no
    prose once code and shell are taken out. Asked for "under 80 characters" and paid
    for, it was thrown away: the front matter took the judge's summary cut at 80 columns
    ("... its cause, its fix and what is…"). Cut and quoted by `command_text` all the same."""
    written = flatten(plain_prose(p.command_description or ""))
    return written if is_prose(written) else ""


def edit_for(p: Proposal, choice: TargetChoice, *, text: str | None = None,
             decision: Decision = "accepted") -> RuleEdit:
    """The edit for `p`; TargetError (learn.report.targets) when it has no single home,
    or when what it would write is not something learn writes (a request the judge
    rejected as a command, a command nobody wrote a body for, text that is no prose
    once code, comments and shell are taken out: learn.report.prose)."""
    if not is_safe_key(p.key):
        raise TargetError(f"{p.key!r} is not a label learn makes (lower-case words and dashes): "
                          "a proposal written into the store by hand or by another program; "
                          "learn writes nothing for it")
    p = scoped_safely(p)
    target = choose(p, choice)
    body = description = ""
    if target.form == "command":
        if _rejected_request(p) and text is None:
            why = p.verdict.rationale if p.verdict and p.verdict.rationale else "not worth a command"
            raise TargetError(f"{p.key}: the judge rejected it ({flatten(why, 120)}); learn does "
                              "not make a command of a rejected request")
        body = plain_prose(text if text is not None else p.command_body or "", one_line=False)
        if not is_prose(body):
            raise TargetError(f"{p.key}: no instruction was written for this command (the model "
                              "writes it from every quote of the group in `learn run`); run "
                              "`learn run` with a model, or `--edit` to write it yourself")
        if (long := body_too_long(body)) is not None:
            raise TargetError(f"{p.key}: {long}")
        words = flatten(plain_prose(rule_text_for(p))) or p.label.replace("-", " ")
        description = _written_description(p) or words
    else:
        words = flatten(plain_prose(text if text is not None else rule_text_for(p)))
        if not is_prose(words):
            raise TargetError(f"{p.key}: its text is not prose once code, comments and shell "
                              f"are taken out ({flatten(text or rule_text_for(p), 120)!r}); "
                              "`--edit` to write the rule yourself")
        if (long := too_long(words)) is not None:
            raise TargetError(f"{p.key}: {long} ({flatten(words, 120)!r})")
    return RuleEdit(
        key=p.key,
        text=words,
        target=target.path,
        replace_line=p.existing_rule if target.rewrites else None,
        provenance=provenance_for(p),
        decision=decision,
        form=target.form,
        project=target.project,
        description=description if target.form == "command" else "",
        surface_rules=p.surface_rules,
        surface_commands=p.surface_commands,
        surface_allowed=p.surface_allowed,
        body=body,
        # What Codex shows when it refuses: the person's rule, not learn's summary.
        justification=flatten(plain_prose(p.text), MAX_RULE_CHARS)
        if target.form == "codex-rule" else "",
        notes=(note,) if not target.rewrites and (note := unrelated_note(p)) else (),
    )


def plan_all(edits: Sequence[RuleEdit], projects: Iterable[Path | str | None] = ()) -> list[FilePlan]:
    """One plan per real file, in the order the files first appear; a file learn will
    not edit (learn.report.confine, a read-only file, a file it cannot read) gets a
    plan with `refused` set, and the others still go ahead. `projects`: project
    roots beyond each edit's own that may hold the files (the one apply runs for)."""
    extra = tuple(projects)
    by_file: dict[Path, list[RuleEdit]] = {}
    for e in edits:
        by_file.setdefault(Path(os.path.realpath(e.target.expanduser())), []).append(e)
    plans: list[FilePlan] = []
    for path, group in by_file.items():
        try:
            plan = plan_file(group[0].target.expanduser(), group, extra)
        except ApplyError as exc:
            plans.append(FilePlan(path=path, original=None, original_hash="", new_text="",
                                  applied=list(group), refused=str(exc)))
            continue
        plans += with_policy(plan, group[0])
    return plans
