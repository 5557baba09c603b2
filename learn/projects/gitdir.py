"""What a repository's git directory says, read from the files (no `git` process on
the way): for a folder the disk no longer shows (learn.projects.identity), the
branches a repository has, the folders its worktrees were added at, its origin's
repository id, and whether it holds a commit.

Which repository a checkout belongs to (a worktree's `.git` file, its `commondir`,
a submodule's `core.worktree`) is learn.projects.checkout, re-exported here.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Final

from learn.lazy import lazy_pattern
from learn.projects.checkout import GIT as GIT
from learn.projects.checkout import Checkout as Checkout
from learn.projects.checkout import checkout_of as checkout_of
from learn.projects.checkout import is_git_dir as is_git_dir
from learn.projects.checkout import on_disk as _on_disk
from learn.projects.checkout import read_text as _read
from learn.projects.flavour import is_path, path_key
from learn.projects.remote import repository_id

_REMOTE: Final = lazy_pattern(r'^\s*\[remote\s+"([^"]+)"\]\s*$')
_URL: Final = lazy_pattern(r"^\s*url\s*=\s*(.+?)\s*$")
_SHA: Final = lazy_pattern(r"^[0-9a-f]{7,64}$")


class Repository:
    """Facts about a repository on disk, read once each when first asked."""

    def __init__(self, project: str, common_dir: str, head_branch: str | None) -> None:
        self.project = project
        self.common_dir = common_dir
        self.head_branch = head_branch

    @cached_property
    def branches(self) -> frozenset[str]:
        """Its local branches: loose refs, packed refs, and reflogs of either."""
        out: set[str] = set()
        for base in ("refs/heads", "logs/refs/heads"):
            top = _on_disk(self.common_dir, *base.split("/"))
            if top is None:
                continue
            for dirpath, _dirs, files in os.walk(top):
                rel = os.path.relpath(dirpath, top)
                for name in files:
                    out.add(name if rel == "." else f"{Path(rel).as_posix()}/{name}")
        for line in (_read(_on_disk(self.common_dir, "packed-refs")) or "").splitlines():
            sha, _, ref = line.partition(" ")
            if _SHA.match(sha) and ref.startswith("refs/heads/"):
                out.add(ref.removeprefix("refs/heads/").strip())
        return frozenset(out)

    @cached_property
    def worktree_folders(self) -> frozenset[str]:
        """The folders its worktrees were added at, gone or not (each admin dir's
        `gitdir` names `<folder>/.git` until `git worktree prune`)."""
        top = _on_disk(self.common_dir, "worktrees")
        if top is None:
            return frozenset()
        try:
            names = os.listdir(top)
        except OSError:
            return frozenset()
        out: set[str] = set()
        for name in names:
            text = (_read(os.path.join(top, name, "gitdir")) or "").strip()
            if text:
                folder = os.path.dirname(text.rstrip("/\\"))
                out.add(path_key(folder) if is_path(folder) else path_key(
                    os.path.join(top, name, folder)))
        return frozenset(out)

    @cached_property
    def repository_id(self) -> str | None:
        """Its origin's repository id (else the first remote's), learn.projects.remote."""
        urls: dict[str, str] = {}
        remote: str | None = None
        for line in (_read(_on_disk(self.common_dir, "config")) or "").splitlines():
            section = _REMOTE.match(line)
            if section:
                remote = section.group(1)
                continue
            if line.lstrip().startswith("["):
                remote = None
                continue
            url = _URL.match(line)
            if remote is not None and url and remote not in urls:
                urls[remote] = url.group(1).strip("\"")
        url_text = urls.get("origin") or next(iter(urls.values()), None)
        return repository_id(url_text) if url_text else None

    def has_commit(self, sha: str) -> bool:
        """Whether the repository holds commit `sha` (a loose object, else `git cat-file`)."""
        sha = sha.strip().lower()
        if not _SHA.match(sha):
            return False
        loose = _on_disk(self.common_dir, "objects", sha[:2], sha[2:])
        if len(sha) >= 40 and loose is not None and os.path.isfile(loose):
            return True
        common = _on_disk(self.common_dir)
        if common is None:
            return False
        # Here, not at the top: every command reads projects, few ask git (~4 ms of imports).
        import shutil
        import subprocess

        git = shutil.which("git")
        if git is None:
            return False
        try:
            done = subprocess.run([git, "--git-dir", common, "cat-file", "-e",
                                   f"{sha}^{{commit}}"], capture_output=True, timeout=10,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0


def repository_at(checkout: Checkout) -> Repository:
    head = _read(_on_disk(checkout.common_dir, "HEAD")) or ""
    branch = head.strip().removeprefix("ref: refs/heads/") if head.startswith("ref:") else None
    return Repository(checkout.project, checkout.common_dir, branch)
