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

The place is not enough: a cloned repository's CLAUDE.md linked to
`../../.claude/settings.json` got learn's markdown section appended to the
person's Claude Code settings (no longer JSON, so its deny rules stopped
applying), and one linked to learn's own check rules of another project broke
them, so an enforced check stopped nothing. So each surface has a `kind` (what
its text is), the name asked for and the file it leads to must be the same kind,
and learn's own files (backups, check data) are destinations only for the
writers that ask for them (`internal=True`). A file with a second name (a hard
link) is refused too: the atomic replace would give one name the new text and
leave the other the old.

The kind is not enough either: a cloned project's `CLAUDE.md` committed as a link
to `../../.claude/CLAUDE.md` (and its `.claude/settings.local.json` to the user's
settings.json) got the project's rules, deny rules and learn's check hook written
into the person's global files, applied in every project. So a project's file
leads only to a file of that same project, and a user's file (`~/.claude/CLAUDE.md`)
only to a user's file: linked into a project, the person's own rules would go into
a file the repository shares.

On Windows a name is read by Windows' rules (learn.windows_names): names
compare case-folded there, as NTFS opens them (a `claude.md` is the project's
CLAUDE.md, and was refused as no instruction file), and a path with a name Windows
does not take as spelled (`node_modules.`, made as `node_modules`; `notes:x.md`, a
stream of `notes`; `aux.md`, a device) is refused, never mapped. And a project root
that is the home folder, or above it, by another spelling realpath keeps
(`\\\\localhost\\C$\\Users\\ana`, a drive mapped to it) is no project: the person's
`.claude/settings.json` was its `.claude/settings.json`. A path on a network share is
refused, and a project root there dropped, before it is resolved: realpath asks the
share's server, with the person's login (learn.windows_names.not_opened).

A file or folder learn makes is never made beside one whose name differs from it only
in case (`claude.md` beside a new `CLAUDE.md`, in a folder that tells case apart):
the existing one is written when its own name is the surface asked for, else the
write is refused naming both (`_made_beside_no_twin`).

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

from learn import osflags, windows_names
from learn.paths import data_dir
from learn.projects import agent_home, key_within, path_key
from learn.reduce.agent_files import (
    gemini_context_name,
    gemini_file_names,
    gemini_writable_names,
    opencode_config_dir,
)
from learn.reduce.rule_places import claude_home, codex_home
from learn.report.errors import ConfinementError
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir

Base = Literal["project", "claude-home", "codex-home", "agents-home", "gemini-home",
               "copilot-home", "opencode-home", "learn-backups", "learn-checks"]

# What a file's text is, so what a writer puts in it: a link is followed only to a
# file of the kind its name says.
Kind = Literal["instructions", "command", "skill", "skill-policy", "claude-settings",
               "codex-rules", "codex-hooks", "learn-backup", "learn-check"]

KINDS: dict[Kind, str] = {
    "instructions": "markdown instructions",
    "command": "a slash command or prompt file",
    "skill": "an agent skill's SKILL.md",
    "skill-policy": "a Codex skill's agents/openai.yaml (when Codex may use it)",
    "claude-settings": "Claude Code settings JSON",
    "codex-rules": "Codex execpolicy rules",
    "codex-hooks": "Codex hooks JSON",
    "learn-backup": "learn's own data",
    "learn-check": "learn's own data",
}

# learn's own data: written only by the writers that say so (`internal=True`).
INTERNAL: frozenset[Base] = frozenset({"learn-backups", "learn-checks"})


@dataclass(frozen=True, slots=True)
class Surface:
    base: Base  # the folder `pattern` is relative to
    pattern: str  # POSIX glob; `**` is any number of folders (none hidden)
    what: str  # shown when a write is refused
    kind: Kind  # a link named as this surface must lead to a file of this kind


SURFACES: tuple[Surface, ...] = (
    # Claude Code: project memory (also nested in sub-folders, loaded there), the
    # local one, .claude/ rules, commands and settings.
    Surface("project", "CLAUDE.md", "CLAUDE.md", "instructions"),
    Surface("project", "CLAUDE.local.md", "CLAUDE.local.md", "instructions"),
    Surface("project", ".claude/CLAUDE.md", ".claude/CLAUDE.md", "instructions"),
    Surface("project", "**/CLAUDE.md", "a sub-folder's CLAUDE.md", "instructions"),
    Surface("project", ".claude/rules/**/*.md", ".claude/rules/*.md", "instructions"),
    Surface("project", ".claude/commands/**/*.md", ".claude/commands/*.md", "command"),
    Surface("project", ".claude/settings.json", ".claude/settings.json", "claude-settings"),
    Surface("project", ".claude/settings.local.json", ".claude/settings.local.json",
            "claude-settings"),
    Surface("claude-home", "CLAUDE.md", "~/.claude/CLAUDE.md", "instructions"),
    Surface("claude-home", "rules/**/*.md", "~/.claude/rules/*.md", "instructions"),
    Surface("claude-home", "commands/**/*.md", "~/.claude/commands/*.md", "command"),
    Surface("claude-home", "settings.json", "~/.claude/settings.json", "claude-settings"),
    # Codex: AGENTS.md along the tree and in its home, its rules and prompts.
    Surface("project", "AGENTS.md", "AGENTS.md", "instructions"),
    Surface("project", "AGENTS.override.md", "AGENTS.override.md", "instructions"),
    Surface("project", "**/AGENTS.md", "a sub-folder's AGENTS.md", "instructions"),
    Surface("project", "**/AGENTS.override.md", "a sub-folder's AGENTS.override.md",
            "instructions"),
    Surface("codex-home", "AGENTS.md", "~/.codex/AGENTS.md", "instructions"),
    Surface("codex-home", "AGENTS.override.md", "~/.codex/AGENTS.override.md", "instructions"),
    Surface("codex-home", "rules/*.rules", "~/.codex/rules/*.rules", "codex-rules"),
    Surface("codex-home", "prompts/*.md", "~/.codex/prompts/*.md", "command"),
    # A Codex command from 0.117.0 on (learn.report.codex_commands): a skill, one folder
    # each, in the home's `.agents/skills`. Only that shape: one folder below `skills`,
    # not hidden (Codex never looks in one), holding SKILL.md.
    Surface("agents-home", "skills/[!.]*/SKILL.md", "~/.agents/skills/<name>/SKILL.md",
            "skill"),
    # Beside it, the skill's Codex metadata, which learn writes only to say the skill is
    # used when the person names it, never on Codex's own judgement (codex_commands.
    # EXPLICIT_ONLY): that one file of that one folder, a kind of its own (no link from
    # or to a SKILL.md, a prompt or instructions), its text learn's alone.
    Surface("agents-home", "skills/[!.]*/agents/openai.yaml",
            "~/.agents/skills/<name>/agents/openai.yaml", "skill-policy"),
    # learn's check (learn.guard): Codex runs it from its hooks file.
    Surface("codex-home", "hooks.json", "~/.codex/hooks.json", "codex-hooks"),
    # The other agents' own files (learn.report.agent_targets): Gemini CLI's GEMINI.md
    # (along the tree, and its user one), Copilot CLI's instructions, Cursor's,
    # Windsurf's and Kiro's rules, OpenCode's user AGENTS.md.
    Surface("project", "GEMINI.md", "GEMINI.md", "instructions"),
    Surface("project", "**/GEMINI.md", "a sub-folder's GEMINI.md", "instructions"),
    Surface("gemini-home", "GEMINI.md", "~/.gemini/GEMINI.md", "instructions"),
    Surface("project", ".github/copilot-instructions.md", ".github/copilot-instructions.md",
            "instructions"),
    Surface("project", ".github/instructions/*.instructions.md",
            ".github/instructions/*.instructions.md", "instructions"),
    Surface("copilot-home", "copilot-instructions.md", "~/.copilot/copilot-instructions.md",
            "instructions"),
    Surface("project", ".cursor/rules/*.mdc", ".cursor/rules/*.mdc", "instructions"),
    Surface("project", ".windsurf/rules/*.md", ".windsurf/rules/*.md", "instructions"),
    Surface("project", ".kiro/steering/*.md", ".kiro/steering/*.md", "instructions"),
    Surface("opencode-home", "AGENTS.md", "~/.config/opencode/AGENTS.md", "instructions"),
    # learn's own copies of what it replaced (`learn apply --undo` restores them).
    Surface("learn-backups", "*", "learn's backups", "learn-backup"),
    # learn's check: its rules (data the fixed program reads) and install records.
    Surface("learn-checks", "*.json", "learn's check rules", "learn-check"),
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
    every CLAUDE.md below it a project file: neither is a project root. Nor is an
    agent's own folder or one in it (learn.projects.agent_homes): as a project,
    `~/.codex` had its AGENTS.md, which Codex reads in every project, written as
    one project's."""
    home = _home()
    out: dict[Path, None] = {}
    for p in projects:
        if p is None or not str(p) or not Path(p).expanduser().is_absolute():
            continue
        if windows_names.WINDOWS and windows_names.not_opened(str(p)) is not None:
            continue  # a share's folder: resolving it asks the server, with the login
        real = _real(Path(p).expanduser())
        if _home_or_above(real, home) or agent_home(str(real)) is not None:
            continue
        out.setdefault(real)
    return tuple(out)


def _home_or_above(real: Path, home: Path) -> bool:
    """Whether the resolved folder `real` is `home` or a folder holding it.

    By key: on macOS a project's key is case-folded (`/users/ana`), which as a Path
    never equalled `/Users/ana`, so home passed as a project root there. And by what
    the folder is (its device and inode): on Windows realpath keeps a share's spelling,
    so `\\\\localhost\\C$\\Users\\ana` (or a drive `net use` mapped to it) is home
    under a key of its own, as a bind mount of it is on Linux."""
    if key_within(path_key(home), path_key(real)):
        return True
    try:
        st = os.stat(real)
    except OSError:
        return False  # no folder: nothing below it is written either
    if not st.st_ino:  # a file system that gives no file ids says nothing here
        return False
    for folder in (home, *home.parents):
        try:
            above = os.stat(folder)
        except OSError:
            continue
        if (above.st_dev, above.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


# Where each user-level base is (from the person's home): another agent's home is
# one more entry here, and its files rows in SURFACES.
HOMES: dict[Base, Callable[[Path], Path]] = {
    "claude-home": claude_home,
    "codex-home": codex_home,
    "agents-home": lambda home: home / ".agents",
    "gemini-home": gemini_dir,
    "copilot-home": copilot_dir,
    "opencode-home": opencode_config_dir,
    "learn-backups": lambda home: backups_dir(),
    "learn-checks": lambda home: data_dir() / "checks",
}


def _bases(projects: tuple[Path, ...], *, resolved: bool = True) -> list[tuple[Base, Path]]:
    home = Path.home()
    out: list[tuple[Base, Path]] = [(base, _real(where(home)) if resolved else where(home))
                                    for base, where in HOMES.items()]
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


def match_pattern(parts: tuple[str, ...], pattern: str, *, fold: bool = False) -> bool:
    """Whether the relative path `parts` is a `SURFACES` pattern; `fold`: in any case, as a
    case-insensitive disk (macOS, Windows) takes a name."""
    if fold:
        parts, pattern = tuple(p.casefold() for p in parts), pattern.casefold()
    return _match(parts, PurePosixPath(pattern).parts)


def _crossable(folder: str) -> bool:
    # Case folded: on a case-insensitive disk (macOS, Windows) `Node_Modules` is the
    # same folder as `node_modules`.
    return not folder.startswith(".") and folder.casefold() not in _NOT_CROSSED


def _placed(path: Path, bases: list[tuple[Base, Path]]) -> list[tuple[Surface, Path]]:
    """Every surface `path` is, as it is spelled (no link followed here), with the folder
    it is relative to (which project, which home)."""
    out: list[tuple[Surface, Path]] = []
    for base, root in bases:
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        # Folded on Windows, where NTFS opens `claude.md` for CLAUDE.md: the file the
        # agent reads (realpath gives the case the disk has), of the kind its name says.
        found = [(s, root) for s in SURFACES if s.base == base
                 and match_pattern(rel.parts, s.pattern, fold=windows_names.WINDOWS)]
        context = None if found else _gemini_context(base, root, rel.parts)
        out.extend(found if context is None else [(context, root)])
    return out


def _gemini_context(base: Base, root: Path, parts: tuple[str, ...]) -> Surface | None:
    """The surface `root/parts` is as Gemini CLI's context file named by its settings'
    `context.fileName` (`CONTEXT.md`, its docs' example), else None.

    A row per project that SURFACES cannot hold: the name is the settings', read again
    here at write time from the folder the file is in (learn.reduce.agent_files.
    gemini_writable_names: the project's `.gemini/settings.json` nearest it, else the
    user's; a project's own name only when it is GEMINI.md, AGENTS.md, CLAUDE.md or the
    user's settings give it too), and it must be a name learn writes (gemini_context_name:
    a bare `*.md` file name, not hidden, not another agent's file), in a folder a `**` crosses, or directly
    in `~/.gemini` as the user's settings name it. The planner asks the same function,
    so it never plans a file refused here."""
    if not parts or not gemini_context_name(parts[-1]):
        return None
    name, folders = parts[-1], parts[:-1]
    if base == "project" and all(_crossable(f) for f in folders):
        try:
            names = gemini_writable_names(root.joinpath(*folders), Path.home())
        except (OSError, RuntimeError):  # a folder on the way that cannot be resolved
            return None
        if name not in names:
            return None
        return Surface("project", f"**/{name}", f"Gemini CLI's context file {name} "
                       "(its settings' context.fileName)", "instructions")
    if base == "gemini-home" and not folders and name in gemini_file_names(None, Path.home()):
        return Surface("gemini-home", name, f"~/.gemini/{name} (Gemini CLI's context file, "
                       "its settings' context.fileName)", "instructions")
    return None


def _surfaces_at(path: Path, bases: list[tuple[Base, Path]]) -> list[Surface]:
    """Every surface `path` is, as it is spelled (no link followed here)."""
    return [s for s, _ in _placed(path, bases)]


def surface_of(real: Path, projects: tuple[Path, ...]) -> Surface | None:
    """The surface the resolved path `real` is, else None."""
    return next(iter(_surfaces_at(real, _bases(projects))), None)


def _named(asked: Path, projects: Iterable[Path | str | None],
           roots: tuple[Path, ...]) -> list[tuple[Surface, Path]]:
    """The surfaces the name asked for is: what the writer means to write, each with
    the folder it is relative to, resolved (the project root as `project_roots` has it).

    Spelled as given against the homes and projects as given (a `~/.claude` that is
    itself a link to a dotfiles folder is still `~/.claude`), else with its folders
    resolved and its own name kept (a path through a linked folder of the project)."""
    given = tuple(Path(p).expanduser() for p in projects
                  if p is not None and project_roots([p]))
    for spelled, bases in ((asked, _bases(given, resolved=False)),
                           (asked, _bases(roots)),
                           (_real(asked.parent) / asked.name, _bases(roots))):
        found = _placed(spelled, bases)
        if found:
            return [(s, _real(root)) for s, root in found]
    return []


def _same_place(named: tuple[Surface, Path], landed: tuple[Surface, Path]) -> bool:
    """Whether the file a name leads to is of the same kind and the same scope as the
    name: a project's file in that project, a user's file in a user's folder (any
    agent's: `~/.codex/AGENTS.md` linked to `~/.claude/CLAUDE.md` is one person's
    rules shared between agents)."""
    (want, want_root), (got, got_root) = named, landed
    if want.kind != got.kind:
        return False
    if want.base == "project":
        # By key: two spellings of one project on a case-insensitive disk are one project.
        return got.base == "project" and path_key(got_root) == path_key(want_root)
    return got.base != "project"


def _out_of_scope(asked: Path, real: Path, named: list[tuple[Surface, Path]],
                  placed: list[tuple[Surface, Path]]) -> str:
    """The refusal of a link that leaves its scope: what the name is, where it leads."""
    projects = list(dict.fromkeys(str(root) for s, root in named if s.base == "project"))
    there = list(dict.fromkeys(str(root) for s, root in placed if s.base == "project"))
    landed = _kinds(s for s, _ in placed)
    if projects:
        where = f"a file of the project {', '.join(there)}" if there \
            else "a user's file, read in every project"
        return (f"{asked} is a file of the project {', '.join(projects)}, but it is a link "
                f"out of it to {real}: {landed}, {where}; learn writes a project's rules "
                "only into that project's own files. Nothing was written to either; make "
                "it a file of its own (or a link within the project) to have learn write there")
    return (f"{asked} is the user's {named[0][0].what}, but it is a link into the project "
            f"{', '.join(there)} ({real}); learn writes the person's own rules only into "
            "the user's files, never into a file a repository shares. Nothing was written "
            "to either")


def _kinds(surfaces: Iterable[Surface]) -> str:
    """What the surfaces are, for a refusal: the first of each kind (a CLAUDE.md is
    also "a sub-folder's CLAUDE.md", which says nothing more)."""
    first: dict[Kind, Surface] = {}
    for s in surfaces:
        first.setdefault(s.kind, s)
    return " / ".join(f"{s.what} ({KINDS[kind]})" for kind, s in first.items())


def confine(path: Path, projects: Iterable[Path | str | None] = (), *,
            internal: bool = False) -> Path:
    """The real file behind `path` when learn may write it; ConfinementError otherwise.

    May: after resolving symlinks (the file and every folder above it), the file
    is an instruction surface (`SURFACES`) under one of `projects` (absolute
    project roots) or the agents' user homes (~/.claude, ~/.codex, ~/.agents/skills,
    ~/.gemini, ~/.copilot, ~/.config/opencode), of the same kind as the name `path` is (a
    CLAUDE.md leads to markdown instructions, a settings.json to settings) and in the
    same place (a project's file in that project, a user's file in a user's folder);
    it is a regular file with no second name, or does not exist yet. learn's backups
    and check data are destinations only with `internal=True` (learn's own
    writers). Writers write the path returned, never `path` itself.

    A path that cannot be looked at (a symlink loop above it: ELOOP; a folder learn
    may not search) is refused the same way: an OSError here stopped the whole
    `learn apply` with a traceback, and the other files' plans with it."""
    try:
        return _confine(path, tuple(projects), internal=internal)
    except OSError as exc:
        raise ConfinementError(f"{path} cannot be checked ({exc.strerror or exc}); learn writes "
                               "only where it can see the file and every folder above it. "
                               "Nothing was written to it") from exc


def _confine(path: Path, projects: tuple[Path | str | None, ...], *, internal: bool) -> Path:
    asked = path.expanduser()
    if not asked.is_absolute():
        raise ConfinementError(f"{path} is a relative path; learn writes only to absolute, "
                               "checked destinations. Nothing was written")
    share = windows_names.not_opened(str(asked)) if windows_names.WINDOWS else None
    if share is not None:  # before realpath, which asks the share's server (with the login)
        raise ConfinementError(f"{asked} is {share}: on Windows, opening it sends your login "
                               "to that server. Nothing was written to it")
    real = _real(asked)
    # realpath keeps the part that does not exist yet as spelled: Windows reads it again.
    why = windows_names.path_refusal(asked) or windows_names.path_refusal(real) \
        if windows_names.WINDOWS else None
    if why is not None:
        raise ConfinementError(f"{asked} is not a name Windows keeps as it is spelled: {why}. "
                               "learn writes only a file whose name means what the check "
                               "read; nothing was written to it")
    roots = project_roots(projects)
    placed = _placed(real, _bases(roots))
    landed = [s for s, _ in placed]
    named_at = _named(asked, projects, roots)
    named = [s for s, _ in named_at]
    via = f" (a link to {real})" if real != asked and _real(asked.parent) / asked.name != real \
        else ""
    if not landed or not named:
        where = ", ".join(str(r) for r in roots) or "no project"
        raise ConfinementError(
            f"{asked}{via} is not an instruction file learn may write (a CLAUDE.md, AGENTS.md, "
            ".claude/rules, .claude/commands or .claude/settings file of the project "
            f"[{where}], or the same under ~/.claude, ~/.codex; a Codex skill's "
            "~/.agents/skills/<name>/SKILL.md and its agents/openai.yaml; another agent's "
            "own: GEMINI.md or the bare *.md name Gemini's context.fileName gives, "
            ".github/copilot-instructions.md, .github/instructions, .cursor/rules, "
            ".windsurf/rules, .kiro/steering; links followed); nothing was written to it")
    if not internal:
        landed = [s for s in landed if s.base not in INTERNAL]
        if not landed:
            raise ConfinementError(
                f"{asked}{via} is {_kinds(_surfaces_at(real, _bases(roots)))}, not an "
                "instruction file; only learn's own writers (backups, checks) write there. "
                "Nothing was written to it")
    if not {s.kind for s in landed} & {s.kind for s in named}:
        raise ConfinementError(
            f"{asked} is {_kinds(named)}, but it leads to {real}: {_kinds(landed)}; learn "
            "writes a file only as the kind of file its name says (a link from one kind to "
            "another would put one's text in the other). Nothing was written to either")
    # learn's own files need no filter here: no other surface is of their kinds.
    if not any(_same_place(n, p) for n in named_at for p in placed):
        raise ConfinementError(_out_of_scope(asked, real, named_at, placed))
    try:
        st = real.lstat()
    except FileNotFoundError:
        return _made_beside_no_twin(asked, real, projects, roots, named, internal=internal)
    if not stat.S_ISREG(st.st_mode):
        raise ConfinementError(f"{asked}{via} is not a regular file; learn writes only text "
                               "files. Nothing was written to it")
    if st.st_nlink > 1:
        raise ConfinementError(
            f"{asked}{via} has {st.st_nlink} names (hard links, e.g. a CLAUDE.md and an "
            "AGENTS.md that are one file); learn replaces a file by renaming a new one over "
            "it, which would give this name the new text and leave the others the old. "
            f"Nothing was written to it. {_one_name(asked)}")
    if st.st_nlink == 0 and windows_names.WINDOWS:
        # Windows' stat reads a file it may not open (its access list, a paging file) from
        # the folder's listing, which has no count of names: 0, which is not one.
        raise ConfinementError(
            f"{asked}{via} cannot be opened to count its names (Windows answers 0 for a file "
            "it may not open); learn replaces a file only when it has no second name. "
            "Nothing was written to it")
    return real


def _case_twins(real: Path) -> tuple[Path, list[str]] | None:
    """The first name on the way to `real` that is not there, when its folder holds
    entries spelled as it is but for case: (the missing path, those names)."""
    here = Path(real.anchor)
    for name in real.parts[1:]:
        step = here / name
        if os.path.lexists(step):
            here = step
            continue
        try:
            names = os.listdir(here)
        except OSError:
            return None
        twins = sorted(n for n in names if n != name and n.casefold() == name.casefold())
        return (step, twins) if twins else None
    return None


def _made_beside_no_twin(asked: Path, real: Path, projects: tuple[Path | str | None, ...],
                         roots: tuple[Path, ...], named: list[Surface], *,
                         internal: bool) -> Path:
    """`real`, which does not exist yet, when making it (or the folders above it) makes no
    name beside one that differs from it only in case; else the file the existing name
    leads to when that name is itself the surface asked for, spelled as the agent reads
    it; else ConfinementError naming both.

    A folder is case-sensitive on Linux, in WSL's folders and in a Windows folder made so
    (`fsutil file setCaseSensitiveInfo`): there `claude.md` and `CLAUDE.md` are two files,
    and the one learn would make beside the person's would split their rules in two, one
    half read by the agent and the other not (or both, for two `.claude/commands` files:
    the same command twice). On a folder that folds case the name exists already and
    this is never asked."""
    found = None if internal else _case_twins(real)  # learn's own files: names it gives
    if found is None:
        return real
    missing, twins = found
    rest = real.parts[len(missing.parts):]
    if len(twins) == 1:
        twin = missing.parent.joinpath(twins[0], *rest)
        kinds = {s.kind for s in named}
        if any(s.kind in kinds for s in _surfaces_at(twin, _bases(roots))):
            return _confine(twin, projects, internal=internal)
    others = " and ".join(str(missing.parent / t) for t in twins)
    made = f"{missing}" if missing == real else f"the folder {missing} (for {real})"
    raise ConfinementError(
        f"learn would make {made} beside {others}, a name that differs only in case: this "
        f"folder tells case apart, so the two are different {'files' if missing == real else 'folders'}, "
        f"and the agent reads {missing.name} as spelled. Rename "
        f"{'it' if len(twins) == 1 else 'one'} to {missing.name} (or move its text), then run "
        "again; nothing was written")


def _one_name(asked: Path) -> str:
    """What to do about a second name of `asked`, in commands of the system learn runs on:
    `ln -sf` is a POSIX command, which no Windows shell has."""
    if not windows_names.WINDOWS:
        return (f"Make the other name a symlink to this one (ln -sf {asked.name} OTHER) and "
                "run again")
    # mklink is cmd's (PowerShell: `cmd /c mklink`); making a symlink takes Developer
    # Mode or an administrator's prompt, and it will not replace a file: the other name
    # goes first. Deleting one name of a hard link leaves the file under the others.
    return ("Delete the other name (this one keeps the text), or make it a symlink to this "
            f"one: in a Command Prompt, `del OTHER` then `mklink OTHER \"{asked}\"` (making a "
            "symlink needs Windows' Developer Mode turned on, or a prompt run as "
            "administrator); then run again")


# Every file learn reads to plan a write is small text: the instruction files' budget is
# 25,000 bytes (learn.report.edits.DEFAULT_MAX_BYTES), settings files are a few KB. A
# `.claude/settings.local.json` committed as a link to /dev/zero was read until
# MemoryError; 4 MiB is 160x that budget and still bounded.
MAX_READ = 4 * 1024 * 1024
_READ_FLAGS = osflags.READ  # binary on Windows: its text mode rewrote line endings


def read_open(fd: int, shown: Path) -> bytes:
    """The bytes of the open file `fd` (`shown` names it): ConfinementError when it is
    not a regular file (a FIFO would block, a device never ends) or over MAX_READ."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ConfinementError(f"{shown} is not a regular file; learn reads and writes only "
                               "text files. Nothing was written to it")
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, 1 << 16):
        size += len(chunk)
        if size > MAX_READ:
            raise ConfinementError(f"{shown} is over {MAX_READ // (1024 * 1024)} MB; learn reads "
                                   "only instruction and settings files, which are a few KB. "
                                   "Nothing was written to it")
        chunks.append(chunk)
    return b"".join(chunks)


def read_regular(path: Path, *, follow: bool = True) -> bytes | None:
    """`path`'s bytes, None when there is no such file; ConfinementError for anything
    but a regular file of at most MAX_READ (read_open). For a file read before it is
    confined (a check's settings, a note about a checked-in settings.json): opened
    without blocking, and bounded, whatever it leads to."""
    flags = _READ_FLAGS | (0 if follow else osflags.NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    try:
        return read_open(fd, path)
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    finally:
        os.close(fd)


def _unreadable(path: Path, exc: OSError) -> ConfinementError:
    return ConfinementError(f"{path} cannot be read ({exc.strerror or exc}); nothing was "
                            "written to it")


def learns_own(path: Path) -> bool:
    """Whether `path`, as spelled (no link followed), names a file of learn's own data.

    For the writers handed a plan learn made itself (a `learn apply` of a check
    writes its data file; `--undo` puts it back): the plan names learn's file, so
    they ask for learn's files (`internal=True`) for it. A name of a project or a
    home never passes this, and it is still confined to the same kind of file."""
    asked = path.expanduser()
    bases = [(base, root) for base, root in (*_bases((), resolved=False), *_bases(()))
             if base in INTERNAL]
    return asked.is_absolute() and bool(_surfaces_at(asked, bases))


def may_write(path: Path, projects: Iterable[Path | str | None] = (), *,
              internal: bool = False) -> bool:
    """Whether `confine` would let learn write `path` (for choosing a destination)."""
    try:
        confine(path, projects, internal=internal)
    except ConfinementError:
        return False
    return True
