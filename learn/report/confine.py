"""Which files learn may write: the one check every write path makes.

learn writes to the controls of an agent that has a shell. On a project whose
CLAUDE.md imported `@~/.bashrc`, a judge answer calling a `.bashrc` line
contradicted had `learn apply` replace that line with model text, and the next
shell ran it; a CLAUDE.md that was a symlink to `../../.bashrc` got learn's
section appended there; a relative path in a transcript put an AGENTS.md two
folders above the project. So before any byte is written, the destination is
resolved (the file and every folder above it, symlinks followed) and must be
one of the instruction surfaces below, by name and place, under the project
root or the agents' user homes. Anything else is refused with the reason;
nothing is written to it.

The surfaces are data (`SURFACES`): another agent's instruction files are one
more row each. A file reached through an `@import` is evidence for coverage,
never a destination because of it: it is written only when it is itself one of
these files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from learn.paths import data_dir
from learn.reduce.agent_files import opencode_config_dir
from learn.reduce.rule_places import claude_home, codex_home
from learn.report.errors import ConfinementError
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir

Base = Literal["project", "claude-home", "codex-home", "gemini-home", "copilot-home",
               "opencode-home", "learn-backups", "learn-checks"]


@dataclass(frozen=True, slots=True)
class Surface:
    base: Base  # the folder `pattern` is relative to
    pattern: str  # POSIX glob; `**` is any number of folders (none hidden)
    what: str  # shown when a write is refused


SURFACES: tuple[Surface, ...] = (
    # Claude Code: project memory (also nested in sub-folders, loaded there), the
    # local one, .claude/ rules, commands and settings.
    Surface("project", "CLAUDE.md", "CLAUDE.md"),
    Surface("project", "CLAUDE.local.md", "CLAUDE.local.md"),
    Surface("project", ".claude/CLAUDE.md", ".claude/CLAUDE.md"),
    Surface("project", "**/CLAUDE.md", "a sub-folder's CLAUDE.md"),
    Surface("project", ".claude/rules/**/*.md", ".claude/rules/*.md"),
    Surface("project", ".claude/commands/**/*.md", ".claude/commands/*.md"),
    Surface("project", ".claude/settings.json", ".claude/settings.json"),
    Surface("project", ".claude/settings.local.json", ".claude/settings.local.json"),
    Surface("claude-home", "CLAUDE.md", "~/.claude/CLAUDE.md"),
    Surface("claude-home", "rules/**/*.md", "~/.claude/rules/*.md"),
    Surface("claude-home", "commands/**/*.md", "~/.claude/commands/*.md"),
    Surface("claude-home", "settings.json", "~/.claude/settings.json"),
    # Codex: AGENTS.md along the tree and in its home, its rules and prompts.
    Surface("project", "AGENTS.md", "AGENTS.md"),
    Surface("project", "AGENTS.override.md", "AGENTS.override.md"),
    Surface("project", "**/AGENTS.md", "a sub-folder's AGENTS.md"),
    Surface("project", "**/AGENTS.override.md", "a sub-folder's AGENTS.override.md"),
    Surface("codex-home", "AGENTS.md", "~/.codex/AGENTS.md"),
    Surface("codex-home", "AGENTS.override.md", "~/.codex/AGENTS.override.md"),
    Surface("codex-home", "rules/*.rules", "~/.codex/rules/*.rules"),
    Surface("codex-home", "prompts/*.md", "~/.codex/prompts/*.md"),
    # learn's check (learn.guard): Codex runs it from its hooks file.
    Surface("codex-home", "hooks.json", "~/.codex/hooks.json"),
    # The other agents' own files (learn.report.agent_targets): Gemini CLI's GEMINI.md
    # (along the tree, and its user one), Copilot CLI's instructions, Cursor's,
    # Windsurf's and Kiro's rules, OpenCode's user AGENTS.md.
    Surface("project", "GEMINI.md", "GEMINI.md"),
    Surface("project", "**/GEMINI.md", "a sub-folder's GEMINI.md"),
    Surface("gemini-home", "GEMINI.md", "~/.gemini/GEMINI.md"),
    Surface("project", ".github/copilot-instructions.md", ".github/copilot-instructions.md"),
    Surface("project", ".github/instructions/*.instructions.md",
            ".github/instructions/*.instructions.md"),
    Surface("copilot-home", "copilot-instructions.md", "~/.copilot/copilot-instructions.md"),
    Surface("project", ".cursor/rules/*.mdc", ".cursor/rules/*.mdc"),
    Surface("project", ".windsurf/rules/*.md", ".windsurf/rules/*.md"),
    Surface("project", ".kiro/steering/*.md", ".kiro/steering/*.md"),
    Surface("opencode-home", "AGENTS.md", "~/.config/opencode/AGENTS.md"),
    # learn's own copies of what it replaced (`learn apply --undo` restores them).
    Surface("learn-backups", "*", "learn's backups"),
    # learn's check: its rules (data the fixed program reads) and install records.
    Surface("learn-checks", "*.json", "learn's check rules"),
)

# Folders a `**` never crosses: hidden ones (.git, .venv) and dependencies; an
# instruction file there is not the person's.
_NOT_CROSSED = frozenset({"node_modules", "vendor", "dist", "build", "target", "venv",
                          "__pycache__"})


def backups_dir() -> Path:
    return data_dir() / "backups"


def _real(path: Path) -> Path:
    # realpath resolves every symlink on the way, the last one included, also
    # for a path that does not exist yet (its existing part is resolved).
    return Path(os.path.realpath(path))


def _home() -> Path:
    return _real(Path.home())


def project_roots(projects: Iterable[Path | str | None]) -> tuple[Path, ...]:
    """The folders that may hold project surfaces: each absolute project, resolved.

    A relative path (a transcript's relative `cwd`) would resolve against the
    folder learn runs in, and the home folder (or anything above it) would make
    every CLAUDE.md below it a project file: neither is a project root."""
    home = _home()
    out: dict[Path, None] = {}
    for p in projects:
        if p is None or not str(p) or not Path(p).expanduser().is_absolute():
            continue
        real = _real(Path(p).expanduser())
        if real == home or real in home.parents:
            continue
        out.setdefault(real)
    return tuple(out)


# Where each user-level base is (from the person's home): another agent's home is
# one more entry here, and its files rows in SURFACES.
HOMES: dict[Base, Callable[[Path], Path]] = {
    "claude-home": claude_home,
    "codex-home": codex_home,
    "gemini-home": gemini_dir,
    "copilot-home": copilot_dir,
    "opencode-home": opencode_config_dir,
    "learn-backups": lambda home: backups_dir(),
    "learn-checks": lambda home: data_dir() / "checks",
}


def _bases(projects: tuple[Path, ...]) -> list[tuple[Base, Path]]:
    home = Path.home()
    out: list[tuple[Base, Path]] = [(base, _real(where(home))) for base, where in HOMES.items()]
    out.extend(("project", p) for p in projects)
    return out


def _match(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        if _match(parts, rest):
            return True
        return bool(parts) and _crossable(parts[0]) and _match(parts[1:], pattern)
    return bool(parts) and PurePosixPath(parts[0]).match(head) and _match(parts[1:], rest)


def _crossable(folder: str) -> bool:
    return not folder.startswith(".") and folder not in _NOT_CROSSED


def surface_of(real: Path, projects: tuple[Path, ...]) -> Surface | None:
    """The surface the resolved path `real` is, else None."""
    for base, root in _bases(projects):
        try:
            rel = real.relative_to(root)
        except ValueError:
            continue
        for s in SURFACES:
            if s.base == base and _match(rel.parts, PurePosixPath(s.pattern).parts):
                return s
    return None


def confine(path: Path, projects: Iterable[Path | str | None] = ()) -> Path:
    """The real file behind `path` when learn may write it; ConfinementError otherwise.

    May: after resolving symlinks (the file and every folder above it), the file
    is an instruction surface (`SURFACES`) under one of `projects` (absolute
    project roots), the agents' user homes (~/.claude, ~/.codex, ~/.gemini, ~/.copilot,
    ~/.config/opencode) or learn's
    backups folder, and it is a regular file or does not exist yet. Writers write
    the path returned, never `path` itself."""
    asked = path.expanduser()
    if not asked.is_absolute():
        raise ConfinementError(f"{path} is a relative path; learn writes only to absolute, "
                               "checked destinations. Nothing was written")
    real = _real(asked)
    roots = project_roots(projects)
    surface = surface_of(real, roots)
    via = f" (a link to {real})" if real != asked and _real(asked.parent) / asked.name != real \
        else ""
    if surface is None:
        where = ", ".join(str(r) for r in roots) or "no project"
        raise ConfinementError(
            f"{asked}{via} is not an instruction file learn may write (a CLAUDE.md, AGENTS.md, "
            ".claude/rules, .claude/commands or .claude/settings file of the project "
            f"[{where}], or the same under ~/.claude, ~/.codex; another agent's own: GEMINI.md, "
            ".github/copilot-instructions.md, .github/instructions, .cursor/rules, "
            ".windsurf/rules, .kiro/steering; links followed); nothing was written to it")
    try:
        mode = real.lstat().st_mode
    except FileNotFoundError:
        return real
    if not stat.S_ISREG(mode):
        raise ConfinementError(f"{asked}{via} is not a regular file; learn writes only text "
                               "files. Nothing was written to it")
    return real


def may_write(path: Path, projects: Iterable[Path | str | None] = ()) -> bool:
    """Whether `confine` would let learn write `path` (for choosing a destination)."""
    try:
        confine(path, projects)
    except ConfinementError:
        return False
    return True
