"""A project's identity, by the rules of the file system its path comes from.

A transcript's cwd is written by the machine that ran the session, which need
not be this one. On real Windows transcripts the same folder appeared as
`C:\\Users\\…\\VAULT` (24 sessions) and `c:\\Users\\…\\VAULT` (22): NTFS folds case,
so they are one project, and `…\\VAULT\\.claude\\worktrees\\x` is inside it. Read
with POSIX rules (this machine's `realpath`, `/` as the separator) they were two
projects and the worktree belonged to neither.

So a path is judged by its own flavour: a drive-letter or UNC path by Windows
rules (either separator, case folded), anything else by this machine's
(symlinks resolved; case folded on macOS, whose default volumes fold case).
"""

from __future__ import annotations

import ntpath
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Final

_WINDOWS: Final = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|$)|\\\\|//[^/])")


def is_windows_path(path: str) -> bool:
    """`C:\\x`, `c:/x`, `C:` or a UNC `\\\\server\\share`, on any host."""
    return bool(_WINDOWS.match(path))


def project_key(path: str | Path) -> str:
    """What two spellings of one project directory have in common (compare these,
    never the spellings): normalised, without a trailing separator, case folded
    where the file system folds case."""
    text = str(path)
    if is_windows_path(text):
        # The extended-length form names the same folder: \\?\C:\x is C:\x,
        # \\?\UNC\server\share is \\server\share.
        if text[:8].upper() == "\\\\?\\UNC\\":
            text = "\\\\" + text[8:]
        elif text[:4] in ("\\\\?\\", "//?/"):
            text = text[4:]
        if sys.platform == "win32":
            text = os.path.realpath(text)
        norm = ntpath.normpath(text).casefold()
        # Keep the root's separator (`c:\\`), drop any other trailing one.
        return norm if re.fullmatch(r"[a-z]:\\", norm) else norm.rstrip("\\")
    real = os.path.realpath(os.path.expanduser(text))
    if sys.platform in ("darwin", "win32"):
        real = real.casefold()
    return real.rstrip(os.sep) or os.sep


def key_within(key: str, root: str) -> bool:
    """True when the project key `key` is `root` or a directory under it."""
    if key == root:
        return True
    sep = "\\" if is_windows_path(root) else os.sep
    return key.startswith(root if root.endswith(sep) else root + sep)


def same_project(a: str | Path | None, b: str | Path | None) -> bool:
    return a is not None and b is not None and project_key(a) == project_key(b)


def within_project(path: str | Path | None, project: str | Path) -> bool:
    """True when `path` is `project` or anything under it (a worktree, a subfolder)."""
    return path is not None and key_within(project_key(path), project_key(project))


def spellings(paths: Iterable[str | None]) -> dict[str, str]:
    """Each spelling of a project -> the one spelling a run reports for it: the one
    most sessions used (ties: the first seen), so `C:\\…\\VAULT` and `c:\\…\\VAULT`
    count, group and apply as one project."""
    counts: dict[str, Counter[str]] = {}
    for p in paths:
        if p:
            counts.setdefault(project_key(p), Counter())[p] += 1
    out: dict[str, str] = {}
    for seen in counts.values():
        best = seen.most_common(1)[0][0]  # most_common keeps first-seen order on ties
        out.update(dict.fromkeys(seen, best))
    return out
