"""A rule's file in an agent's rule folder: one the agent loads when the rule should load.

A rule goes to `<name>` in an agent's rule folder (`.claude/rules/<name>.md`,
`.cursor/rules/<name>.mdc`, `.github/instructions/<name>.instructions.md`,
`.windsurf/rules/<name>.md`, `.kiro/steering/<name>.md`). A file of that name the person
already had keeps its frontmatter (learn never rewrites it), and a rule appended there
took that file's loading: said while working on `src/api/**`, it was loaded for
`docs/**`, or for every file; meant for every request, it was read only for `src/api/**`,
or only when asked for (Cursor's agent-requested rule, Windsurf's `manual`). So the rule
goes to that file only when the file loads as the rule should (learn.reduce.agent_files.
loading: the same globs, or always); else to `<name>-2`, `<name>-3`, ...: the first name
free, or taken by a file that loads the same (a later apply finds its rule there again).

One apply plans many rules before writing any, so the disk cannot say that a name is
already promised to a rule of another scope: two rules of one name and two scopes became
one file, with the first one's frontmatter. `Claims` is that apply's record of the
loading each file was given; a file claimed otherwise is not the rule's.

Loadings are compared as the agent reads them, the file's and the frontmatter learn
would write alike: a Cursor scope written with its braces expanded (`*.{ts,tsx}` as
`*.ts,*.tsx`) is the same set.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from learn.reduce.agent_files import Loading, loading
from learn.report.confine import read_regular
from learn.report.errors import ConfinementError

__all__ = ["Claims", "scoped_file"]

# One apply's files (real paths) and the loading the first rule planned there gave each.
Claims = dict[Path, Loading]

# A candidate file and its text (None: no such file) -> whether the rule may go there.
Usable = Callable[[Path, str | None], bool]


def _text(path: Path) -> str | Literal[False] | None:
    """What `path` holds: its text, None when there is no such file, False when it is no
    regular UTF-8 file of a size learn reads (a folder, a device, another encoding):
    no place to append a rule to."""
    try:
        data = read_regular(path)  # a link followed: rule files are linked from dotfiles
    except ConfinementError:
        return False
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return False


# Names tried before giving up: a folder that is a file (or unreadable) makes every name
# unreadable; the first name is then returned, and planning says why it cannot be written.
_MAX_NAMES = 100


def _first(folder: Path, name: str, suffix: str, usable: Usable) -> Path:
    for n in range(1, _MAX_NAMES + 1):
        path = folder / (f"{name}{suffix}" if n == 1 else f"{name}-{n}{suffix}")
        text = _text(path)
        if text is not False and usable(path, text):
            return path
    return folder / f"{name}{suffix}"


def _blank(text: str) -> bool:
    """A file with nothing in it: it gets the rule's frontmatter (learn.report.edits.seeded)."""
    return not text.lstrip("\ufeff").strip()


def scoped_file(folder: Path, name: str, suffix: str, wanted: Loading, *,
                claims: Claims | None = None,
                fits: Callable[[str], bool] = lambda _: True) -> Path:
    """The file in an agent's rules `folder` a rule goes to: `<name><suffix>`, else the
    first `<name>-N<suffix>` free or loaded as `wanted` says (learn.reduce.agent_files.
    loading; a blank file gets the rule's frontmatter: learn.report.edits.seeded), and not
    claimed in `claims` for another loading. The file chosen is claimed for `wanted`.
    `fits`: whether the file has room for the rule (Windsurf reads 12,000 characters of
    a file).

    Callers say `wanted` as the agent would read the frontmatter they write; this module
    stays below learn.report.edits, which learn.report.targets is under."""
    claimed = {} if claims is None else claims

    def usable(path: Path, text: str | None) -> bool:
        other = claimed.get(_key(path))
        if other is not None and other != wanted:
            return False
        return text is None or (fits(text) and (_blank(text) or loading(text, path) == wanted))

    path = _first(folder, name, suffix, usable)
    claimed.setdefault(_key(path), wanted)
    return path


def _key(path: Path) -> Path:
    """The real file: one folder reached by two spellings (a link) is one claim."""
    return Path(os.path.realpath(path))
