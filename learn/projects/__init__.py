"""What a project is: the repository a session belongs to, decided in one place.

Listing, store keys, the digest, `apply`, outcomes, the team store and the hook
all ask `project_of` (learn.projects.identity) and nothing else: a second
answer anywhere would split a repository again (tests/test_one_identity.py
fails when a second appears).

- `identity`: `project_of` (the one function), `Known` (what learn knows beyond
  the disk), `Hints` (what a transcript recorded), `checkout_root`.
- `flavour`: a path by its own file system's rules (Windows or POSIX).
- `gitdir`: what a folder's `.git` says (worktrees, branches, remotes).
- `remote`: a remote URL as a repository id (`github.com/acme/webshop`).
- `checkout`: which repository a checkout belongs to (a worktree's `.git` file),
  standard library only: learn's check asks it for a session outside the project's
  folder, on every shell call.
- `folders`: the project of a folder the person named, and where its files live.
- `agent_homes`: the agents' own folders (`~/.codex`, `~/.claude`, ...), no project.

The names below are imported on first use (learn.lazy): learn's check imports
learn.projects.checkout on every shell call of the agent, and importing the
package must not bring identity's msgspec and pathlib with it (33 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from learn.lazy import lazy_getattr

if TYPE_CHECKING:
    from learn.projects.agent_homes import agent_home as agent_home
    from learn.projects.flavour import is_path as is_path
    from learn.projects.flavour import is_windows_path as is_windows_path
    from learn.projects.flavour import key_within as key_within
    from learn.projects.flavour import on_this_machine as on_this_machine
    from learn.projects.flavour import path_key as path_key
    from learn.projects.folders import as_folder as as_folder
    from learn.projects.folders import checkout_folder as checkout_folder
    from learn.projects.folders import in_this_checkout as in_this_checkout
    from learn.projects.folders import named_folder as named_folder
    from learn.projects.folders import project_here as project_here
    from learn.projects.folders import quote_projects as quote_projects
    from learn.projects.folders import repository_id_of as repository_id_of
    from learn.projects.folders import spellings as spellings
    from learn.projects.folders import within as within
    from learn.projects.folders import write_roots as write_roots
    from learn.projects.identity import NO_HINTS as NO_HINTS
    from learn.projects.identity import Hints as Hints
    from learn.projects.identity import Known as Known
    from learn.projects.identity import checkout_root as checkout_root
    from learn.projects.identity import project_of as project_of

_WHERE = {
    "agent_home": "learn.projects.agent_homes",
    "is_path": "learn.projects.flavour",
    "is_windows_path": "learn.projects.flavour",
    "key_within": "learn.projects.flavour",
    "on_this_machine": "learn.projects.flavour",
    "path_key": "learn.projects.flavour",
    "NO_HINTS": "learn.projects.identity",
    "Hints": "learn.projects.identity",
    "Known": "learn.projects.identity",
    "checkout_root": "learn.projects.identity",
    "project_of": "learn.projects.identity",
    "within": "learn.projects.folders",
    "named_folder": "learn.projects.folders",
    "project_here": "learn.projects.folders",
    "quote_projects": "learn.projects.folders",
    "spellings": "learn.projects.folders",
    "checkout_folder": "learn.projects.folders",
    "write_roots": "learn.projects.folders",
    "in_this_checkout": "learn.projects.folders",
    "repository_id_of": "learn.projects.folders",
    "as_folder": "learn.projects.folders",
}

__getattr__ = lazy_getattr(__name__, _WHERE, globals())
