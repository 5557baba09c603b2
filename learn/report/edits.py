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
from typing import Final

from learn.reduce.command_body import MAX_BODY_CHARS as MAX_BODY_CHARS
from learn.reduce.command_body import body_too_long as body_too_long
from learn.reduce.instruction_prose import BOM, prose_of
from learn.reduce.slug import is_label
from learn.report.errors import ApplyError as ApplyError
from learn.report.errors import ConcurrentEditError as ConcurrentEditError
from learn.report.errors import UnsafeMarkError
from learn.report.runs import Decision
from learn.report.targets import Form
from learn.visible import visible

BEGIN = "<!-- learn:begin -->"
END = "<!-- learn:end -->"
SECTION_HEADING = "## Learned from your sessions"
SECTION_NOTE = ("<!-- Written by `learn apply`. Edit freely; learn only adds lines "
                "between these markers. -->")

# Claude Code's own auto-memory stops reading MEMORY.md at 200 lines / 25 KB; the
# same budget is a fair warning line for any file that is loaded on every turn.
DEFAULT_MAX_LINES = 200
DEFAULT_MAX_BYTES = 25_000  # same as learn.config's apply.max_bytes

# A rule is one line: the judge is asked for "one imperative line, specific", and the
# longest of the 39 gold rules of the eval corpora and of the 42 judge summaries
# recorded in cache/ is 97 characters (median 40). Nothing bounded the line before: one
# model-written rule of 40 KB would be more than Codex reads of a project's instructions
# (project_doc_max_bytes, 32 KiB) and would ride along in every session. 300 is three
# times the longest real rule, under 1% of Codex's budget; a longer one is not written
# (cut, a rule says something else), and the person is told to word it shorter.
MAX_RULE_CHARS = 300


def too_long(text: str) -> str | None:
    """Why `text` is not written as a rule line (over MAX_RULE_CHARS), None when it is short
    enough."""
    if len(text) <= MAX_RULE_CHARS:
        return None
    return (f"its rule is {len(text):,} characters, over the {MAX_RULE_CHARS} of one rule "
            "line; learn does not write it (`learn apply --edit` to word it shorter)")


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
    notes: tuple[str, ...] = ()  # said before the diff of each file it goes to


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
    # The folders the write made on the way to the file (learn.report.held_folder.hold),
    # outermost first: journaled, for `--undo` to take away again when left empty.
    made: tuple[Path, ...] = ()
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
        name = str(self.path)
        return shown_diff(self.original, None if self.remove else self.new_text,
                          name if self.original is not None else "/dev/null",
                          "/dev/null" if self.remove else name)


_ENDING: Final = re.compile(r"\r?\n\Z")


def shown_diff(before: str | None, after: str | None, fromfile: str, tofile: str) -> str:
    """The unified diff of `before` to `after` as printed before a yes, each line shown
    as it reads (learn.visible), its line ending kept.

    The context lines are the file's own, and a cloned repository's CLAUDE.md or
    settings are the repository's text: printed raw, an OSC 52 sequence in one wrote
    to the clipboard of whoever ran `learn apply`, a CSI sequence moved the cursor up
    and erased the lines learn was adding, a U+202E showed a line in another order
    (tests/test_redteam_shown_diff.py). The file is written as it is; only the screen
    is spared."""
    lines = difflib.unified_diff((before or "").splitlines(keepends=True),
                                 (after or "").splitlines(keepends=True),
                                 fromfile=fromfile, tofile=tofile)
    out: list[str] = []
    for line in lines:
        end = _ENDING.search(line)
        body = line[:end.start()] if end else line
        out.append(visible(body) + (end.group() if end else "\n"))
    return "".join(out)


def confirmation_token(plans: Sequence[FilePlan], generation: str = "") -> str:
    """A short hash of exactly the changes `plans` would make: `learn apply --dry-run`
    prints it, and `--confirm TOKEN` writes only when the changes planned then still
    hash to it (the person confirmed those diffs, not whatever is planned later).
    `generation`: the apply journal's (`ApplyJournal.generation`), so a token is good for
    one write: after `--undo` the same files planned the same diffs, and an old token
    (shell history, a script) wrote again what the person had undone (audit 60)."""
    h = hashlib.sha256(generation.encode("utf-8") + b"\x00")
    for plan in sorted((p for p in plans if p.changed and not p.refused), key=lambda p: str(p.path)):
        text = plan.new_text if plan.confirmed is None else plan.confirmed
        for part in (str(plan.path), plan.original_hash, "\0" if plan.remove else text):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
    return h.hexdigest()[:12]


# What learn writes into its own comments in a file (`<!-- learn KEY, PROVENANCE -->`,
# Codex's `# learn KEY`): a proposal's key as labels are made (`kind:words-and-dashes`,
# learn.reduce.slug) and its counts with a day. Nothing else: everything else learn
# writes is cleaned to prose first (learn.report.prose), but the key went in raw, and a
# key read back from a store (a shared team database, a hand edit) holding a line break
# put `prefix_rule(..., decision = "allow")` into Codex's rules, a `-->` closed the
# comment before an `@~/.ssh/id_rsa` import, and a "!`cmd`" ran when the slash command
# was typed (audit 60, against the real Codex and Claude Code).
_PROVENANCE: Final = re.compile(r"\d+ sessions?(?:, last \d{4}-\d{2}-\d{2})?")


def is_safe_key(key: str) -> bool:
    """Whether `key` is one learn makes, and so may go into a comment of its own."""
    kind, colon, label = key.partition(":")
    return bool(colon) and kind.isascii() and kind.isalpha() and kind.islower() \
        and is_label(label)


def marker(key: str) -> str:
    """The opening of learn's comment for `key`; UnsafeMarkError for a key learn does
    not make (`is_safe_key`)."""
    if not is_safe_key(key):
        raise UnsafeMarkError(f"{key!r} is not a key learn makes (a kind, a colon, lower-case "
                              "words and dashes); nothing is written for it")
    return f"<!-- learn {key}"


def learn_comment(key: str, provenance: str = "") -> str:
    """`<!-- learn KEY, PROVENANCE -->`: where a rule came from, for its reader and for
    a later run to find it by. UnsafeMarkError unless both are what learn makes."""
    if provenance and _PROVENANCE.fullmatch(provenance) is None:
        raise UnsafeMarkError(f"{key}: {provenance!r} is not a count learn makes; nothing "
                              "is written for it")
    return f"{marker(key)}{', ' + provenance if provenance else ''} -->"


def has_marker(text: str, key: str) -> bool:
    """Whether `text` holds the marker of `key` itself: the marker followed by the
    provenance's comma or the comment's close. A bare `marker(key) in text` found
    `directive:use-bun` inside `directive:use-bun-always` and skipped the new rule as
    already written. A key learn does not make is in no comment of learn's."""
    if not is_safe_key(key):
        return False
    mark = marker(key)
    return mark + "," in text or mark + " -->" in text


def rule_line(edit: RuleEdit) -> str:
    # The provenance rides along as an HTML comment: the reader of the file can
    # see where a rule came from and when, and a later run can find it by key.
    return f"- {edit.text} {learn_comment(edit.key, edit.provenance)}"


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_COMMENT = re.compile(r"<!--.*?-->")


def normalize_rule(line: str) -> str:
    """A rule line without bullet, comments, case or spacing, for finding it again. A
    byte order mark goes too: on a file's first line it hid the rule there, and a
    restated rule on that line was "not found" and written twice."""
    text = _COMMENT.sub("", _BULLET.sub("", line.lstrip(BOM)))
    return re.sub(r"\s+", " ", text).strip().casefold()


def _outside_fences(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it is prose from end to end: not front matter, code (fenced
    or indented) nor comment. learn.reduce.instruction_prose decides, the same reading the
    rule corpus takes, so a line offered as "restated" is one learn may rewrite."""
    return prose_of(lines).whole()


def _rule_lines(lines: Sequence[str], wanted: str) -> list[int]:
    """The prose lines that are `wanted` once folded (normalize_rule). A whole line only:
    matching a line that merely contained the rule's words rewrote the user's longer
    rule ("Never use npm in CI; ... see docs/ci.md" for "use npm in CI"). Never a line in
    a comment or code block (no agent reads it, and learn's marker, itself a comment,
    written into a person's comment closed it early), nor one a comment opens or closes
    on (rewriting it would drop the comment's `<!--` or `-->`)."""
    target = normalize_rule(wanted)
    if not target:
        return []
    return [i for i, (line, prose) in enumerate(zip(lines, _outside_fences(lines), strict=True))
            if prose and normalize_rule(line) == target]


def _in_unread(lines: Sequence[str], wanted: str) -> bool:
    """Whether `wanted`, folded, is a line learn may not rewrite for being code, front
    matter, in a comment, or one a comment opens or closes on."""
    target = normalize_rule(wanted)
    return bool(target) and any(not prose and normalize_rule(line) == target
                                for line, prose in zip(lines, _outside_fences(lines), strict=True))


def _already_present(lines: list[str], appended: Sequence[str], edit: RuleEdit) -> bool:
    """Whether `edit` is written already: its marker anywhere (learn wrote it, wherever
    it now sits), or its words on a line the agent reads. Words only inside a comment or
    a code example are not a rule the agent follows, and skipping the edit for them left
    the rule unwritten."""
    if any(has_marker(line, edit.key) for line in (*lines, *appended)):
        return True
    text = normalize_rule(edit.text)
    read = [seen.text for seen in prose_of(lines).lines if seen is not None]
    return any(normalize_rule(line) == text for line in (*read, *appended))


def _section_bounds(lines: list[str], path: Path) -> tuple[int, int] | None:
    # Markers in a fenced code block are an example of learn's section (a README's),
    # not the section: a rule added there would be code, which no agent obeys.
    prose = _outside_fences(lines)
    # A byte order mark may start any line of a file two were joined into (`cat a.md
    # CLAUDE.md`): the marker after it is the one the person sees.
    begins = [i for i, x in enumerate(lines) if prose[i] and x.strip().lstrip(BOM) == BEGIN]
    ends = [i for i, x in enumerate(lines) if prose[i] and x.strip().lstrip(BOM) == END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ApplyError(f"{path}: the learn section markers are damaged ({len(begins)} begin, "
                         f"{len(ends)} end); fix them by hand so that one {BEGIN} comes before "
                         f"one {END}, then run again")
    return begins[0], ends[0]


# Line endings as CommonMark reads them: "\n", "\r\n" and a lone "\r" (a CR-only file
# has lines too). str.splitlines also cuts at \x0b, \x0c, \x1c-\x1e, U+0085, U+2028 and
# U+2029, which sit inside a person's lines (a form feed between pages, a pasted Unicode
# separator), and re-joining its lines with one newline turned those into "\n" and a
# mostly-LF file with one CRLF line into all CRLF. Lines keep their own ending instead.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """`text` cut after each line ending, each line keeping its own: "".join(...) is `text`."""
    return _LINE.findall(text)


def line_ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def dominant_newline(lines: Sequence[str]) -> str:
    """The line ending most of `lines` use (LF when they have none, or on a tie)."""
    endings = [line_ending(x) for x in lines]
    return max(("\n", "\r\n", "\r"), key=endings.count)


def _rewrite(lines: list[str], i: int, new: str) -> bool:
    """Put `new` on line `i` in place of the rule there, keeping the line's indent, its
    ending and a first line's byte order mark. Undone (False) unless the new line reads
    as prose from end to end: the marker's `-->` would close a `<!--` left open above
    (text until then becomes a comment), which no check of the old line can see."""
    old = lines[i]
    indent = old[:len(old) - len(old.lstrip(BOM + " \t"))]
    lines[i] = indent + new + line_ending(old)
    if _outside_fences(lines)[i]:
        return True
    lines[i] = old
    return False


def plan_text(original: str, edits: Sequence[RuleEdit], path: Path) -> tuple[str, list[RuleEdit],
                                                                            list[str]]:
    """Apply `edits` to `original`; returns (new text, edits applied, notes). Only learn's
    lines change: every other line keeps its bytes, its own line ending included."""
    lines = split_lines(original)
    applied: list[RuleEdit] = []
    notes: list[str] = []
    appended: list[str] = []
    for edit in edits:
        if (long := too_long(edit.text)) is not None:
            notes.append(f"{edit.key}: {long}")
            continue
        if _already_present(lines, appended, edit):
            notes.append(f"{edit.key}: already in {path.name}, not added again")
            continue
        if edit.replace_line:
            hits = _rule_lines(lines, edit.replace_line)
            rewritten = len(hits) == 1 and _rewrite(lines, hits[0], rule_line(edit))
            if rewritten:
                applied.append(edit)
                continue
            if len(hits) > 1:
                where = f"is on {len(hits)} lines of {path.name}, so which to rewrite is a guess"
            elif hits:
                where = (f"is on a line of {path.name} where learn's marker would close a "
                         "comment left open above it")
            elif _in_unread(lines, edit.replace_line):
                # Said apart from "not found": the person sees the line in the file.
                where = (f"was not found in {path.name} outside comments and code blocks "
                         "(only in or beside one)")
            else:
                where = f"was not found in {path.name}"
            notes.append(f"{edit.key}: the existing rule {where}; the new one is appended "
                         "instead (delete the old one by hand)")
        appended.append(rule_line(edit))
        applied.append(edit)
    if not applied:
        return original, applied, notes
    if appended:
        bounds = _section_bounds(lines, path)
        if bounds is None:
            newline = dominant_newline(lines)
            if lines and not line_ending(lines[-1]):
                lines[-1] += newline  # the last line ends before the section starts
            fence = prose_of(lines).open_fence
            if fence:
                lines.append(fence + newline)  # a fence left open would hold the section
            if lines and lines[-1].strip():
                lines.append(newline)  # one blank line above the section
            block = [BEGIN, SECTION_HEADING, SECTION_NOTE, "", *appended, END]
            before = prose_of(lines).lines
            lines += [x + newline for x in block]
            if prose_of(lines).lines[:len(before)] != before:
                # A `<!--` the person never closed: the section's first marker, itself
                # a comment, would end it, and their text from there down would become
                # a comment no agent reads. Their file is theirs to mend.
                raise ApplyError(
                    f"{path} has a `<!--` that is never closed: learn's section opens with a "
                    "comment, which would close it and hide the text after it from the "
                    "agent. Close that comment (`-->`) or remove it, then apply again.")
        else:
            # Just above the end marker, in the ending of the line before it (which has
            # one: the marker follows it).
            _, end = bounds
            newline = line_ending(lines[end - 1])
            lines[end:end] = [x + newline for x in appended]
    return "".join(lines), applied, notes


def seeded(original: str | None, header: str) -> str:
    """The text a rule file's section is planned into: the file's, or `header` (the
    frontmatter a new file opens with) when there is no file or only a blank one. A
    blank file given no header lost the scope: Claude Code and Kiro load a rule file
    without frontmatter always, Cursor and Copilot never. A blank file's byte order
    mark and line ending are kept."""
    if original is None:
        return header
    if not header or original.lstrip("\ufeff").strip():
        return original
    bom = "\ufeff" if original.startswith("\ufeff") else ""
    return bom + header.replace("\n", dominant_newline(split_lines(original)))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_text(path: Path, data: bytes | None) -> str | None:
    """A file's bytes as text (None: no file); ApplyError for a file that is not UTF-8."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApplyError(_not_utf8(path, data[:2] in _UTF16_BOMS)) from exc


def editable_text(path: Path, data: bytes | None) -> str | None:
    """`decode_text` of a file learn is to add to: also refused when it holds a NUL.

    UTF-16 (Windows Notepad, PowerShell 5's `>` and Out-File) with its byte order mark
    does not decode; without one, English text is valid UTF-8 with a NUL after every
    letter, and learn's UTF-8 section appended to it left a file half of each. No
    instruction file holds a NUL. Only where learn adds text: putting back what a file
    held (undo) takes its bytes as they were."""
    text = decode_text(path, data)
    if text is not None and "\x00" in text:
        raise ApplyError(_not_utf8(path, True))
    return text


_UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")


def _not_utf8(path: Path, utf16: bool) -> str:
    if utf16:
        return (f"{path} looks like UTF-16 text (as Windows Notepad or PowerShell's `>` save "
                "it), not UTF-8; learn will not edit it: save it as UTF-8 and apply again")
    return f"{path} is not UTF-8 text; learn will not edit it"


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
