"""The other agents' instruction files: where they are, which agent reads which, their scoping.

Facts from each agent's documentation (2026): Gemini CLI reads `GEMINI.md` (the
user's `~/.gemini/GEMINI.md`, and one in every folder from the git root down, and
below); Copilot CLI reads `.github/copilot-instructions.md`, the path-specific
`.github/instructions/**/*.instructions.md` (frontmatter `applyTo`: comma-separated
globs), AGENTS.md, and the user's `~/.copilot/copilot-instructions.md` and
`~/.copilot/instructions/**/*.instructions.md`; Cursor reads `.cursor/rules/**/*.mdc`
only (plain `.md` there is ignored; frontmatter `description`, `globs`,
`alwaysApply`) and AGENTS.md; Windsurf reads `.windsurf/rules/*.md` (frontmatter
`trigger`: `always_on | model_decision | glob | manual`, `globs`; 12,000 characters
a file) and AGENTS.md; Kiro reads `.kiro/steering/*.md` (frontmatter `inclusion`:
`always | fileMatch | manual | auto`, `fileMatchPattern`); OpenCode reads AGENTS.md
(CLAUDE.md when there is none); Codex AGENTS.md.

Coverage reads every one of them (`other_rule_files`), so a rule written for one
agent is not proposed again as new; `readers_of` says which agents read a file, so
a rule written for one agent and said to another is reported as missing there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final, Literal

from learn.records.proposal import Proposal
from learn.reduce.rule_places import (
    RuleScope,
    chain,
    claude_home,
    codex_home,
    frontmatter_value,
    strip_frontmatter,
)
from learn.reduce.surfaces import paths_of
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir
from learn.transcripts.ids import AGENT_NAMES

__all__ = [
    "ALWAYS",
    "FILE_AGENTS",
    "Loading",
    "agents_with_files",
    "heard_by_a_reader",
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
    if name in ("AGENTS.md", "AGENTS.override.md"):
        if codex_home(home) in p.parents:
            return frozenset({"codex"})
        if name == "AGENTS.md" and _claude_reads(p):
            return _AGENTS_MD_READERS | {"claude"}
        return _AGENTS_MD_READERS
    if name == "GEMINI.md":
        return frozenset({"gemini"})
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
    return frozenset()


def _claude_reads(agents_md: Path) -> bool:
    """Claude Code reads an AGENTS.md where no CLAUDE.md is beside it, or where the
    CLAUDE.md there imports it (`@AGENTS.md`, the usual way to share one file)."""
    claude_md = agents_md.with_name("CLAUDE.md")
    try:
        text = claude_md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return "@AGENTS.md" in text or "@./AGENTS.md" in text


def heard_by_a_reader(p: Proposal, file: str) -> bool:
    """Whether an agent `p` was said to reads `file` (unknown agents or file: yes). A rule
    said again to an agent that reads it is restated; one written only for other agents is
    missing where it was said."""
    readers = readers_of(file)
    said_to = {a for a, _ in p.agents if a in AGENT_NAMES}  # a team run's sessions name none
    return not readers or not said_to or bool(said_to & readers)


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
