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


def chain(project: Path) -> list[Path]:
    """Directories from the checkout's root (learn.projects.checkout_root: a main
    checkout or a worktree; or the project itself) down to the project."""
    from learn.projects import checkout_root

    found = checkout_root(project.absolute())
    if found is None:
        return [project]
    root, real = Path(found), project.resolve()
    if real != root and root not in real.parents:
        return [project]
    return list(reversed([real, *(p for p in real.parents if root in (p, *p.parents))]))
