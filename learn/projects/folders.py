"""The project of a folder the person named, and the folders a project's files live in:
learn.projects' own functions (the package re-exports them), each asking
`project_of` (learn.projects.identity) and nothing else."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from learn.projects.flavour import (
    disk_path,
    is_path,
    is_windows_path,
    key_within,
    on_this_machine,
    path_key,
)
from learn.projects.identity import Known, checkout_root, project_of
from learn.windows_names import not_opened


def within(path: str, root: str) -> bool:
    """`path` is `root` or below it, both compared by their own flavour (`path_key`);
    anything that is not an absolute path only equals itself."""
    if not (is_path(path) and is_path(root)):
        return path == root
    return key_within(path_key(path), path_key(root))


def named_folder(folder: str | os.PathLike[str] | None = None) -> str:
    """A folder the person named on the command line, absolute (default: the current
    directory). A relative path is relative to where they typed it; a Windows path
    stays one on any host; a transcript's path never goes through here."""
    text = os.fspath(folder) if folder is not None else os.getcwd()
    return text if is_path(text) else os.path.abspath(text)


# Folder key -> the folder above it whose project it was found to be, in no checkout
# (M2: sessions ran in `w/trunc`, the person is in `w/trunc/sub/dir`). Only a caller
# with the session index's knowledge can see that (`Known.folders`); `checkout_folder`
# is asked later in the same command without it (apply's target, run's team root),
# and fell back to the folder itself: `apply` proposed `w/trunc/sub/dir/CLAUDE.md`,
# a folder no session ran in. A handful of folders per process: those named.
_PLACED: dict[str, str] = {}


def project_here(folder: str | os.PathLike[str] | None = None,
                 known: Known | None = None) -> str:
    """The project of a folder the person named (`named_folder`). Found, with `known`,
    to be a folder above it in no checkout, that is kept for `checkout_folder`."""
    named = named_folder(folder)
    found = project_of(named, known)
    assert found is not None
    if known is not None and is_path(named):
        key = known.key(named)
        if found != key and key_within(key, found) and known.checkout(key) is None:
            _PLACED[key] = found
    return found


class _Quoted(Protocol):
    @property
    def session_id(self) -> str: ...
    @property
    def project(self) -> str | None: ...


def quote_projects(quotes: Iterable[_Quoted], known: Known | None = None) -> list[str]:
    """The projects quotes were said in, most distinct sessions first."""
    known = known if known is not None else Known()
    sessions: dict[str, set[str]] = {}
    for q in quotes:
        project = project_of(q.project, known)
        if project:
            sessions.setdefault(project, set()).add(q.session_id)
    return sorted(sessions, key=lambda k: (-len(sessions[k]), k))


def spellings(pairs: Iterable[tuple[str | None, str | None]]) -> dict[str, str]:
    """(folder as a transcript spelled it, its project) pairs -> each project's
    name for people: the spelling most sessions used of the project's own folder
    (`C:\\Users\\ana\\VAULT` rather than its key `c:\\users\\ana\\vault`), else the
    project's key."""
    seen: dict[str, Counter[str]] = {}
    # Each distinct pair decided once: a listing of 1,000 sessions has a few dozen.
    for (folder, project), n in Counter(pairs).items():
        if project:
            counts = seen.setdefault(project, Counter())
            if folder and is_path(folder) and path_key(folder) == project:
                counts[folder] += n
    return {p: (c.most_common(1)[0][0] if c else p) for p, c in seen.items()}


def checkout_folder(folder: str | os.PathLike[str]) -> Path:
    """The checkout a folder the person named is in (`checkout_root`: a main checkout
    or a worktree); in none, the folder of the project it belongs to when that is a
    folder above it (`project_here` found it: the folder sessions ran in), else the
    folder itself. A Windows folder named on another system stays as named, never
    joined to this one's working directory."""
    named = named_folder(os.path.expanduser(os.fspath(folder)))
    found = checkout_root(named)
    if found:
        return Path(found)
    placed = _PLACED.get(path_key(named)) if is_path(named) else None
    above = as_folder(placed) if placed is not None else None
    if above is not None:
        return above
    if on_this_machine(named) and not_opened(named) is None:
        return Path(named).resolve()  # never a share's: resolving it asks the server
    # `C:\\Users\\bob\\app` named on WSL: the drive's folder as WSL has it, if it does.
    here = disk_path(path_key(named)) if is_windows_path(named) else None
    return Path(here) if here is not None else Path(named)


def write_roots(project: str | None, file: str | os.PathLike[str]) -> tuple[str, ...]:
    """The folders a file learn wrote for `project` may be rewritten under (by `apply
    --undo` or `--prune`): the project's own folder and, when the file is in another
    checkout of the same repository (a worktree apply wrote into), that checkout. A
    checkout of another repository is never one of them."""
    if not project:
        return ()
    # Spelled as this disk has it: a drive's key (`c:\\users\\bob\\app`) is no folder
    # of WSL, which has it at `/mnt/c/Users/bob/app`.
    own = (disk_path(project) if is_path(project) else None) or project
    found = checkout_root(os.path.dirname(os.fspath(file)))
    if found and path_key(found) != path_key(own) and project_of(found) == project:
        return (own, found)
    return (own,)


def in_this_checkout(file: str | os.PathLike[str],
                     folder: str | os.PathLike[str]) -> Path | None:
    """The same file in the checkout `folder` is in, when `file` lies in another
    checkout of that repository (a rule a run over every project found in the main
    checkout, `apply` run in a worktree): the checkout the person works in is the one
    written, never the other. None when either is in no checkout, both are in the
    same one, or the other is another repository's; and when either is on a network
    share (learn.windows_names.not_opened: resolving it asks the server)."""
    if not_opened(os.fspath(file)) is not None or not_opened(os.fspath(folder)) is not None:
        return None
    real = os.path.realpath(os.fspath(file))
    there, here = checkout_root(os.path.dirname(real)), checkout_root(folder)
    if there is None or here is None or there == here:
        return None
    known = Known()
    if project_of(there, known) != project_of(here, known):
        return None
    return Path(here).joinpath(*Path(real).parts[len(Path(there).parts):])


def repository_id_of(folder: str | os.PathLike[str]) -> str | None:
    """The id of the repository the folder the person named is in (`github.com/acme/
    webshop`: its origin's, else its first remote's; learn.projects.remote), what the
    team store groups by. None when the folder is in no repository on this disk or
    its remotes are not on a host."""
    from learn.projects.gitdir import repository_at

    known = Known()
    co = known.checkout(known.key(named_folder(os.path.expanduser(os.fspath(folder)))))
    return repository_at(co).repository_id if co is not None else None


def as_folder(project: str) -> Path | None:
    """The project's folder on this disk, None when it names none here (a repository
    id, a Windows folder read on another system, a folder since deleted, a bare
    repository's git directory)."""
    from learn.projects.gitdir import is_git_dir

    here = disk_path(project) if is_path(project) else None
    if here is None:
        return None
    path = Path(here)
    return path if path.is_dir() and not is_git_dir(project) else None
