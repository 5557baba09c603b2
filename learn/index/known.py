"""What the session index knows of projects, for a command that names one.

`learn digest --project DIR` (and apply, report, decline) must find the project a
run stored its proposals under, also when DIR is a worktree deleted since or a
sub-folder whose repository cannot be seen: the same knowledge discovery used
(learn.index.indexed.CachedHeads.projects), read without writing anything.
"""

from __future__ import annotations

import os
from pathlib import Path

from learn.projects import Known, named_folder, project_here


def known_projects(target: Path | str | None = None) -> Known:
    """The index's knowledge (remembered folders, the folders sessions ran in); an
    empty Known when there is no index yet or it cannot be read."""
    import apsw

    from learn.index.indexed import CachedHeads
    from learn.store import open_store
    from learn.store.db import StoreError
    from learn.store.session_index import session_index_path

    if not session_index_path(target).is_file():
        return Known()
    try:
        with open_store(target, local_only=True) as local:
            return CachedHeads(local.index).projects()
    except (StoreError, apsw.Error, OSError):
        return Known()


def named_project(folder: str | os.PathLike[str] | None, target: Path | str | None = None) -> str:
    """The project of the folder a person named (default: the current directory)."""
    known = known_projects(target)
    if folder is not None:
        known.add_root(named_folder(folder))
    return project_here(folder, known)
