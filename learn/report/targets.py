"""Which file a rule goes to.

Default: the verdict's scope picks the file Claude Code loads for that scope
(user -> ~/.claude/CLAUDE.md, project -> the project's CLAUDE.md). Per run the
user can send rules to `.claude/rules/<topic>.md` (keeps the main file short;
Claude Code loads those files too), to AGENTS.md (Codex reads it), or to one
explicit file. A restated rule is rewritten where it already is, whatever the
choice: adding a second copy elsewhere is exactly the bloat the rewrite avoids.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from learn.reduce.types import Proposal, Scope

TargetKind = Literal["claude", "rules", "agents"]


@dataclass(frozen=True, slots=True)
class TargetChoice:
    project_dir: Path
    kind: TargetKind = "claude"
    scope: Scope | None = None  # overrides the verdict's scope for every rule
    file: Path | None = None  # overrides everything but restated rewrites
    # When the user did not name a project, a project-scope rule goes to the
    # project it was said in (a run over all projects mixes several), if all of
    # its quotes come from one; otherwise to `project_dir`.
    follow_quotes: bool = False


def claude_home() -> Path:
    # Claude Code honours CLAUDE_CONFIG_DIR in place of ~/.claude.
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path.home() / ".claude"


def codex_home() -> Path:
    value = os.environ.get("CODEX_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codex"


def project_root(start: Path) -> Path:
    """The nearest ancestor holding .git (where Claude Code looks for CLAUDE.md), else `start`."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def slug(text: str, fallback: str = "general") -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:48].strip("-") or fallback


def topic_for(p: Proposal) -> str:
    category = p.verdict.category if p.verdict else ""
    return slug(category or p.label)


def scope_for(p: Proposal, choice: TargetChoice) -> Scope:
    if choice.scope is not None:
        return choice.scope
    return p.verdict.scope if p.verdict else "project"


def _quoted_project(p: Proposal) -> Path | None:
    projects = {q.project for q in p.quotes if q.project}
    if len(projects) != 1 or any(q.project is None for q in p.quotes):
        return None
    only = Path(projects.pop())
    return only if only.is_dir() else None


def project_claude_md(root: Path) -> Path:
    # Both ./CLAUDE.md and ./.claude/CLAUDE.md are loaded; write to the one in use.
    top, nested = root / "CLAUDE.md", root / ".claude" / "CLAUDE.md"
    return nested if nested.exists() and not top.exists() else top


def choose_target(p: Proposal, choice: TargetChoice) -> Path:
    if p.status == "restated" and p.existing_rule_file:
        existing = Path(p.existing_rule_file).expanduser()
        if existing.is_file():
            return existing
    if choice.file is not None:
        return choice.file.expanduser()
    scope = scope_for(p, choice)
    quoted = _quoted_project(p) if choice.follow_quotes else None
    root = project_root(quoted or choice.project_dir)
    if choice.kind == "agents":
        return codex_home() / "AGENTS.md" if scope == "user" else root / "AGENTS.md"
    if choice.kind == "rules":
        base = claude_home() if scope == "user" else root / ".claude"
        return base / "rules" / f"{topic_for(p)}.md"
    return claude_home() / "CLAUDE.md" if scope == "user" else project_claude_md(root)
