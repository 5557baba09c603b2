"""Which repository a checkout belongs to, read from its `.git` (no `git` process).

A checkout is the folder holding `.git`. In a main checkout `.git` is the git
directory; in a worktree (`git worktree add ../repo-fix`, Claude Code desktop's
`<repo>/.claude/worktrees/<name>`, the Codex app's) it is a file `gitdir: <path>`
naming `<repo>/.git/worktrees/<name>`, whose `commondir` names the repository's
shared git directory, whose parent is the main checkout. On a real monorepo each
sibling worktree was its own one-session project until this was read: a request
said in 6 sessions across the worktrees counted 3.

A submodule's `.git` file names `<super>/.git/modules/<name>`, which has no
`commondir`: it is a repository of its own. Its worktrees (`git -C vendor/lib
worktree add ../lib-fix`) name that git dir as their common one; its main checkout
is the folder its `core.worktree` names (a worktree of a submodule was a project
of its own, the git dir, apart from the submodule it was added from).

A `.git` file naming a git directory that is not there (the repository was moved
or deleted; `git` itself says "not a git repository") is a dangling checkout:
still the folder `apply` writes in, but the disk no longer says whose it is.
Read as its own project it re-filed the worktree's sessions and overwrote what
learn remembered of it; learn.projects.identity asks what it knows first, then
the name of the git dir (`<repo>/.git/worktrees/<name>` was `<repo>`'s).

The folders are keys (learn.projects.flavour); the disk is asked at the spelling it
has of each (`disk_path`): on WSL a drive's key `c:\\users\\bob\\app` is looked for
under `/mnt/c/`, and the checkout found is named by keys like any other.

Standard library only (and learn.projects.flavour): learn's check (learn.guard)
asks this on every shell call of a session run in a worktree beside the project,
where learn.projects.identity's imports (msgspec, pathlib: ~30 ms) would double
what the check costs.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from typing import Final, NamedTuple

from learn.lazy import lazy_pattern
from learn.projects.flavour import (
    ancestors,
    disk_path,
    is_path,
    is_windows_path,
    key_name,
    key_parent,
    key_within,
    on_this_disk,
    path_key,
)

GIT: Final = ".git"
_GITDIR: Final = lazy_pattern(r"^gitdir:\s*(.+?)\s*$", re.M)
_WORKTREE: Final = lazy_pattern(r"^\s*worktree\s*=\s*(.*?)\s*$", re.I)


class Checkout(NamedTuple):
    """A checkout on disk: its own folder and the repository it belongs to (path keys)."""

    root: str  # the folder holding `.git`: a main checkout or a worktree
    project: str  # the repository: its main checkout (a bare repository: its git dir)
    git_dir: str  # this checkout's git directory
    common_dir: str  # the repository's shared git directory
    # The `.git` file names a git directory that is not there: `project` is only what
    # its name says (`<repo>/.git/worktrees/<name>`: `<repo>`), else the folder itself.
    dangling: bool = False

    @property
    def is_worktree(self) -> bool:
        return self.root != self.project


def on_disk(key: str, *names: str) -> str | None:
    """`names` inside the folder `key`, where this disk has it (None: it has none)."""
    here = disk_path(key)
    return os.path.join(here, *names) if here is not None else None


def _below(key: str, named: str) -> str:
    """The key of `named` (a path a git file wrote) read from the folder `key`."""
    if is_path(named):
        return path_key(named)
    here = disk_path(key)
    if here is None:  # not on this disk: joined by the key's own flavour, never to a cwd
        return path_key(ntpath.join(key, named) if is_windows_path(key)
                        else posixpath.join(key, named))
    return path_key(os.path.join(here, named))


def read_text(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(64 * 1024)
    except OSError:
        return None


def _checkout_at(folder: str) -> Checkout | None:
    dot_git = on_disk(folder, GIT)
    if dot_git is None:
        return None
    if os.path.isdir(dot_git):
        git_dir = path_key(dot_git)
        common = _common_dir(git_dir) or git_dir
        return Checkout(folder, _main_of(common, fallback=folder), git_dir, common)
    if not os.path.isfile(dot_git):
        return None
    text = read_text(dot_git)
    found = _GITDIR.search(text or "")
    if found is None:
        return None
    named = found.group(1)
    # Git for Windows' `C:/Users/ana/app/.git/worktrees/x` read on another system is that
    # system's path, not one below this folder.
    git_dir = _below(folder, named)
    head = on_disk(git_dir, "HEAD")
    if head is None or not os.path.isfile(head):  # moved, deleted, or no git dir
        return Checkout(folder, _named_main(git_dir) or folder, git_dir, git_dir, dangling=True)
    shared = _common_dir(git_dir)
    if shared is None:  # a submodule, or --separate-git-dir: a repository of its own
        return Checkout(folder, folder, git_dir, git_dir)
    return Checkout(folder, _main_of(shared, fallback=folder), git_dir, shared)


def _common_dir(git_dir: str) -> str | None:
    text = read_text(on_disk(git_dir, "commondir"))
    if text is None or not text.strip():
        return None
    return _below(git_dir, text.strip())


def _main_of(common: str, *, fallback: str) -> str:
    """The main checkout of the repository whose shared git dir is `common`: its
    parent when it is a `.git` folder, else the folder its `core.worktree` names (a
    submodule's, under `<super>/.git/modules/`), else the git dir itself (a bare
    repository, whose worktrees have no main checkout)."""
    if key_name(common) == GIT:
        parent = key_parent(common)
        return parent if parent is not None else fallback
    work_tree = _core_worktree(common)
    return work_tree if work_tree is not None else common


def _core_worktree(git_dir: str) -> str | None:
    """The folder `core.worktree` of `git_dir`'s config names (relative to the git dir)."""
    section = ""
    for line in (read_text(on_disk(git_dir, "config")) or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip().casefold()
            continue
        found = _WORKTREE.match(line) if section == "core" else None
        if found:
            value = found.group(1).strip('"')
            return _below(git_dir, value) if value else None
    return None


def _named_main(git_dir: str) -> str | None:
    """The main checkout a worktree's git dir names by its place alone
    (`<repo>/.git/worktrees/<name>` -> `<repo>`), there or not."""
    admin = key_parent(git_dir)
    dot_git = key_parent(admin) if admin is not None else None
    if admin is None or dot_git is None or key_name(admin) != "worktrees" \
            or key_name(dot_git) != GIT:
        return None
    return key_parent(dot_git)


def checkout_of(key: str, *, stop: str | None = None) -> Checkout | None:
    """The checkout the folder `key` is in, None when no `.git` is found at or above
    it. `stop` (a folder key) and the folders above it are not looked at: a `.git`
    in the home folder (dotfiles) must not claim every folder below it. A folder
    that no longer exists is looked up from the nearest one that does."""
    candidates = [key, *ancestors(key)]
    if stop is not None and key != stop:
        cut = [c for c in candidates if c == stop]
        if cut:
            candidates = candidates[: candidates.index(stop)]
    for folder in candidates:
        here = disk_path(folder)
        if here is None or not os.path.isdir(here):
            continue
        found = _checkout_at(folder)
        if found is not None:
            return found
    return None


def checkout_on_disk(key: str, home: str) -> Checkout | None:
    """The checkout of the folder `key` as this disk shows it, the one answer
    learn.projects.identity starts from (`Known.checkout`) and learn's check asks:
    None for a folder this disk cannot show (another system's; a drive's, off WSL), and
    the home folder `home` and the folders above it never claim the folders below them
    (a dotfiles `.git`)."""
    if not on_this_disk(key):
        return None
    stop = home if key_within(key, home) and key != home else None
    return checkout_of(key, stop=stop)


def is_git_dir(folder: str) -> bool:
    """A git directory itself (a bare repository): no checkout, no place for a rule file."""
    here = disk_path(folder)
    return here is not None and (os.path.isfile(os.path.join(here, "HEAD"))
                                 and os.path.isdir(os.path.join(here, "objects"))
                                 and not os.path.exists(os.path.join(here, GIT)))
