"""A project as the person knows it: the folder a session ran in, up to its repository root.

One definition for the store (whose proposals are keyed by project), `apply`
(which writes into a project) and the surfaces (which say which project a rule
belongs to). The root is the nearest ancestor holding `.git` (where Claude Code
looks for CLAUDE.md), else the folder itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol


def project_root(start: Path) -> Path:
    """The nearest ancestor of `start` holding .git, else `start` (resolved)."""
    start = start.expanduser().resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def project_key(cwd: str | Path) -> str:
    """The string a project is stored under: its root, as an absolute path."""
    return str(project_root(Path(cwd)))


def _norm(path: str) -> str:
    # normcase folds case on Windows only, where the file system does too.
    return os.path.normcase(path.rstrip("/\\") or path)


def within(path: str, root: str) -> bool:
    """`path` is `root` or a folder below it (both already absolute)."""
    p, r = _norm(path), _norm(root)
    if p == r:
        return True
    return p.startswith(r if r.endswith(os.sep) else r + os.sep)


class _Quoted(Protocol):
    @property
    def session_id(self) -> str: ...
    @property
    def project(self) -> str | None: ...


def quote_projects(quotes: Iterable[_Quoted]) -> list[str]:
    """The projects quotes were said in (roots), most distinct sessions first."""
    sessions: dict[str, set[str]] = {}
    for q in quotes:
        if q.project:
            sessions.setdefault(project_key(q.project), set()).add(q.session_id)
    return sorted(sessions, key=lambda k: (-len(sessions[k]), k))
