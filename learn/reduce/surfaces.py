"""Every instruction surface the agents read, beyond the CLAUDE.md / AGENTS.md chain
learn.reduce.rules walks: `.claude/rules/**` scoping (`paths:`), `@imports` in
CLAUDE.md files, AGENTS.override.md, Claude Code's auto-memory and Codex's memories.
"""

from __future__ import annotations

import json
import re

from learn.reduce.rules import _strip_frontmatter

_LIST_ITEM = re.compile(r"^\s*-\s*(.+?)\s*$")


def _unquote(value: str) -> str:
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


def paths_of(text: str) -> list[str]:
    """The `paths:` globs of a rules file's frontmatter (a YAML list, block or flow
    form); [] when the file is not path-scoped (loaded always)."""
    front, _ = _strip_frontmatter(text)
    lines = front.splitlines()
    for i, line in enumerate(lines):
        key, sep, rest = line.partition(":")
        if not sep or key.strip() != "paths" or line[:1].isspace():
            continue
        rest = rest.strip()
        if rest.startswith("["):
            return [_unquote(x) for x in rest.strip("[]").split(",") if x.strip()]
        if rest:
            return [_unquote(rest)]
        out: list[str] = []
        for item in lines[i + 1:]:
            m = _LIST_ITEM.match(item)
            if not m:
                break
            out.append(_unquote(m.group(1)))
        return out
    return []
