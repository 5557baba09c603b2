"""Rules that only matter in one part of the tree, loaded only there.

When every session a correction was said in had the agent working only on files
under one folder of the project (the file paths of its Read / Edit / Write tool
calls say which), the rule is proposed as `.claude/rules/<topic>.md` with a
`paths:` list, which Claude Code loads only when a matching file is read (for
Codex: an AGENTS.md in that folder, read when the agent works below it). A session
with no file calls says nothing about where, so it vetoes the scoping: a rule
loaded too narrowly is silently missing where it was needed.

A rule about how the work is done (committing, pushing, pull requests, branches, running
tests, linters or formatters, a package manager) is never scoped: it applies wherever
that work happens, and what the agent was editing when it was said is incidental. "run
ruff format before committing", said in two sessions that each edited one file under
`app/`, was proposed loaded only when a file under `app/` is read, so a commit of
anything else never saw it (an end-to-end run). A rule about the code keeps the folder
without naming it: "never write raw SQL", said only while working under `src/db/`, is
about the files there.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Final

from learn.projects import quote_projects
from learn.records.proposal import Proposal

FILE_TOOLS = {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead",
              # Gemini CLI, Copilot CLI and OpenCode name their file tools their own way.
              "read_file", "write_file", "replace", "view", "edit", "create", "str_replace_editor",
              "read", "write", "patch"}
FILE_FIELDS = ("file_path", "notebook_path", "path", "filePath", "absolute_path")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)


def files_of_calls(calls: Iterable[tuple[str, Mapping[str, object], str]]) -> list[str]:
    """File paths a session's tool calls read or edited (Claude Code tools; Codex patches),
    from (name, input, summary). A view from the session index keeps only a call's
    command of its input; its one-line summary is the path for a file tool (cut with
    "…" when long: its folder then reads as the one above, the cautious way)."""
    out: list[str] = []
    for name, data, summary in calls:
        if name in FILE_TOOLS:
            for field in FILE_FIELDS:
                value = data.get(field)
                if isinstance(value, str) and value:
                    out.append(value)
                    break
            else:
                if summary:
                    out.append(summary)
        elif name == "apply_patch":
            patch = data.get("input") or data.get("patch") or ""
            if isinstance(patch, str):
                out.extend(m.strip() for m in _PATCH_FILE.findall(patch))
    return out


def _absolute(path: str) -> bool:
    """A POSIX or a Windows absolute path (a transcript's relative cwd is neither)."""
    return path.startswith("/") or bool(re.match(r"^[A-Za-z]:[\\/]", path))


def _relative(path: str, root: str) -> PurePosixPath | None:
    """`path` relative to the project `root`, normalised; None when it leaves the
    project. `<root>/../../victim/file.py` in three sessions once became a rule
    scoped to `../../victim/**` and an AGENTS.md two folders above the project: a
    path is normalised (`.`, `..`, doubled slashes) before it is compared, and one
    that climbs out of the project says nothing about where in it a rule applies."""
    p = path.replace("\\", "/")
    r = posixpath.normpath(root.replace("\\", "/")) if root else ""
    if not r or (not r.startswith("/") and ":" not in r[:3]):
        if p.startswith("/") or ":" in p[:3]:
            return None  # a relative root cannot place an absolute path
        rel = posixpath.normpath(p)
    elif p.startswith("/") or ":" in p[:3]:
        full = posixpath.normpath(p)
        if not full.startswith(r.rstrip("/") + "/"):
            return None  # outside the project: no scope can be said
        rel = full[len(r.rstrip("/")) + 1:]
    else:
        rel = posixpath.normpath(p)  # already relative to the project
    if rel in (".", "") or rel == ".." or rel.startswith("../"):
        return None
    return PurePosixPath(rel)


def relative_to(path: str, checkout: str) -> str:
    """`path` relative to the checkout it lies in (as written when outside it)."""
    rel = _relative(path, checkout)
    return rel.as_posix() if rel is not None else path


# Characters a folder's name may not hold to become a rule's scope. The folder is
# written as a glob into frontmatter, into a sentence in backticks (AGENTS.md,
# GEMINI.md: "When working on `src/api/**`: ..."), as a folder learn creates and on
# the confirm screen; it comes from the paths of a transcript's tool calls, which a
# prompt-injected agent writes. A backtick there closed the code span and left
# `@~/.ssh/id_rsa` an import; an ESC hid text on the screen that was confirmed (a
# write-path audit reproduced both). Glob characters would change what the scope
# matches, a comma splits Cursor's list, `<>:"|\` are no folder on Windows, and an
# `@` opens an import in Claude Code's and Gemini CLI's instruction files (so a
# monorepo's `packages/@scope/ui` is not scoped: its rule is loaded everywhere).
_UNSCOPABLE: Final = frozenset('`*?[]{}!,\\"<>|:;$^@#&')


def scopable_folder(folder: str) -> bool:
    """Whether `folder` (a project-relative path, `/`-separated) may be a rule's scope:
    each part printable (no control, format or separator character but a space),
    none of the characters above, no `.`/`..`, none starting with `-` or starting or
    ending with a space or (Windows trims them) ending with a dot. The one test, for
    the folders found here and for a scope read back from a stored run."""
    parts = folder.split("/")
    return bool(folder) and all(
        part and part not in (".", "..") and part.isprintable()
        and not _UNSCOPABLE.intersection(part)
        and part[0] not in " -" and part[-1] not in " ."
        for part in parts)


def common_folder(files: Sequence[str], root: str) -> str | None:
    """The deepest folder every file lies under, relative to `root`; None at the root."""
    rel = [_relative(f, root) for f in files]
    if not rel or any(r is None for r in rel):
        return None
    parents = [r.parent.parts for r in rel if r is not None]
    common: list[str] = []
    for parts in zip(*parents, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common) if common else None


# Words of a rule about the workflow rather than the files (`about_workflow`): git's
# steps, and the tools run over the whole checkout (linters, formatters, type checkers,
# package managers), by name; a test runner only as something run ("run pytest -q"), so
# "in tests/ use pytest's tmp_path" stays a rule about the test files. A word that is
# also code's ("push to the queue", "merge the dicts") loses a scope that may have been
# right: such a rule is loaded always, the error this module prefers.
_WORKFLOW: Final = re.compile(
    r"\b(?:commit(?:s|ted|ting)?|push(?:es|ed|ing)?|pull[- ]requests?|PRs?|branch(?:es)?"
    r"|merg(?:e|es|ed|ing)|rebas(?:e|es|ed|ing)|git|CI"
    r"|lint(?:s|ed|ing|ers?)?|formatters?|type[- ]?check(?:s|ed|ing|ers?)?"
    r"|ruff|eslint|prettier|mypy|pyright|tsc|flake8|pylint|isort|rubocop|gofmt|rustfmt"
    r"|clippy|biome|golangci-lint"
    r"|npm|npx|pnpm|yarn|bun|bunx|pip|pip3|pipx|uv|poetry|pipenv|conda|cargo|bundler"
    r"|composer|brew|apt-get|package[- ]managers?"
    r"|run(?:s|ning)?\s+(?:\S+\s+){0,2}?(?:tests?|test[- ]suite|specs?|pytest|jest|vitest"
    r"|mocha|checks?|builds?))\b",
    re.IGNORECASE)


def about_workflow(p: Proposal) -> bool:
    """Whether `p`'s words (the rule, the person's quotes) are about the workflow: such a
    rule is never path-scoped, whatever the agent was editing when it was said."""
    return any(_WORKFLOW.search(t) for t in (p.rule_text, *(q.text for q in p.quotes)))


def scope_to_paths(proposals: Sequence[Proposal],
                   session_files: Mapping[str, Sequence[str]]) -> list[Proposal]:
    """Directives said only while the agent worked under one folder, as path rules."""
    out: list[Proposal] = []
    for p in proposals:
        sessions = {q.session_id for q in p.quotes}
        roots = quote_projects(q for q in p.quotes if q.project and _absolute(q.project))
        if (p.kind != "directive" or p.surface is not None or p.status != "new"
                or len(sessions) < 2 or len(roots) != 1 or about_workflow(p)):
            out.append(p)
            continue
        folders = {common_folder(session_files.get(s, ()), roots[0]) for s in sessions}
        folder = None if None in folders else common_folder([f"{x}/f" for x in folders if x], "")
        if not folder or not scopable_folder(folder):
            out.append(p)  # loaded always: a rule missing where it applies is worse
            continue
        out.append(dataclasses.replace(p, surface="path-rule",
                                       surface_rules=(f"{folder}/**",)))
    return out


# What a glob holds beyond a folder's name: its own characters (a comma only between
# braces: Cursor splits its `globs:` on commas, and `src/a,**` would be every file).
_GLOB_CHARS: Final = str.maketrans(dict.fromkeys("*?[]{}", "x"))


def safe_glob(glob: str) -> bool:
    """Whether a path rule's glob may be written (frontmatter, a sentence in backticks, a
    folder): each part `**`, or a name `scopable_folder` allows once its glob characters
    are read as letters, any comma inside braces."""
    for part in glob.split("/"):
        if part == "**":
            continue
        depth = 0
        for c in part:
            depth += (c == "{") - (c == "}")
            if depth < 0 or (c == "," and depth == 0):
                return False
        if depth or not scopable_folder(part.translate(_GLOB_CHARS).replace(",", "x")):
            return False
    return bool(glob)


def scoped_safely(p: Proposal) -> Proposal:
    """`p`, loaded always when a glob of its path scope is not `safe_glob`: a proposal
    stored before globs were tested, written into a store by hand or shared by a
    teammate is planned and shown as one found now would be. The one gate of the
    report's readers of `surface_rules` as globs (the apply's planning, the agents'
    files, the digest). A rule about the workflow (`about_workflow`) stored scoped by an
    earlier learn is loaded always too."""
    if p.surface != "path-rule" or (p.surface_rules and all(map(safe_glob, p.surface_rules))
                                    and not about_workflow(p)):
        return p
    return dataclasses.replace(p, surface=None, surface_rules=())


def glob_folder(globs: Sequence[str]) -> str:
    """The folder every glob lies under, its parts up to the first with a glob character
    ('' when they share none): where an AGENTS.md scopes a rule by its place."""
    heads: list[tuple[str, ...]] = []
    for g in globs:
        parts = PurePosixPath(g).parts
        fixed = []
        for part in parts[:-1]:
            if any(c in part for c in "*?[{"):
                break
            fixed.append(part)
        heads.append(tuple(fixed))
    if not heads:
        return ""
    common = heads[0]
    for h in heads[1:]:
        n = 0
        while n < min(len(common), len(h)) and common[n] == h[n]:
            n += 1
        common = common[:n]
    return "/".join(common)
