"""Every instruction surface the agents read, beyond the CLAUDE.md / AGENTS.md chain
learn.reduce.rules walks: `.claude/rules/**` scoping (`paths:`), `@imports` in
CLAUDE.md files, AGENTS.override.md, Claude Code's auto-memory and Codex's memories.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from learn.reduce.rule_places import (
    RuleScope,
    chain,
    claude_home,
    codex_home,
    frontmatter_value,
    strip_frontmatter,
)


def paths_of(text: str) -> list[str]:
    """The `paths:` globs of a rules file's frontmatter (a YAML list, block or flow
    form); [] when the file is not path-scoped (loaded always)."""
    front, _ = strip_frontmatter(text)
    value = frontmatter_value(front, "paths")
    if value is None:
        return []
    return [value] if isinstance(value, str) else value


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


# Claude Code cuts a project's folder name past this many characters (UTF-16 code
# units, as JavaScript counts) and adds a hash of the path: `sanitizePath`.
_CLAUDE_NAME_MAX: Final = 200


def encoded_project(project: Path | str) -> str:
    """The folder name Claude Code keeps a project's transcripts and memory under, for a
    path short enough to need no hash: every character but ASCII letters and digits
    becomes '-', one per UTF-16 code unit (an emoji is two, as JavaScript's `replace`
    sees it)."""
    return "".join(c if c.isascii() and c.isalnum() else ("--" if ord(c) > 0xFFFF else "-")
                   for c in str(project))


def _djb2_36(text: str) -> str:
    """Claude Code's hash of a long path when it runs under Node (djb2 over UTF-16 code
    units, 32-bit signed, its absolute value in base 36). Under Bun it is Bun.hash,
    which Python cannot reproduce: `claude_project_dir` then goes by the folder listed."""
    data = text.encode("utf-16-le", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = ((h << 5) - h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    n = abs(h - (1 << 32) if h & 0x80000000 else h)
    digits = ""
    while True:
        n, r = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if not n:
            return digits


def claude_project_dir(projects: Path, project: Path) -> Path | None:
    """The folder under Claude Code's `projects` that holds `project`'s transcripts and
    memory, None when there is none. Past 200 characters Claude Code keeps the first 200
    and a hash of the path (`-<hash>`): Node's djb2, which is computed here, or under
    Bun its own hash, which is not; then the folder is the one sharing the first 200
    whose sessions ran in `project` (their heads say). Built whole, such a name was past
    the system's 255 bytes and the check for the folder raised (`learn run` in a deep
    OneDrive folder exited 1); taken by its first 200 alone, a sibling's folder (the same
    200, another path) gave its memory to a project that had none."""
    found = _project_dir(projects, project, str(project))
    if found is not None and not found.is_dir():
        # On WSL a drive's folder is a project Claude Code for Windows may have run in:
        # it named the folder after `C:\\Users\\Me\\Proj` (`C--Users-Me-Proj`), and the
        # memory it keeps there was never found under the WSL spelling's name.
        from learn.projects.flavour import drive_spellings

        for spelling in drive_spellings(str(project)):
            there = _project_dir(projects, project, spelling)
            if there is not None and there.is_dir():
                return there
    return found


def _project_dir(projects: Path, project: Path, spelling: str) -> Path | None:
    """`claude_project_dir` of `project` as Claude Code spelled its path (`spelling`)."""
    name = encoded_project(spelling)
    if len(name) <= _CLAUDE_NAME_MAX:  # all ASCII: one character a code unit
        return projects / name
    prefix = name[:_CLAUDE_NAME_MAX] + "-"
    try:
        found = [p for p in projects.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return None
    want = prefix + _djb2_36(spelling)
    exact = next((p for p in found if p.name == want), None)
    if exact is not None:
        return exact
    ran = [p for p in found if _sessions_ran_in(p, project)]
    return ran[0] if len(ran) == 1 else None


def _sessions_ran_in(folder: Path, project: Path) -> bool:
    """Whether a session Claude Code keeps in `folder` ran in `project` (its head's cwd)."""
    from learn.projects import path_key
    from learn.transcripts.files.heads import read_head

    want = path_key(str(project))
    try:
        sessions = sorted(folder.glob("*.jsonl"))[:3]
    except OSError:
        return False
    for session in sessions:
        try:
            cwd = read_head(session, "claude").cwd
        except OSError:
            continue
        if cwd and path_key(cwd) == want:
            return True
    return False


def memory_dirs(project: Path | None, home: Path) -> list[Path]:
    """Claude Code's auto-memory for `project` and Codex's memories (generated state)."""

    dirs: list[Path] = []
    if project is not None:
        folder = claude_project_dir(claude_home(home) / "projects", project)
        if folder is not None:
            dirs.append(folder / "memory")
    dirs.append(codex_home(home) / "memories")
    return dirs


def is_memory_file(path: str | Path | None, home: Path | None = None) -> bool:
    """A file an agent writes for itself: under `<claude home>/projects/<project>/memory/`
    (auto-memory) or `<codex home>/memories/`. A rule found there is promoted to
    CLAUDE.md / AGENTS.md, never edited in place (memories are generated state)."""

    if not path:
        return False
    home = home or Path.home()
    p = Path(path).expanduser()
    projects = claude_home(home) / "projects"
    try:
        rel = p.relative_to(projects)
        if len(rel.parts) >= 3 and rel.parts[1] == "memory":
            return True
    except ValueError:
        pass
    return codex_home(home) / "memories" in p.parents


def _memory_files(directory: Path) -> list[Path]:
    try:
        if not directory.is_dir():
            return []
    except OSError:  # a name past the system's limits: no folder learn can read
        return []
    # MEMORY.md and its topic files; Codex's raw extraction log and per-rollout
    # summaries are inputs to its consolidation, not what it loads.
    return sorted(p for p in directory.glob("*.md") if p.is_file()
                  and p.name not in ("raw_memories.md",))


MAX_NESTED_DEPTH = 4
MAX_NESTED_FILES = 200
MAX_NESTED_DIRS = 2000
_SKIP_DIRS = {"node_modules", "vendor", "dist", "build", "target", "venv", "__pycache__"}
_NESTED_NAMES = ("CLAUDE.md", "AGENTS.override.md", "AGENTS.md")


def nested_instruction_files(project: Path) -> list[Path]:
    """CLAUDE.md / AGENTS.md files in folders below the project: Claude Code loads one
    when a file in its folder is read, Codex when it works there. Hidden and dependency
    folders are skipped, and the walk stops at MAX_NESTED_DEPTH folders down,
    MAX_NESTED_DIRS folders listed or MAX_NESTED_FILES files, so a monorepo (or a run
    from the home folder) costs a bounded walk."""
    out: list[Path] = []
    frontier = [project]
    visited = 0
    for _ in range(MAX_NESTED_DEPTH):
        nxt: list[Path] = []
        for directory in frontier:
            visited += 1
            if visited > MAX_NESTED_DIRS:  # run from a home folder: bounded all the same
                return out
            try:
                children = sorted(p for p in directory.iterdir() if p.is_dir())
            except OSError:
                continue
            for child in children:
                if child.name.startswith(".") or child.name in _SKIP_DIRS:
                    continue
                nxt.append(child)
                out.extend(child / n for n in _NESTED_NAMES if (child / n).is_file())
                if len(out) >= MAX_NESTED_FILES:
                    return out[:MAX_NESTED_FILES]
        frontier = nxt
    return out


def more_rule_files(project: Path | None, found: list[Path],
                    home: Path) -> list[tuple[Path, RuleScope]]:
    """Files beyond learn.reduce.rules' own list: @imports of the files `found` (up to
    four hops), AGENTS.override.md along the chain and in Codex's home, CLAUDE.md /
    AGENTS.md in folders below the project, and memories.
    (path, scope) pairs; missing files are left out."""

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

    add(codex_home(home) / "AGENTS.override.md", "user")
    if project is not None:
        for directory in chain(project):
            add(directory / "AGENTS.override.md", "project")
        for path in nested_instruction_files(project):
            add(path, "project")
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
