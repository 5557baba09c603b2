"""Where the agents' instruction files live and how a file's frontmatter is split off:
the ground both the rule corpus (learn.reduce.rules) and the other instruction
surfaces (learn.reduce.surfaces) stand on."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Literal

RuleScope = Literal["user", "project"]


def strip_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter, body); frontmatter is '' when the file has none.

    A leading byte order mark is no part of either: Windows editors (Notepad, Visual
    Studio) save UTF-8 with one, and read with it the `---` fence was not the first line,
    so a scoped rule file was taken for one loaded always (and its first heading for a
    rule line). The writer keeps such a file's mark (learn.report.edits.seeded); readers
    never see it. Lines may end in LF, CRLF or CR; the body comes back with LF."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return "", text
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return "", text


def unquote(value: str) -> str:
    """A YAML scalar's text: a double-quoted one read as JSON (its escapes), a single-quoted
    one without its quotes, a plain one as it is."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            out = json.loads(value)
            return out if isinstance(out, str) else value[1:-1]
        except json.JSONDecodeError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value


_LIST_ITEM = re.compile(r"^\s*-\s*(.+?)\s*$")


def frontmatter_value(front: str, key: str) -> str | list[str] | None:
    """One top-level value of frontmatter `front`: a scalar, or a block or flow list of
    scalars; None when the key is absent."""
    lines = front.splitlines()
    for i, line in enumerate(lines):
        name, sep, rest = line.partition(":")
        if not sep or line[:1].isspace() or name.strip() != key:
            continue
        rest = rest.strip()
        if rest.startswith("["):
            return [unquote(x) for x in rest.strip("[]").split(",") if x.strip()]
        if rest:
            return unquote(rest)
        items: list[str] = []
        for item in lines[i + 1:]:
            m = _LIST_ITEM.match(item)
            if not m:
                break
            items.append(unquote(m.group(1)))
        return items
    return None


def claude_home(home: Path) -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else home / ".claude"


def codex_home(home: Path) -> Path:
    override = os.environ.get("CODEX_HOME")
    return Path(override).expanduser() if override else home / ".codex"


def chain(project: Path) -> list[Path]:
    """Directories from the checkout's root (learn.projects.checkout_root: a main
    checkout or a worktree; or the project itself) down to the project.

    A folder of another system (`C:\\Users\\ana\\app` named on Linux) is only itself:
    made absolute here it became `<learn's cwd>/C:\\Users\\ana\\app`, whose checkout
    was whatever repository learn ran in, and its CLAUDE.md was read as the project's.
    The root is compared by its key (on macOS a case-folded `/users/ana/app`), never
    as a Path spelled differently."""
    from learn.projects import checkout_root, key_within, on_this_machine, path_key

    if not on_this_machine(str(project)):
        return [project]
    found = checkout_root(project.absolute())
    if found is None:
        return [project]
    real = project.resolve()
    inside = [d for d in (real, *real.parents) if key_within(path_key(d), found)]
    return list(reversed(inside)) if inside else [project]
