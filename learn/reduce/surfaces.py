"""Every instruction surface the agents read, beyond the CLAUDE.md / AGENTS.md chain
learn.reduce.rules walks: `.claude/rules/**` scoping (`paths:`), `@imports` in
CLAUDE.md files, AGENTS.override.md, Claude Code's auto-memory and Codex's memories.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from learn.reduce.rules import RuleScope, _strip_frontmatter

_LIST_ITEM = re.compile(r"^\s*-\s*(.+?)\s*$")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            out = json.loads(value)
            return out if isinstance(out, str) else value[1:-1]
        except json.JSONDecodeError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value


def paths_of(text: str) -> list[str]:
    """The `paths:` globs of a rules file's frontmatter (a YAML list, block or flow
    form); [] when the file is not path-scoped (loaded always)."""
    front, _ = _strip_frontmatter(text)
    lines = front.splitlines()
    for i, line in enumerate(lines):
        key, sep, rest = line.partition(":")
        if not sep or key.strip() != "paths" or line[:1].isspace():
            continue
        rest = rest.strip()
        if rest.startswith("["):
            return [_unquote(x) for x in rest.strip("[]").split(",") if x.strip()]
        if rest:
            return [_unquote(rest)]
        out: list[str] = []
        for item in lines[i + 1:]:
            m = _LIST_ITEM.match(item)
            if not m:
                break
            out.append(_unquote(m.group(1)))
        return out
    return []


MAX_IMPORT_HOPS = 4  # Claude Code follows @imports four hops deep
_IMPORT = re.compile(r"(?:^|\s)@((?:~/|\.{0,2}/)?[\w.~/-]+\.[\w]+)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def imports_of(text: str, base: Path) -> list[Path]:
    """Files a CLAUDE.md pulls in with `@path` (not inside code spans or fences)."""
    out: list[Path] = []
    fence = False
    for line in text.splitlines():
        if _FENCE_LINE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        for m in _IMPORT.finditer(_CODE_SPAN.sub("", line)):
            raw = m.group(1)
            path = Path(raw).expanduser() if raw.startswith("~") else base / raw
            out.append(path)
    return out


def encoded_project(project: Path) -> str:
    """The folder name Claude Code keeps a project's transcripts and memory under:
    every character but letters and digits becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(project))


def memory_dirs(project: Path | None, home: Path) -> list[Path]:
    """Claude Code's auto-memory for `project` and Codex's memories (generated state)."""
    from learn.reduce.rules import _claude_home, _codex_home

    dirs: list[Path] = []
    if project is not None:
        dirs.append(_claude_home(home) / "projects" / encoded_project(project) / "memory")
    dirs.append(_codex_home(home) / "memories")
    return dirs


def is_memory_file(path: str | Path | None, home: Path | None = None) -> bool:
    """A file an agent writes for itself: under `<claude home>/projects/<project>/memory/`
    (auto-memory) or `<codex home>/memories/`. A rule found there is promoted to
    CLAUDE.md / AGENTS.md, never edited in place (memories are generated state)."""
    from learn.reduce.rules import _claude_home, _codex_home

    if not path:
        return False
    home = home or Path.home()
    p = Path(path).expanduser()
    projects = _claude_home(home) / "projects"
    try:
        rel = p.relative_to(projects)
        if len(rel.parts) >= 3 and rel.parts[1] == "memory":
            return True
    except ValueError:
        pass
    return _codex_home(home) / "memories" in p.parents


def _memory_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    # MEMORY.md and its topic files; Codex's raw extraction log and per-rollout
    # summaries are inputs to its consolidation, not what it loads.
    return sorted(p for p in directory.glob("*.md") if p.is_file()
                  and p.name not in ("raw_memories.md",))


def more_rule_files(project: Path | None, found: list[Path],
                    home: Path) -> list[tuple[Path, RuleScope]]:
    """Files beyond learn.reduce.rules' own list: @imports of the files `found` (up to
    four hops), AGENTS.override.md along the chain and in Codex's home, and memories.
    (path, scope) pairs; missing files are left out."""
    from learn.reduce.rules import _chain, _codex_home

    out: list[tuple[Path, RuleScope]] = []
    seen = {p.resolve() for p in found}

    def add(path: Path, scope: RuleScope) -> bool:
        if not path.is_file():
            return False
        real = path.resolve()
        if real in seen:
            return False
        seen.add(real)
        out.append((path, scope))
        return True

    add(_codex_home(home) / "AGENTS.override.md", "user")
    if project is not None:
        for directory in _chain(project):
            add(directory / "AGENTS.override.md", "project")
    frontier = [p for p in found if p.name.upper().startswith("CLAUDE")]
    for _ in range(MAX_IMPORT_HOPS):
        nxt: list[Path] = []
        for f in frontier:
            try:
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            scope: RuleScope = ("project" if project is not None and project in f.parents
                                else "user")
            for target in imports_of(text, f.parent):
                if add(target, scope):
                    nxt.append(target)
        frontier = nxt
    for directory in memory_dirs(project, home):
        for path in _memory_files(directory):
            # Claude Code's project memory is the project's; Codex's is the person's.
            add(path, "user" if ".codex" in path.parts or "memories" in path.parts
                else "project")
    return out
