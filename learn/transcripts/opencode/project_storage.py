"""OpenCode's per-project JSON store, of the versions before the shared one (0.0.x-0.3).

Layout, as the shared store's first migration reads it (anomalyco/opencode
`storage/storage.ts`, `MIGRATIONS[0]`) and the early `app/app.ts` names it:
`<data>/project/<slug>/storage/session/info/<session id>.json` (`{id, title, version?,
parentID?, share?, time?}`: no directory), `…/session/message/<session id>/<message
id>.json`, and, from the builds whose parts have files of their own (MessageV2),
`…/session/part/<session id>/<message id>/<part id>.json`. Before that a message held
its parts (`parts`: `text`, `tool-invocation`, `reasoning`, `file`, `step-start`) and
kept its facts under `metadata` (`time`, `sessionID`, `error`, `assistant: {modelID,
path: {cwd, root}}`): `opencode.lower` reads both.

`<slug>` is the repository root with its separators joined by `-` and every character
outside `[A-Za-z0-9_]` made `-` (`app.ts` `directory`), or `global` outside a repository.
No session file names a directory: a message does (`path.cwd`, or the first builds'
`metadata.assistant.path.cwd`), else the slug matched against the folders learn knows.

The migration copies, and leaves these files in place; it skips `global`, and a project
whose worktree is gone or has no commit. So a session may be in both stores, and one
never migrated is only here: the newer store is read when it holds the session
(`files.agent_listings`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final

__all__ = ["directory_of", "is_project_session", "project_roots", "sessions", "slug"]

_NOT_SLUG_RE: Final = re.compile(r"[^A-Za-z0-9_]")
# A message that says its directory is the first reply: a session's first few files.
_MESSAGES_LOOKED_AT: Final = 20


def is_project_session(path: Path) -> bool:
    """Whether `path` is a session file of a per-project store (`project/<slug>/storage/
    session/info/<id>.json`)."""
    parents = path.parents
    return (path.suffix == ".json" and path.parent.name == "info" and len(parents) > 4
            and parents[1].name == "session" and parents[2].name == "storage"
            and parents[4].name == "project")


def slug(root: str) -> str:
    """The folder name OpenCode gave a repository root (`app.ts` `directory`), the root's
    own flavour deciding its separators."""
    separators = r"[\\/]" if re.match(r"\A[A-Za-z]:[\\/]", root) else "/"
    return _NOT_SLUG_RE.sub("-", "-".join(p for p in re.split(separators, root) if p))


def project_roots(known: Iterable[Path]) -> dict[str, str]:
    """Slug -> the folder it names, for the folders learn was asked about and the ones
    above them (a slug is the repository's root, the folder asked about may be below it:
    discovery still decides the project from the folder)."""
    from learn.windows_names import not_opened

    roots: dict[str, str] = {}
    for path in known:
        # A folder on a share is never resolved (learn.windows_names.not_opened:
        # resolving asks its server, with the person's login): its spelling only.
        spellings = [Path(path)] if not_opened(str(path)) is not None else \
            [Path(path), Path(os.path.realpath(path))]
        for spelling in spellings:
            for folder in (spelling, *spelling.parents):
                if str(folder) != folder.anchor:
                    roots.setdefault(slug(str(folder)), str(folder))
    return roots


def sessions(base: Path) -> Iterator[Path]:
    """The session files of every per-project store under `<base>/project/`, by name."""
    try:
        projects = sorted(os.listdir(base / "project"))
    except OSError:
        return
    for name in projects:
        info = base / "project" / name / "storage" / "session" / "info"
        try:
            names = sorted(os.listdir(info))
        except OSError:
            continue
        for entry in names:
            if entry.endswith(".json") and not entry.startswith("."):
                yield info / entry


def directory_of(messages: Iterable[Path], read: Callable[[Path], dict[str, Any]]) -> str | None:
    """The directory a session ran in, from the first of its messages that says it."""
    for n, message in enumerate(messages):
        if n >= _MESSAGES_LOOKED_AT:
            break
        data = read(message)
        metadata = data.get("metadata")
        assistant = metadata.get("assistant") if isinstance(metadata, dict) else None
        for holder in (data, assistant):
            where = holder.get("path") if isinstance(holder, dict) else None
            cwd = where.get("cwd") if isinstance(where, dict) else None
            if isinstance(cwd, str) and cwd:
                return cwd
    return None
