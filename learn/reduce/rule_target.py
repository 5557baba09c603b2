"""A rule in place, seen as the agents see its file: which agent reads the file, when
(always, under a folder, for matching files), and whether the rule's line survives
the file's size limit.

The limits, measured or documented:
- Claude Code's auto-memory MEMORY.md: the first 200 lines and 25,000 bytes, whole
  lines (2.1.332: a 250-line file was cut after line 200; a 36.5 KB one after the
  100 lines that fit in 25,000 bytes, with "limit: 24.4KB" in its warning);
- Codex's AGENTS.md chain: `project_doc_max_bytes` (32 KiB unless config.toml sets
  it), counted over the files from the repository root down, so what is cut is the
  end of the chain.

This module reads the file once per run (the rule's position is today's; a file
changed since the rule was written is judged as it is now).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from learn.reduce.file_readers import file_readers
from learn.reduce.rule_places import chain, claude_home, codex_home
from learn.reduce.surfaces import imports_of, is_memory_file, paths_of
from learn.textfold import fold

TargetKind = Literal["claude-md", "claude-rule", "claude-path-rule", "memory", "agents-md",
                     "other"]

MEMORY_MAX_LINES = 200
MEMORY_MAX_BYTES = 25_000
CODEX_DOC_MAX_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class RuleTarget:
    file: str
    kind: TargetKind
    # The folder the file applies from: a CLAUDE.md's / AGENTS.md's own folder, a
    # rules file's project (the folder holding `.claude`); None for the user's own
    # files, which apply everywhere.
    base: str | None
    globs: tuple[str, ...] = ()
    rule: str = ""  # the rule's text, as written
    found: bool = True  # the rule's text is in the file
    line: int | None = None  # 1-based line of the rule in the file
    # Why the rule's line is past the size limit of the agent that reads the file
    # (None: it is not cut).
    cut: str | None = None
    # Claude Code reads an AGENTS.md only where no CLAUDE.md sits beside it, or
    # through `@AGENTS.md` in that CLAUDE.md.
    claude_reads: bool = True
    codex_reads: bool = False
    extra: dict[str, str] = field(default_factory=dict)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def rule_position(text: str, rule: str) -> tuple[int, int] | None:
    """(1-based line, byte offset of the end of that line) of the first line holding
    the rule's text (folded: re-wrapped whitespace and case do not matter); None
    when no line holds it. A rule written over several lines is found by its first."""
    want = fold(rule)
    if not want:
        return None
    first = fold(rule.strip().splitlines()[0]) if rule.strip() else want
    offset = 0
    for i, line in enumerate(text.splitlines(keepends=True), start=1):
        offset += len(line.encode("utf-8"))
        folded = fold(line)
        if want in folded or (first and first in folded and len(first) >= 12):
            return i, offset
    return None


def memory_cut(text: str, line: int, end: int) -> str | None:
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if line > MEMORY_MAX_LINES:
        return (f"line {line} of a {lines}-line MEMORY.md; Claude Code loads its first "
                f"{MEMORY_MAX_LINES} lines")
    if end > MEMORY_MAX_BYTES:
        return (f"{end:,} bytes into a {len(text.encode('utf-8')):,}-byte MEMORY.md; Claude "
                f"Code loads its first {MEMORY_MAX_BYTES:,} bytes")
    return None


def codex_doc_limit(home: Path) -> int:
    """`project_doc_max_bytes` from Codex's config.toml, else its default."""
    import tomllib

    try:
        data = tomllib.loads((codex_home(home) / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: nested past the stack
        return CODEX_DOC_MAX_BYTES
    value = data.get("project_doc_max_bytes")
    return value if isinstance(value, int) and value > 0 else CODEX_DOC_MAX_BYTES


def chain_bytes_above(path: Path) -> int:
    """Bytes of the AGENTS files Codex reads before `path`: one per folder from the
    checkout's root down to the one above it, an override in place of its AGENTS.md."""
    before = 0
    for directory in chain(path.parent)[:-1]:
        for name in ("AGENTS.override.md", "AGENTS.md"):
            with_name = directory / name
            if with_name.is_file():
                before += with_name.stat().st_size
                break  # the override replaces AGENTS.md in its folder
    return before


def agents_cut(path: Path, end: int, home: Path) -> str | None:
    """Past Codex's limit: the AGENTS files above this one in the chain count first."""
    limit = codex_doc_limit(home)
    before = chain_bytes_above(path)
    if before + end > limit:
        return (f"{before + end:,} bytes into the AGENTS.md chain; Codex reads "
                f"{limit:,} (project_doc_max_bytes)")
    return None


def _in_home(path: Path, home_dir: Path) -> bool:
    try:
        path.relative_to(home_dir)
    except ValueError:
        return False
    return True


def target_of(file: str, rule: str, *, home: Path | None = None) -> RuleTarget:
    """The rule's file as the agents read it, from the file as it is now."""
    home = home or Path.home()
    path = Path(file).expanduser()
    text = _read(path)
    pos = rule_position(text, rule) if text is not None else None
    found = pos is not None
    line, end = pos if pos is not None else (None, 0)
    name = path.name
    parts = path.parts
    if is_memory_file(path, home):
        cut = memory_cut(text or "", line, end) if (found and line and name == "MEMORY.md") \
            else None
        # Topic files beside MEMORY.md are read on demand, not at start.
        kind: TargetKind = "memory" if name == "MEMORY.md" else "other"
        return RuleTarget(str(path), kind, None, rule=rule, found=found, line=line, cut=cut)
    if ".claude" in parts and "rules" in parts[parts.index(".claude"):]:
        root = path
        while root.name != ".claude" and root != root.parent:
            root = root.parent
        base = None if root == claude_home(home) else str(root.parent)
        globs = tuple(paths_of(text or ""))
        return RuleTarget(str(path), "claude-path-rule" if globs else "claude-rule", base,
                          globs=globs, rule=rule, found=found, line=line)
    if name in ("CLAUDE.md", "CLAUDE.local.md"):
        folder = path.parent.parent if path.parent.name == ".claude" else path.parent
        base = None if path.parent == claude_home(home) else str(folder)
        # A CLAUDE.md linked to AGENTS.md (or linked to by it) is Codex's AGENTS.md too.
        return RuleTarget(str(path), "claude-md", base, rule=rule, found=found, line=line,
                          codex_reads=_codex_fallback(name, folder, home)
                          or "codex" in file_readers(path, home))
    if name in ("AGENTS.md", "AGENTS.override.md"):
        user = _in_home(path, codex_home(home))
        cut = agents_cut(path, end, home) if found and not user else None
        beside = path.parent / "CLAUDE.md"
        claude_text = _read(beside)
        claude_reads = claude_text is None or any(
            p.resolve() == path.resolve() for p in imports_of(claude_text, path.parent))
        # An AGENTS.md that CLAUDE.md links to (or that links to it) is Claude Code's
        # CLAUDE.md too; an override hides the AGENTS.md beside it from Codex.
        readers = file_readers(path, home)
        return RuleTarget(str(path), "agents-md", None if user else str(path.parent),
                          rule=rule, found=found, line=line, cut=cut,
                          claude_reads=(claude_reads and not user) or "claude" in readers,
                          codex_reads="codex" in readers)
    return RuleTarget(str(path), "other", None, rule=rule, found=found, line=line)


def _codex_fallback(name: str, folder: Path, home: Path) -> bool:
    """Codex reads a CLAUDE.md only as a fallback name (config.toml's
    `project_doc_fallback_filenames`) in a folder with no AGENTS.md."""
    import tomllib

    try:
        data = tomllib.loads((codex_home(home) / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    names = data.get("project_doc_fallback_filenames")
    return (isinstance(names, list) and name in names
            and not (folder / "AGENTS.md").exists() and not (folder / "AGENTS.override.md").exists())


def same_file(a: str, b: str) -> bool:
    """Two spellings of one file (symlinks resolved where they exist)."""
    from learn.projects import is_path, path_key

    if a == b:
        return True
    # Each spelling by its own file system's rules, symlinks resolved where they exist.
    return is_path(a) and is_path(b) and path_key(a) == path_key(b)
