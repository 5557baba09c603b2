"""A project is the repository a session belongs to: `project_of` decides it, alone.

Counting distinct sessions per project is learn's promise, and people no longer
work in one folder. Measured on real transcripts: sibling git worktrees of one
monorepo were separate one-session projects ("fix and open a PR": 3 sessions in
the project, 6 across its worktrees; "remove the worktree", 4 sessions, never
proposed); Claude Code desktop, which runs every session in
`<repo>/.claude/worktrees/<name>`, had a rule "said in 3 projects" that were one
vault; sessions started in `packages/` of a repository whose `.git` could not be
seen were projects of their own. So the answer, for any folder, is asked in this
order and the first that knows wins:

1. not a path at all (`github.com/acme/webshop`, a team's repository id): the id;
2. the disk, while the folder (or the nearest folder above it that exists) is
   there: the repository its `.git` belongs to (learn.projects.gitdir), a
   worktree's through its common git dir. What the disk said is remembered
   (`Known.learned`, kept in the session index by the caller);
3. remembered: what the disk said of the folder (or a folder above it) before
   it was deleted; of a deleted folder, the nearer of this and 2 wins;
4. the folder inside `.claude/worktrees/<name>` is its repository's, on any host;
5. what the transcript recorded, against the repositories learn knows on this
   disk: Codex's repository URL and commit; Claude Code's branch (a branch of
   that repository, a folder its worktrees were added at, or a sibling folder
   named after it);
6. a folder under one other sessions ran in inside a repository (`packages/` of
   a checkout from another machine) is that folder's project;
7. else the folder itself.

Before all of these, a folder that is or lies in an agent's own folder (`~/.codex`,
`~/.claude`, ...: learn.projects.agent_homes) is that agent folder, whatever the disk
or the transcript says: no project, listed under it as the home folder's sessions
are under `~`.

Paths are compared by their own flavour (learn.projects.flavour), never joined
to learn's working directory; the home folder and anything above it never claim
the folders below them (a dotfiles `.git` in home would claim every project).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

import msgspec

from learn.projects.agent_homes import agent_home_in, agent_home_keys
from learn.projects.checkout import Checkout, checkout_on_disk
from learn.projects.flavour import (
    ancestors,
    disk_path,
    home_key,
    is_path,
    key_name,
    key_parent,
    key_within,
    path_key,
    separator,
)
from learn.projects.gitdir import Repository, repository_at

# Branch names every repository has: no evidence of which one a folder belonged to.
_COMMON_BRANCHES: Final = frozenset({"", "head", "main", "master", "trunk", "develop", "dev"})
# `<repo>-fix-x`, `<repo>_fix`, `<repo>.wt2`: how people name a sibling worktree.
_SIBLING_SEPARATORS: Final = ("-", "_", ".", "+", "@")
_NESTED: Final = re.compile(r"^(.*?)[\\/]\.claude[\\/]worktrees[\\/][^\\/]+(?:[\\/].*)?$")
_MAX_DEPTH: Final = 8


class Hints(msgspec.Struct, frozen=True):
    """What a transcript recorded about the folder it ran in."""

    branch: str | None = None  # Claude Code's gitBranch, Codex's git.branch
    repository: str | None = None  # Codex's git.repository_url, as a repository id
    commit: str | None = None  # Codex's git.commit_hash

    @property
    def in_git(self) -> bool:
        return bool(self.branch or self.repository or self.commit)


NO_HINTS: Final = Hints()


class Known(msgspec.Struct, repr_omit_defaults=True):
    """What learn knows beyond the disk, and what the disk told it this time.

    `remembered`: folder key -> project, as the disk said while the folder was there.
    `folders`: folder keys sessions ran in -> what their transcripts recorded.
    `learned` is filled by `project_of` with what the disk said (to remember).
    """

    remembered: Mapping[str, str] = msgspec.field(default_factory=dict)
    folders: dict[str, Hints] = msgspec.field(default_factory=dict)
    # Folders named as a project (`--project DIR`): what sessions ran in below one
    # belongs to it unless the disk or a transcript says otherwise.
    roots: set[str] = msgspec.field(default_factory=set)
    learned: dict[str, str] = msgspec.field(default_factory=dict)
    _answers: dict[tuple[str, Hints], str] = msgspec.field(default_factory=dict)
    _checkouts: dict[str, Checkout | None] = msgspec.field(default_factory=dict)
    _repositories: dict[str, Repository] | None = None
    _facts: dict[str, Repository] = msgspec.field(default_factory=dict)
    _keys: dict[str, str] = msgspec.field(default_factory=dict)
    _home: str | None = None
    _agent_homes: tuple[str, ...] | None = None

    def key(self, path: str) -> str:
        """path_key(path), once per spelling (realpath walks every component)."""
        found = self._keys.get(path)
        if found is None:
            found = self._keys[path] = path_key(path)
        return found

    def add_folder(self, path: str | None, hints: Hints = NO_HINTS) -> None:
        """A folder a session ran in (its hints kept when the first had none)."""
        if path and is_path(path):
            key = self.key(path)
            if key not in self.folders or (hints.in_git and not self.folders[key].in_git):
                self.folders[key] = hints
                self._answers.clear()
                self._repositories = None

    def holds(self, path: str | None, hints: Hints = NO_HINTS) -> bool:
        """Whether `add_folder(path, hints)` would change nothing (the folder is known,
        with hints as good): what discovery may skip a file on, unread (`discover.scan`)."""
        if not (path and is_path(path)):
            return True
        had = self.folders.get(self.key(path))
        return had is not None and (had.in_git or not hints.in_git)

    def add_folders(self, items: Iterable[tuple[str | None, Hints]]) -> None:
        best: dict[str, Hints] = {}
        for path, hints in items:  # one realpath per spelling, not per session
            if path and (path not in best or (hints.in_git and not best[path].in_git)):
                best[path] = hints
        for path, hints in best.items():
            self.add_folder(path, hints)

    def add_root(self, path: str) -> None:
        if is_path(path):
            self.roots.add(path_key(path))
            self._answers.clear()

    # -- what the disk says, cached for this Known's life ------------------------------
    @property
    def home(self) -> str:
        if self._home is None:
            self._home = home_key()
        return self._home

    def agent_home(self, key: str) -> str | None:
        """The agent's own folder `key` is or lies in (learn.projects.agent_homes)."""
        if self._agent_homes is None:
            self._agent_homes = agent_home_keys()
        return agent_home_in(key, self._agent_homes)

    def checkout(self, key: str) -> Checkout | None:
        """The checkout of `key` on this disk (home and above never claim below them)."""
        if key not in self._checkouts:
            self._checkouts[key] = checkout_on_disk(key, self.home)
        return self._checkouts[key]

    def repositories(self) -> dict[str, Repository]:
        """The repositories on this disk learn knows: remembered ones and those of
        the folders sessions ran in (project key -> facts)."""
        if self._repositories is None:
            found: dict[str, Repository] = {}
            places = [*self.remembered.values(), *self.roots, *self.folders]
            for key in sorted(set(places)):
                co = self.checkout(key)
                if co is not None and not co.dangling and co.project not in found:
                    if co.project not in self._facts:
                        self._facts[co.project] = repository_at(co)
                    found[co.project] = self._facts[co.project]
            self._repositories = found
        return self._repositories


def project_of(path: str | os.PathLike[str] | None, known: Known | None = None,
               hints: Hints = NO_HINTS) -> str | None:
    """The project `path` belongs to: its repository's key (module docstring), or
    `path` itself when it is an id rather than a path. None for no path."""
    if path is None:
        return None
    text = os.fspath(path).strip()
    if not text:
        return None
    if not is_path(text):
        return text  # a repository id stays an id: never a folder of this machine
    known = known if known is not None else Known()
    key = known.key(text)
    answer = known._answers.get((key, hints))
    if answer is None:
        answer = _decide(key, known, hints, 0)
        known._answers[(key, hints)] = answer
    return answer


def _decide(key: str, known: Known, hints: Hints, depth: int) -> str:
    # Before the disk: a repository inside `~/.claude` (a plugin marketplace's clone) or
    # a session index that remembered one must not make a project of an agent's folder.
    agents_own = known.agent_home(key)
    if agents_own is not None:
        return agents_own
    co = known.checkout(key)
    remembered = next(((f, known.remembered[f]) for f in (key, *ancestors(key))
                       if f in known.remembered), None)
    # A deleted folder is looked up from the nearest folder above it that exists;
    # what was remembered of a nearer folder knows better than that one.
    if co is not None and (remembered is None or len(remembered[0]) <= len(co.root)):
        if not co.dangling:
            known.learned[key] = co.project
            return co.project
        # A worktree whose repository was moved or deleted: what learn remembered of
        # the checkout, where it sits, or what its transcript recorded, before the
        # name of its git dir (learn.projects.gitdir); never remembered from here.
        if remembered is not None and key_within(remembered[0], co.root):
            return remembered[1]
        remembered = None
    if remembered is not None:
        return remembered[1]
    nested = _NESTED.match(key)
    if nested and nested.group(1) and depth < _MAX_DEPTH:
        return _decide(nested.group(1), known, NO_HINTS, depth + 1)
    hinted = _by_hints(key, known, hints if hints.in_git else known.folders.get(key, NO_HINTS))
    if hinted is not None:
        return hinted
    if co is not None:  # dangling: bounded by its own `.git`, no folder above claims it
        return co.project
    container = _known_container(key, known)
    if container is not None and depth < _MAX_DEPTH:
        return _decide(container, known, known.folders.get(container, NO_HINTS), depth + 1)
    return key


def _by_hints(key: str, known: Known, hints: Hints) -> str | None:
    """The repository on this disk the transcript's own record points to, if one does."""
    branch = (hints.branch or "").strip()
    if not (hints.repository or hints.commit or branch.casefold() not in _COMMON_BRANCHES):
        # Nothing a repository could be told apart by (no hints, or `main`); the
        # folders its worktrees were added at are asked only with a branch of note.
        return None
    repos = known.repositories()
    if not repos:
        return None
    if hints.repository:
        same = [r for r in repos.values() if r.repository_id == hints.repository]
        if same:
            return _nearest(key, [r.project for r in same])
    if hints.commit:
        holding = [r.project for r in repos.values() if r.has_commit(hints.commit)]
        if holding:
            return _nearest(key, holding)
    listed = [r.project for r in repos.values() if key in r.worktree_folders]
    if listed:
        return _nearest(key, listed)
    if branch.casefold() in _COMMON_BRANCHES:
        return None
    near = [r for r in repos.values() if _near(key, r.project)]
    with_branch = [r.project for r in near if branch in r.branches and branch != r.head_branch]
    if with_branch:
        return _nearest(key, with_branch)
    named = [r.project for r in near if _named_after(key, r.project)]
    return named[0] if len(named) == 1 else None


def _near(key: str, project: str) -> bool:
    """`key` is inside the repository's folder or beside it (a sibling worktree)."""
    parent = key_parent(project)
    return key_within(key, project) or (parent is not None and key_parent(key) == parent)


def _named_after(key: str, project: str) -> bool:
    """A sibling folder named `<repo>-<something>` (`git worktree add ../repo-fix-x`)."""
    name, repo = key_name(key), key_name(project)
    return len(name) > len(repo) + 1 and name.startswith(repo) and \
        name[len(repo)] in _SIBLING_SEPARATORS


def _nearest(key: str, projects: list[str]) -> str:
    """Of several candidates, the one holding `key`, else the one sharing most of
    its path, else the first by name (deterministic)."""
    holding = [p for p in projects if key_within(key, p)]
    if holding:
        return max(holding, key=len)
    sep = separator(key)

    def shared(p: str) -> int:
        n = 0
        for a, b in zip(key.split(sep), p.split(sep), strict=False):
            if a != b:
                break
            n += 1
        return n

    return sorted(projects, key=lambda p: (-shared(p), p))[0]


# A person's home folder, on any machine: it never holds a project's sub-folders.
_HOME_LIKE: Final = re.compile(r"^(?:/(?:home|Users|var/home)/[^/]+|/root|[a-z]:\\users\\[^\\]+)$")


def _known_container(key: str, known: Known) -> str | None:
    """The nearest folder above `key` that is a known project's folder: one named
    as a project, one the disk placed before, or one sessions ran in inside a
    repository (their transcript says so, or the folder is on this disk); never a
    home folder or one above it."""
    home = known.home
    remembered = set(known.remembered.values())
    for folder in ancestors(key):
        if key_within(home, folder) or _HOME_LIKE.match(folder) or key_parent(folder) is None:
            return None
        if folder in known.roots or folder in remembered:
            return folder
        hints = known.folders.get(folder)
        if hints is not None and (hints.in_git or _is_dir_here(folder)):
            return folder
    return None


def _is_dir_here(key: str) -> bool:
    here = disk_path(key)
    return here is not None and os.path.isdir(here)


def checkout_root(path: str | os.PathLike[str]) -> str | None:
    """The checkout (main or worktree) the folder `path` is in on this disk, None
    when it is in none: where Claude Code looks for a project's CLAUDE.md, and
    where `learn apply` run there writes, so spelled as this disk has it (on WSL a
    drive's checkout is `/mnt/c/Users/…`, never its key `c:\\users\\…`)."""
    text = os.fspath(path)
    if not is_path(text):
        return None
    co = Known().checkout(path_key(text))
    return disk_path(co.root) if co is not None else None
