"""The pure half of `learn apply`: a rule edit, a file's plan, and the text of a
context file with the edits made (learn.report.apply does the I/O and picks the
destination; learn.report.surfaces_apply plans the surfaces that are not a rule
line). Text in, text out: nothing here reads or writes a file but `read_bytes`."""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from learn.report.errors import ApplyError as ApplyError
from learn.report.errors import ConcurrentEditError as ConcurrentEditError
from learn.report.runs import Decision
from learn.report.targets import Form

BEGIN = "<!-- learn:begin -->"
END = "<!-- learn:end -->"
SECTION_HEADING = "## Learned from your sessions"
SECTION_NOTE = ("<!-- Written by `learn apply`. Edit freely; learn only adds lines "
                "between these markers. -->")

# Claude Code's own auto-memory stops reading MEMORY.md at 200 lines / 25 KB; the
# same budget is a fair warning line for any file that is loaded on every turn.
DEFAULT_MAX_LINES = 200
DEFAULT_MAX_BYTES = 25_000  # same as learn.config's apply.max_bytes


@dataclass(frozen=True, slots=True)
class RuleEdit:
    key: str  # proposal key, kind:label
    text: str  # the rule, one line
    target: Path
    replace_line: str | None = None  # restated: the existing rule line to rewrite
    provenance: str = ""  # "3 sessions, last 2026-11-20"
    decision: Decision = "accepted"
    form: Form = "rule"  # "command": a whole command file, not a line
    project: Path | None = None  # the project the target belongs to (None: user / named file)
    description: str = ""  # a command's one-line description
    surface_rules: tuple[str, ...] = ()  # permission: deny rules; path-rule: globs
    surface_commands: tuple[str, ...] = ()  # codex-rule: command prefixes
    surface_allowed: tuple[str, ...] = ()  # codex-rule: commands that must stay allowed
    body: str = ""  # command: the instruction for the agent (may span lines)
    justification: str = ""  # codex-rule: the person's rule, shown when Codex refuses


@dataclass(slots=True)
class FilePlan:
    path: Path  # the real file (symlinks resolved)
    original: str | None  # None: the file does not exist yet
    original_hash: str
    new_text: str
    applied: list[RuleEdit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refused: str | None = None  # why nothing will be written to this file
    projects: tuple[str, ...] = ()  # the project roots the file was confined to
    remove: bool = False  # the write deletes the file (undoing one learn created)
    # What a confirmation covers, when not `new_text`: the text with the moment of
    # writing left out (a check's `added_at`), which a dry run and the confirmed
    # write a minute later cannot share.
    confirmed: str | None = None

    @property
    def changed(self) -> bool:
        if self.remove:
            return self.original is not None
        return self.new_text != (self.original or "")

    def diff(self) -> str:
        before = (self.original or "").splitlines(keepends=True)
        after = [] if self.remove else self.new_text.splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(before, after, fromfile=name if self.original is not None
                                     else "/dev/null", tofile="/dev/null" if self.remove
                                     else name)
        return "".join(x if x.endswith("\n") else x + "\n" for x in lines)


def confirmation_token(plans: Sequence[FilePlan]) -> str:
    """A short hash of exactly the changes `plans` would make: `learn apply --dry-run`
    prints it, and `--confirm TOKEN` writes only when the changes planned then still
    hash to it (the person confirmed those diffs, not whatever is planned later)."""
    h = hashlib.sha256()
    for plan in sorted((p for p in plans if p.changed and not p.refused), key=lambda p: str(p.path)):
        text = plan.new_text if plan.confirmed is None else plan.confirmed
        for part in (str(plan.path), plan.original_hash, "\0" if plan.remove else text):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
    return h.hexdigest()[:12]


def marker(key: str) -> str:
    return f"<!-- learn {key}"


def rule_line(edit: RuleEdit) -> str:
    # The provenance rides along as an HTML comment: the reader of the file can
    # see where a rule came from and when, and a later run can find it by key.
    prov = f", {edit.provenance}" if edit.provenance else ""
    return f"- {edit.text} {marker(edit.key)}{prov} -->"


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_COMMENT = re.compile(r"<!--.*?-->")


def normalize_rule(line: str) -> str:
    """A rule line without bullet, comments, case or spacing, for finding it again."""
    text = _COMMENT.sub("", _BULLET.sub("", line))
    return re.sub(r"\s+", " ", text).strip().casefold()


def _find_line(lines: list[str], wanted: str) -> int | None:
    target = normalize_rule(wanted)
    if not target:
        return None
    for i, line in enumerate(lines):
        if normalize_rule(line) == target:
            return i
    # Coverage may quote the rule without its markdown; a long enough exact substring
    # is still that rule (short ones like "tests" would hit the wrong line).
    if len(target) >= 12:
        for i, line in enumerate(lines):
            if target in normalize_rule(line):
                return i
    return None


def _already_present(lines: list[str], edit: RuleEdit) -> bool:
    mark, text = marker(edit.key), normalize_rule(edit.text)
    return any(mark + "," in line or mark + " -->" in line or normalize_rule(line) == text
               for line in lines)


def _section_bounds(lines: list[str], path: Path) -> tuple[int, int] | None:
    begins = [i for i, x in enumerate(lines) if x.strip() == BEGIN]
    ends = [i for i, x in enumerate(lines) if x.strip() == END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ApplyError(f"{path}: the learn section markers are damaged ({len(begins)} begin, "
                         f"{len(ends)} end); fix them by hand so that one {BEGIN} comes before "
                         f"one {END}, then run again")
    return begins[0], ends[0]


def plan_text(original: str, edits: Sequence[RuleEdit], path: Path) -> tuple[str, list[RuleEdit],
                                                                            list[str]]:
    """Apply `edits` to `original`; returns (new text, edits applied, notes)."""
    newline = "\r\n" if "\r\n" in original else "\n"
    lines = original.splitlines()
    applied: list[RuleEdit] = []
    notes: list[str] = []
    appended: list[str] = []
    for edit in edits:
        if _already_present(lines + appended, edit):
            notes.append(f"{edit.key}: already in {path.name}, not added again")
            continue
        if edit.replace_line:
            i = _find_line(lines, edit.replace_line)
            if i is not None:
                indent = re.match(r"^\s*", lines[i])
                lines[i] = (indent.group(0) if indent else "") + rule_line(edit)
                applied.append(edit)
                continue
            notes.append(f"{edit.key}: the existing rule was not found in {path.name}; the "
                         "new one is appended instead (delete the old one by hand)")
        appended.append(rule_line(edit))
        applied.append(edit)
    if appended:
        bounds = _section_bounds(lines, path)
        if bounds is None:
            while lines and not lines[-1].strip():
                lines.pop()
            block = [BEGIN, SECTION_HEADING, SECTION_NOTE, "", *appended, END]
            lines = [*lines, "", *block] if lines else block
        else:
            _, end = bounds
            lines[end:end] = appended
    if not applied:
        return original, applied, notes
    return newline.join(lines) + newline, applied, notes


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_text(path: Path, data: bytes | None) -> str | None:
    """A file's bytes as text (None: no file); ApplyError for a file that is not UTF-8."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApplyError(f"{path} is not UTF-8 text; learn will not edit it") from exc


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
