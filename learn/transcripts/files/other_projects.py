"""Which listed files a quick scan leaves out: of another project by their stored heads.

`discover.scan(quick=True)` (what `learn show` uses to find the other sessions of
its project) decides from the head the session index stored for an unchanged file,
before its candidate is built, whether the file is of another project: the full
scan would list, stat and look up every file of the home to skip it there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from learn.projects import Hints, Known, is_path, key_within, project_of
from learn.transcripts.files.listing import Drop

__all__ = ["StoredHead", "elsewhere"]


class StoredHead(Protocol):
    """A head as the session index keeps it (learn.store.session_index.HeadRow)."""

    @property
    def cwd(self) -> str | None: ...
    @property
    def subagent(self) -> str | None: ...
    @property
    def branch(self) -> str | None: ...
    @property
    def repository(self) -> str | None: ...
    @property
    def commit_hash(self) -> str | None: ...


def elsewhere(unchanged_head: Callable[[str, os.stat_result], StoredHead | None], known: Known,
              want: str, named_key: str) -> Drop:
    """Whether a listed file is, by its unchanged head, of another project than `want`
    and outside the folder named (what the scan's loop would skip as "other_project"),
    and its folder one `known` holds (the loop's `add_folder` would change nothing):
    decided once per folder and hints."""
    decided: dict[tuple[str, str | None, str | None, str | None], bool] = {}

    def drop(path: str, st: os.stat_result) -> bool:
        head = unchanged_head(path, st)
        if head is None or head.subagent is not None or not head.cwd:
            return False
        seen = (cwd := head.cwd, head.branch, head.repository, head.commit_hash)
        out = decided.get(seen)
        if out is None:
            hints = Hints(*seen[1:])
            out = decided[seen] = (
                known.holds(cwd, hints) and project_of(cwd, known, hints) != want
                and not (is_path(cwd) and key_within(known.key(cwd), named_key)))
        return out

    return drop
