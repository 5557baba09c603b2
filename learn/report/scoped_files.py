"""A path-scoped rule's file: one whose frontmatter scopes it to the rule's own globs.

A scoped rule goes to `<name>` in an agent's rule folder (`.claude/rules/<name>.md`,
`.cursor/rules/<name>.mdc`, `.github/instructions/<name>.instructions.md`,
`.windsurf/rules/<name>.md`, `.kiro/steering/<name>.md`). A file of that name the person
already had keeps its frontmatter (learn never rewrites it), and a rule appended there
took that file's scope: said while working on `src/api/**`, it was loaded for
`docs/**`, or for every file. So the rule goes to that file only when the file is
scoped to the same set of globs; else to `<name>-2`, `<name>-3`, ...: the first name
free, or taken by a file scoped the same (a later apply finds its rule there again).

Scopes are compared as the agent reads them (learn.reduce: Claude Code's `paths:`, the
others' own keys), the file's and the frontmatter learn would write alike: a Cursor
scope written with its braces expanded (`*.{ts,tsx}` as `*.ts,*.tsx`) is the same set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from learn.report.confine import read_regular
from learn.report.errors import ConfinementError

__all__ = ["scoped_file"]

# A candidate file and its text -> whether the rule may go there.
Usable = Callable[[Path, str], bool]


def _text(path: Path) -> str | bool | None:
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
        if text is None:
            return path
        if isinstance(text, str) and usable(path, text):
            return path
    return folder / f"{name}{suffix}"


def _blank(text: str) -> bool:
    """A file with nothing in it: it gets the rule's frontmatter (learn.report.edits.seeded)."""
    return not text.lstrip("\ufeff").strip()


def scoped_file(folder: Path, name: str, suffix: str, wanted: frozenset[str] | None,
                scope_of: Callable[[Path, str], frozenset[str]], *,
                fits: Callable[[str], bool] = lambda _: True) -> Path:
    """The file in an agent's rules `folder` a rule goes to: `<name><suffix>`, else the
    first `<name>-N<suffix>` free or scoped to `wanted` (as `scope_of` reads a file's
    text; a blank file takes any scope). `wanted` None: any scope will do (learn's own
    file of unscoped rules). `fits`: whether the file has room for the rule (Windsurf
    reads 12,000 characters of a file).

    The callers read scopes (learn.reduce) and know the frontmatter they write; this
    module stays below learn.report.edits, which learn.report.targets is under."""

    def usable(path: Path, text: str) -> bool:
        return fits(text) and (wanted is None or _blank(text) or scope_of(path, text) == wanted)

    return _first(folder, name, suffix, usable)
