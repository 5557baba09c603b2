"""Where the agents' instruction files live and how a file's frontmatter is split off:
the ground both the rule corpus (learn.reduce.rules) and the other instruction
surfaces (learn.reduce.surfaces) stand on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

RuleScope = Literal["user", "project"]


def strip_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body); frontmatter is '' when the file has none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return "", text
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return "", text


def claude_home(home: Path) -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else home / ".claude"


def codex_home(home: Path) -> Path:
    override = os.environ.get("CODEX_HOME")
    return Path(override).expanduser() if override else home / ".codex"


def git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def chain(project: Path) -> list[Path]:
    """Directories from the git root (or the project itself) down to the project."""
    root = git_root(project)
    if root is None:
        return [project]
    chain = [project]
    for parent in project.parents:
        if parent == root or root in parent.parents:
            chain.append(parent)
        if parent == root:
            break
    return list(reversed(chain))
