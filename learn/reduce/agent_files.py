"""The other agents' instruction files: where they are, which agent reads which, their scoping.

Facts from each agent's documentation (2026): Gemini CLI reads `GEMINI.md` (the
user's `~/.gemini/GEMINI.md`, and one in every folder from the git root down, and
below), or the names its settings' `context.fileName` gives (a string or a list);
Copilot CLI reads `.github/copilot-instructions.md`, the path-specific
`.github/instructions/**/*.instructions.md` (frontmatter `applyTo`: comma-separated
globs), AGENTS.md, and the user's `~/.copilot/copilot-instructions.md` and
`~/.copilot/instructions/**/*.instructions.md`; Cursor reads `.cursor/rules/**/*.mdc`
only (plain `.md` there is ignored; frontmatter `description`, `globs`,
`alwaysApply`) and AGENTS.md; Windsurf reads `.windsurf/rules/*.md` (frontmatter
`trigger`: `always_on | model_decision | glob | manual`, `globs`; 12,000 characters
a file) and AGENTS.md; Kiro reads `.kiro/steering/*.md` (frontmatter `inclusion`:
`always | fileMatch | manual | auto`, `fileMatchPattern`); OpenCode reads AGENTS.md
(CLAUDE.md when there is none); Codex AGENTS.md, or the AGENTS.override.md
beside it in its place.

Coverage reads every one of them (`other_rule_files`), so a rule written for one
agent is not proposed again as new; `readers_of` says which agents read a file, so
a rule written for one agent and said to another is reported as missing there.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Final, Literal, NamedTuple

from learn import osflags, windows_names
from learn.reduce.rule_places import (
    RuleScope,
    chain,
    claude_home,
    codex_home,
    frontmatter_value,
    strip_frontmatter,
)
from learn.reduce.surfaces import imports_of, paths_of
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir

__all__ = [
    "ALWAYS",
    "FILE_AGENTS",
    "GeminiContext",
    "Loading",
    "agents_with_files",
    "codex_doc",
    "gemini_context",
    "gemini_context_name",
    "gemini_context_refusal",
    "gemini_file_names",
    "gemini_writable_names",
    "loading",
    "opencode_config_dir",
    "other_rule_files",
    "readers_of",
    "scope_globs",
]

# Agents learn writes for that it reads no sessions of (their files only).
FILE_AGENTS: Final = ("cursor", "windsurf", "kiro")
WINDSURF_MAX_CHARS: Final = 12_000
_AGENTS_MD_READERS: Final = frozenset({"codex", "opencode", "copilot", "cursor", "windsurf"})
_GEMINI_DEFAULT: Final = ("GEMINI.md",)


def codex_doc(folder: Path) -> Path:
    """The file Codex reads in `folder`: AGENTS.override.md when it is there, else AGENTS.md.

    Codex reads the override in place of AGENTS.md in its folder (field notes: "AGENTS.
    override.md before AGENTS.md"; the same for `~/.codex`), so a rule appended to the
    AGENTS.md beside one was reported written and never read by Codex. learn writes to
    the override then, rather than refusing: it is the file Codex reads today, and a rule
    moved out with the override's other lines is still in the person's hands, where a
    refusal would leave Codex without it until the override is gone. The other agents
    that read AGENTS.md do not read the override, and get AGENTS.md (learn.report.agent_rule_files)."""
    override = folder / "AGENTS.override.md"
    return override if override.is_file() else folder / "AGENTS.md"


def _names(value: object) -> tuple[str, ...] | None:
    """`context.fileName` as names: a string, or a list of strings (Gemini CLI's settings
    schema takes both); None when it is unset or neither."""
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list):
        names = tuple(v.strip() for v in value if isinstance(v, str) and v.strip())
        return names or None
    return None


# A settings file is a few KB; one committed as a link to /dev/zero (or a FIFO) is not
# read without end (as learn.report.confine.read_regular, which this layer cannot import).
_SETTINGS_MAX: Final = 1024 * 1024


def _settings_text(settings: Path) -> str | None:
    try:
        fd = os.open(settings, osflags.READ)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, _SETTINGS_MAX + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace") if len(data) <= _SETTINGS_MAX else None


def _gemini_setting(settings: Path) -> tuple[str, ...] | None:
    text = _settings_text(settings)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    context = data.get("context") if isinstance(data, dict) else None
    return _names(context.get("fileName")) if isinstance(context, dict) else None


class _Named(NamedTuple):
    """Gemini's context names in a folder, and the project's settings file that named
    them (None: the user's settings, or Gemini's default)."""

    names: tuple[str, ...]
    project_settings: Path | None


def _named(folder: Path | None, home: Path) -> _Named:
    if folder is not None:
        # From the folder up to its checkout's root (rule_places.chain): above it is not
        # this project's setting.
        for d in reversed(chain(folder)):
            settings = d / ".gemini" / "settings.json"
            names = _gemini_setting(settings)
            if names:
                return _Named(names, settings)
    return _Named(_user_names(home) or _GEMINI_DEFAULT, None)


def _user_names(home: Path) -> tuple[str, ...]:
    """`context.fileName` of the person's own `~/.gemini/settings.json` (none: ())."""
    return _gemini_setting(gemini_dir(home) / "settings.json") or ()


def gemini_file_names(folder: Path | None, home: Path) -> tuple[str, ...]:
    """The context files Gemini CLI reads in each folder: `context.fileName` of the
    project's `.gemini/settings.json` (the nearest one from `folder` up to its checkout's
    root), else of the user's, else GEMINI.md. A project set to `AGENTS.md` never reads a
    GEMINI.md learn made beside it (measured in the audit of 2026-12: the rule went
    nowhere Gemini looked). What Gemini reads, not what learn writes: gemini_writable_names."""
    return _named(folder, home).names


# The longest file name the common file systems take (ext4, APFS, NTFS in UTF-16 units
# aside): a longer one was planned and then refused by the writer ("File name too long").
_NAME_MAX_BYTES: Final = 255
# The context names written through a surface of their own (learn.report.confine.SURFACES).
_GEMINI_OWN_ROWS: Final = ("GEMINI.md", "AGENTS.md", "CLAUDE.md")
# Other agents' control files, by name in any case: a case-insensitive disk (macOS,
# Windows) takes `claude.md` for CLAUDE.md; Claude Code's local file and Codex's
# override are theirs, not Gemini's to be written into.
_CONTROL_NAMES: Final = frozenset(n.casefold() for n in (
    "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md",
    "copilot-instructions.md"))
# Why a project's own context name is not written (gemini_writable_names).
_PROJECT_ONLY: Final = "from this project's settings alone (they come with a clone)"


def gemini_context_refusal(name: str) -> str | None:
    """Why learn does not write Gemini's context file `name` (a `context.fileName`
    entry), None when it does: the one rule the planner (learn.report.agent_rule_files) and
    the writer's confinement (learn.report.confine) both ask.

    Gemini CLI reads any name its settings give as its context (its docs' example is
    `CONTEXT.md`), so that file is an instruction surface; but a project's
    `.gemini/settings.json` comes with a cloned repository, so only a bare `*.md` file
    name is one: no folder in it (`docs/ctx.md`, `../../home/.bashrc.md`, `C:ctx.md`),
    not hidden, not another agent's control file. GEMINI.md, AGENTS.md and CLAUDE.md
    are written as themselves. Before, any other name was planned and then refused by
    the writer: every `learn apply` exited 1 and Gemini got nothing (audit of 2026-12).
    By name only: where the name comes from (a project's settings, or the person's) is
    gemini_writable_names' question.

    On Windows a name Windows does not keep as spelled (learn.windows_names: a DOS
    device's `AUX.md`, `COM1.md`, a `*?"<>|` in it) is not written either: it was
    planned as Gemini's file and then refused by the writer, which asks the same rule."""
    if name in _GEMINI_OWN_ROWS:
        return None
    if any(c in name for c in "/\\:\0") or name in (".", ".."):
        return "a path, not a file name"
    if name.startswith("."):
        return "a hidden file"
    if not name.casefold().endswith(".md"):
        return "not a .md file"
    if name.casefold() in _CONTROL_NAMES or name.casefold().endswith(".instructions.md"):
        return "another agent's own file"
    if any(not c.isprintable() for c in name):
        return "a name with control characters"
    if len(name.encode("utf-8", "surrogateescape")) > _NAME_MAX_BYTES:
        return "a name longer than a file's name can be"
    windows = windows_names.name_refusal(name) if windows_names.WINDOWS else None
    if windows is not None:
        return f"not a name Windows keeps ({windows})"
    return None


def gemini_context_name(name: str) -> bool:
    """Whether learn may write Gemini's context file named `name` (gemini_context_refusal)."""
    return gemini_context_refusal(name) is None


class GeminiContext(NamedTuple):
    """The context file learn writes Gemini's rules to in a folder: `name`, or None and
    `why` (one line: Gemini gets nothing)."""

    name: str | None
    why: str = ""


def _refusal(name: str, named: _Named, home: Path) -> str | None:
    """Why learn does not write the context file `name` of `named`: gemini_context_refusal,
    then, for a name only a project's settings give, _PROJECT_ONLY: a project's own
    settings may name GEMINI.md, AGENTS.md or CLAUDE.md (the others learn knows by name,
    CLAUDE.local.md, AGENTS.override.md, copilot-instructions.md, are other agents')."""
    why = gemini_context_refusal(name)
    if why is not None or named.project_settings is None or name in _GEMINI_OWN_ROWS:
        return why
    return None if name in _user_names(home) else _PROJECT_ONLY


def gemini_writable_names(folder: Path | None, home: Path) -> tuple[str, ...]:
    """The names of gemini_file_names(folder, home) learn writes: each a name learn writes
    (gemini_context_name) and, when a project's own settings give them, GEMINI.md,
    AGENTS.md or CLAUDE.md, or a name the person's `~/.gemini/settings.json` gives too.

    A project's `.gemini/settings.json` comes with a clone: one naming `README.md` as
    Gemini's context made learn write rules into the project's README (an audit of
    2026-12). Gemini CLI still reads that file, and coverage still counts it as read
    (readers_of); learn only does not write it. The planner (gemini_context) and the
    writer's confinement (learn.report.confine) both ask this."""
    named = _named(folder, home)
    return tuple(n for n in named.names if _refusal(n, named, home) is None)


def gemini_context(folder: Path | None, home: Path) -> GeminiContext:
    """The first of Gemini's context names in `folder` (gemini_file_names; None: the
    user's) that learn writes (gemini_writable_names); Gemini reads every one of them."""
    named = _named(folder, home)
    refusals = [(n, _refusal(n, named, home)) for n in named.names]
    for name, why in refusals:
        if why is None:
            return GeminiContext(name)
    said = "; ".join(f"`{n}` is {why}" for n, why in refusals)
    user = gemini_dir(home) / "settings.json"
    where = named.project_settings or user
    rule = "learn writes only a bare *.md file name, not hidden, not another agent's own" \
        + (", one Windows keeps as spelled" if windows_names.WINDOWS else "")
    if named.project_settings is not None:
        rule += f"; from a project's settings, only GEMINI.md, AGENTS.md, CLAUDE.md or a name {user} gives too"
    return GeminiContext(None, f"Gemini CLI gets nothing: {where} names no context file "
                               f"(context.fileName) learn writes ({said}); {rule}")


def opencode_config_dir(home: Path) -> Path:
    """OpenCode's user folder, where it reads the person's own AGENTS.md."""
    value = os.environ.get("XDG_CONFIG_HOME")
    return (Path(value).expanduser() if value else home / ".config") / "opencode"


def _files(directory: Path, pattern: str) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob(pattern) if p.is_file())


def other_rule_files(project: Path | None, home: Path) -> list[tuple[Path, RuleScope]]:
    """Gemini CLI's, Copilot CLI's, Cursor's, Windsurf's and Kiro's instruction files that
    exist, user's first; (path, scope)."""
    out: list[tuple[Path, RuleScope]] = [
        (gemini_dir(home) / "GEMINI.md", "user"),
        (copilot_dir(home) / "copilot-instructions.md", "user"),
        *((p, "user") for p in _files(copilot_dir(home) / "instructions", "**/*.instructions.md")),
    ]
    if project is not None:
        out += [(d / "GEMINI.md", "project") for d in chain(project)]
        github = project / ".github"
        out.append((github / "copilot-instructions.md", "project"))
        out += [(p, "project") for p in _files(github / "instructions", "**/*.instructions.md")]
        out += [(p, "project") for p in _files(project / ".cursor" / "rules", "**/*.mdc")]
        out += [(p, "project") for p in _files(project / ".windsurf" / "rules", "*.md")]
        out += [(p, "project") for p in _files(project / ".kiro" / "steering", "*.md")]
        out += [(project / legacy, "project") for legacy in (".cursorrules", ".windsurfrules")]
    return [(p, s) for p, s in out if p.is_file()]


def readers_of(path: str | Path, home: Path | None = None) -> frozenset[str]:
    """The agents that read the instruction file `path` (by its name and place)."""
    p = Path(path)
    name, parts = p.name, p.parts
    home = home or Path.home()
    if name in ("CLAUDE.md", "CLAUDE.local.md") or ".claude" in parts:
        # OpenCode reads a CLAUDE.md where there is no AGENTS.md: counted as Claude Code's.
        return frozenset({"claude"})
    gemini = frozenset({"gemini"})
    if name == "AGENTS.override.md":
        # Codex's own: the other agents read AGENTS.md, never the override.
        return frozenset({"codex"})
    if name == "AGENTS.md":
        # An override beside it is what Codex reads in this folder (codex_doc).
        codex = frozenset() if codex_doc(p.parent) != p else frozenset({"codex"})
        if codex_home(home) in p.parents:
            return codex
        readers = (_AGENTS_MD_READERS - {"codex"}) | codex
        readers |= gemini if _gemini_reads(p, home) else frozenset()
        return readers | {"claude"} if _claude_reads(p) else readers
    if name == "GEMINI.md":
        return gemini if _gemini_reads(p, home) else frozenset()
    if name == "copilot-instructions.md" or name.endswith(".instructions.md"):
        return frozenset({"copilot"})
    if name.endswith(".mdc") or name == ".cursorrules":
        return frozenset({"cursor"})
    if ".windsurf" in parts or name == ".windsurfrules":
        return frozenset({"windsurf"})
    if ".kiro" in parts:
        return frozenset({"kiro"})
    if claude_home(home) in p.parents:
        return frozenset({"claude"})
    # A context file a project names in Gemini's settings (`context.fileName`).
    return gemini if name.endswith(".md") and _gemini_reads(p, home) else frozenset()


_HTML_COMMENT: Final = re.compile(r"<!--.*?-->", re.S)


def _imports(text: str, agents_md: Path) -> bool:
    """Whether a context file beside `agents_md` imports it (`@AGENTS.md`, `@./AGENTS.md`),
    as its agent reads the file: not in code, nor in an HTML comment (stripped before the
    model sees the text; an `@AGENTS.md` commented out was taken for an import)."""
    want = agents_md.resolve()
    return any(p.resolve() == want
               for p in imports_of(_HTML_COMMENT.sub("", text), agents_md.parent))


def _claude_reads(agents_md: Path) -> bool:
    """Claude Code reads an AGENTS.md where no CLAUDE.md is beside it, or where the
    CLAUDE.md there imports it (`@AGENTS.md`, the usual way to share one file)."""
    claude_md = agents_md.with_name("CLAUDE.md")
    try:
        text = claude_md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return _imports(text, agents_md)


def _gemini_reads(path: Path, home: Path) -> bool:
    """Gemini CLI reads a file named in its `context.fileName` (gemini_file_names), and
    an AGENTS.md that a context file beside it imports (`@AGENTS.md`, its memory import)."""
    names = gemini_file_names(path.parent, home)
    if path.name in names:
        return True
    if path.name != "AGENTS.md":
        return False
    for name in names:
        try:
            text = path.with_name(name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if _imports(text, path):
            return True
    return False


def agents_with_files(project: Path) -> set[str]:
    """The agents whose own instruction files (or folders) the project holds."""
    found: set[str] = set()
    checks = {
        "claude": ("CLAUDE.md", ".claude", "CLAUDE.local.md"),
        "gemini": ("GEMINI.md", ".gemini"),
        "copilot": (".github/copilot-instructions.md", ".github/instructions"),
        "cursor": (".cursor/rules", ".cursorrules"),
        "windsurf": (".windsurf/rules", ".windsurfrules"),
        "kiro": (".kiro/steering",),
        "codex": (".codex",),
    }
    for agent, names in checks.items():
        if any((project / n).exists() for n in names):
            found.add(agent)
    return found


def _globs(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else value.split(",")
    return [g.strip() for g in items if g.strip()]


def scope_globs(text: str, path: str | Path) -> list[str]:
    """The globs an agent loads this file for; [] when it is loaded always (or on request)."""
    front, _ = strip_frontmatter(text)
    if not front:
        return []
    name = Path(path).name
    if name.endswith(".instructions.md"):
        globs = _globs(frontmatter_value(front, "applyTo"))
        return [] if globs in (["**"], ["**/*"]) else globs
    if name.endswith(".mdc"):
        if str(frontmatter_value(front, "alwaysApply")).strip().lower() == "true":
            return []
        return _globs(frontmatter_value(front, "globs"))
    if ".windsurf" in Path(path).parts:
        return _globs(frontmatter_value(front, "globs")) if frontmatter_value(front, "trigger") == "glob" else []
    if ".kiro" in Path(path).parts:
        return _globs(frontmatter_value(front, "fileMatchPattern")) \
            if frontmatter_value(front, "inclusion") == "fileMatch" else []
    return []


# When an agent loads a rule file: on every request, only when asked for (the person
# names it, or the model picks it by its description), or for the files its globs match.
# `scope_globs` says [] for the first two alike, and a rule meant for every request
# appended to a file of the second kind is never read unless asked for.
Loading = frozenset[str] | Literal["always", "on request"]
ALWAYS: Final = "always"
_ON_REQUEST: Final = "on request"


def loading(text: str, path: str | Path) -> Loading:
    """When the agent that reads the rule file `path` (holding `text`) loads it.

    By each agent's own keys and defaults (agent docs, 2026): Copilot's `applyTo`
    (none: attached by hand only; `**` every file), Cursor's `alwaysApply` then
    `globs` (neither: agent requested or manual), Windsurf's `trigger` (`always_on`,
    `glob`; anything else, or none, is not loaded always), Kiro's `inclusion`
    (`always` when absent; `manual`, `auto` on request), and any other file (Claude
    Code's `.claude/rules`) by its `paths:`, loaded always without them."""
    p = Path(path)
    front, _ = strip_frontmatter(text)
    globs = frozenset(scope_globs(text, p))
    if p.name.endswith(".instructions.md"):
        applies = _globs(frontmatter_value(front, "applyTo"))
        return globs or (ALWAYS if applies else _ON_REQUEST)
    if p.name.endswith(".mdc"):
        if str(frontmatter_value(front, "alwaysApply")).strip().lower() == "true":
            return ALWAYS
        return globs or _ON_REQUEST
    if ".windsurf" in p.parts:
        return globs or (ALWAYS if frontmatter_value(front, "trigger") == "always_on"
                         else _ON_REQUEST)
    if ".kiro" in p.parts:
        inclusion = frontmatter_value(front, "inclusion") or ALWAYS
        return globs or (ALWAYS if inclusion == ALWAYS else _ON_REQUEST)
    return frozenset(paths_of(text)) or ALWAYS
