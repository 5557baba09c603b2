"""The user's written rules and skills: the corpus coverage checks proposals against.

Files read (missing ones skipped, unreadable ones counted):
- user: ~/.claude/CLAUDE.md, ~/.claude/rules/**/*.md, ~/.codex/AGENTS.md,
  skills ~/.claude/skills/*/SKILL.md;
- project: CLAUDE.md and AGENTS.md in every directory from the git root down to
  the project directory, .claude/CLAUDE.md, .claude/rules/**/*.md,
  CLAUDE.local.md, skills .claude/skills/*/SKILL.md;
- the other agents' own files (GEMINI.md, Copilot's instructions, Cursor's, Windsurf's
  and Kiro's rules: learn.reduce.agent_files), their path scoping read from their
  frontmatter.
Each non-blank line of prose (learn.reduce.instruction_prose) becomes a rule line with
its file and heading path, so "restated" can point at the exact line to rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from learn.redaction.redact import redact
from learn.reduce.agent_files import other_rule_files, scope_globs
from learn.reduce.instruction_prose import prose_of
from learn.reduce.rule_places import (
    RuleScope,
    chain,
    claude_home,
    codex_home,
    strip_frontmatter,
    unquote,
)
from learn.reduce.surfaces import more_rule_files, paths_of

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


@dataclass(frozen=True, slots=True)
class RuleLine:
    file: str
    heading: tuple[str, ...]
    text: str  # the line, bullet marker removed
    scope: RuleScope = "project"

    def display(self) -> str:
        return " > ".join((*self.heading, self.text))


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    file: str
    scope: RuleScope = "project"


@dataclass(frozen=True, slots=True)
class RuleCorpus:
    rules: tuple[RuleLine, ...] = ()
    skills: tuple[Skill, ...] = ()
    files: tuple[str, ...] = ()  # files actually read
    unreadable: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.rules and not self.skills

    @classmethod
    def merge(cls, corpora: Sequence[RuleCorpus]) -> RuleCorpus:
        """Several projects' corpora as one (a run over all projects); the user's
        own files appear in each and are kept once."""
        rules: dict[tuple[str, tuple[str, ...], str], RuleLine] = {}
        skills: dict[tuple[str, str], Skill] = {}
        files: dict[str, None] = {}
        unreadable: dict[str, None] = {}
        for c in corpora:
            for r in c.rules:
                rules.setdefault((r.file, r.heading, r.text), r)
            for sk in c.skills:
                skills.setdefault((sk.file, sk.name), sk)
            files.update(dict.fromkeys(c.files))
            unreadable.update(dict.fromkeys(c.unreadable))
        return cls(tuple(rules.values()), tuple(skills.values()), tuple(files), tuple(unreadable))


def rule_lines_of(text: str, file: str, scope: RuleScope = "project") -> list[RuleLine]:
    """Every line of prose, with its heading path. Which lines are prose (not front
    matter, fenced or indented code, nor inside a comment) is decided by
    learn.reduce.instruction_prose, the same reading `learn apply` rewrites by: a line
    this corpus offers as "restated" is one the writer may rewrite."""
    out: list[RuleLine] = []
    path: list[tuple[int, str]] = []
    for seen in prose_of(text.splitlines()).lines:
        if seen is None or not seen.text.strip():
            continue
        line = seen.text
        h = _HEADING.match(line)
        if h:
            depth = len(h.group(1))
            while path and path[-1][0] >= depth:
                path.pop()
            path.append((depth, h.group(2)))
            continue
        content = _BULLET.sub("", line).strip()
        if content:
            out.append(RuleLine(file, tuple(t for _, t in path), content, scope))
    return out


def frontmatter_fields(text: str) -> dict[str, str]:
    """Top-level `key: value` pairs of YAML frontmatter, with `|`/`>` blocks and
    indented continuation lines folded into one line. Enough for SKILL.md."""
    front, _ = strip_frontmatter(text)
    out: dict[str, str] = {}
    key: str | None = None
    parts: list[str] = []

    def flush() -> None:
        if key is not None:
            out[key] = " ".join(p for p in parts if p).strip()

    for line in front.splitlines():
        if line and not line[0].isspace() and ":" in line:
            flush()
            key, _, value = line.partition(":")
            key = key.strip()
            value = value.strip()
            parts = [] if value in ("|", ">", "|-", ">-", "") else [unquote(value)]
        elif key is not None and line.strip():
            parts.append(line.strip())
    flush()
    return out


def _md_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*.md") if p.is_file())


def rule_files(project: Path | None, home: Path | None = None) -> list[tuple[Path, RuleScope]]:
    home = home or Path.home()
    claude = claude_home(home)
    files: list[tuple[Path, RuleScope]] = [
        (claude / "CLAUDE.md", "user"),
        *((p, "user") for p in _md_files(claude / "rules")),
        (codex_home(home) / "AGENTS.md", "user"),
    ]
    if project is not None:
        for directory in chain(project):
            files.append((directory / "CLAUDE.md", "project"))
            files.append((directory / "AGENTS.md", "project"))
        files.append((project / ".claude" / "CLAUDE.md", "project"))
        files.extend((p, "project") for p in _md_files(project / ".claude" / "rules"))
        files.append((project / "CLAUDE.local.md", "project"))
    seen: set[Path] = set()
    out: list[tuple[Path, RuleScope]] = []
    for path, scope in files:
        if not path.is_file():
            continue
        real = path.resolve()
        if real in seen:
            continue
        seen.add(real)
        out.append((path, scope))
    return out


def skill_files(project: Path | None, home: Path | None = None) -> list[tuple[Path, RuleScope]]:
    home = home or Path.home()
    dirs: list[tuple[Path, RuleScope]] = [(claude_home(home) / "skills", "user")]
    if project is not None:
        dirs.append((project / ".claude" / "skills", "project"))
    out: list[tuple[Path, RuleScope]] = []
    for directory, scope in dirs:
        if directory.is_dir():
            out.extend((p, scope) for p in sorted(directory.glob("*/SKILL.md")) if p.is_file())
    return out


def rule_sources(project: Path | None, home: Path | None = None
                 ) -> tuple[list[tuple[Path, RuleScope]], list[tuple[Path, RuleScope]]]:
    """The rule files and the skills `collect_rules` reads (learn.pipeline.warm stats
    them to know whether they changed since a run)."""
    files = rule_files(project, home)
    # Every surface the agents read: @imports, AGENTS.override.md, auto-memory, Codex
    # memories (learn.reduce.surfaces); the other agents' own files (learn.reduce.agent_files).
    files += more_rule_files(project, [p for p, _ in files], (home or Path.home()))
    known = {p.resolve() for p, _ in files}
    files += [(p, s) for p, s in other_rule_files(project, home or Path.home())
              if p.resolve() not in known]
    return files, skill_files(project, home)


def loaded_files(folder: Path | None) -> set[str]:
    """The rule files and skills the agents load in the project at `folder` (None: every
    project's, a user's own), as comparable keys (real path, `projects.path_key`)."""
    import os

    from learn.projects import path_key

    rules, skills = rule_sources(folder)
    return {path_key(os.path.realpath(f)) for f, _ in (*rules, *skills)}


def loads_in(file: str | Path, folder: Path | None, *,
             loaded: set[str] | None = None) -> bool:
    """Whether the agents load `file` in the project at `folder` (None: in every project,
    a user's own file such as ~/.claude/CLAUDE.md): one of the files coverage reads there
    (`rule_sources`). Another project's CLAUDE.md is not: from notes-api, `apply --project
    notes-api` rewrote shopfront's line, which notes-api's agent never reads, and its
    "Did the rules work?" measured it (e2e audit, 2026-12). `loaded`: `loaded_files(folder)`
    when the caller asks of many files."""
    import os

    from learn.projects import path_key

    found = loaded_files(folder) if loaded is None else loaded
    return path_key(os.path.realpath(Path(file).expanduser())) in found


def collect_rules(project: Path | None, home: Path | None = None) -> RuleCorpus:
    """Read the user's rule files and skills; never raises on a bad file."""
    rules: list[RuleLine] = []
    skills: list[Skill] = []
    read: list[str] = []
    bad: list[str] = []

    def read_text(path: Path) -> str | None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            bad.append(str(path))
            return None
        read.append(str(path))
        # Rule lines go to the model (coverage) and into stored proposals: a key
        # someone keeps in ~/.claude/CLAUDE.md is redacted like any transcript text.
        return redact(text)

    files, skills_at = rule_sources(project, home)
    for path, scope in files:
        if (text := read_text(path)) is not None:
            lines = rule_lines_of(text, str(path), scope)
            scoped = paths_of(text) or scope_globs(text, path)
            if scoped:  # loaded only where these globs match: the judge should know
                where = f"(loaded only for {', '.join(scoped)})"
                lines = [RuleLine(r.file, (where, *r.heading), r.text, r.scope) for r in lines]
            rules.extend(lines)
    for path, scope in skills_at:
        if (text := read_text(path)) is None:
            continue
        fields = frontmatter_fields(text)
        description = fields.get("description", "").strip()
        if description:
            skills.append(Skill(fields.get("name") or path.parent.name, description, str(path), scope))
    return RuleCorpus(tuple(rules), tuple(skills), tuple(read), tuple(bad))
