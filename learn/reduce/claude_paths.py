"""Does a `paths:` glob of a `.claude/rules` file match a file the agent read, the way
Claude Code decides it?

Measured against the real Claude Code 2.1.332 (InstructionsLoaded hook, one Read
of `src/api/handler.py`, one rules file per glob): braces are expanded
(`src/{api,db}/**` was reported as `src/api`, `src/db`); a trailing `/**` is
dropped (`src/api/**` reported as `src/api`, and `api/**` as `api`, which then
matched at any depth); what is left is matched as a .gitignore line, ignoring
case: `*.py`, `handler.py`, `src/api`, `src/**/*.py`, `src/api/*.py`, `api/**` and
`SRC/api/**` loaded the rule; `src/*.py`, `**/*.md` and `./src/api/**` did not.
pathspec's GitIgnoreSpec gives all eleven answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

_BRACE = re.compile(r"\{([^{}]*)\}")


def expand_braces(glob: str) -> list[str]:
    """`src/{api,db}/**` -> `src/api/**`, `src/db/**` (nested and repeated braces too)."""
    m = _BRACE.search(glob)
    if m is None or "," not in m.group(1):
        return [glob]
    out: list[str] = []
    for option in m.group(1).split(","):
        out.extend(expand_braces(glob[:m.start()] + option + glob[m.end():]))
    return out


def claude_globs(globs: Iterable[str]) -> list[str]:
    """The .gitignore lines Claude Code matches a rule's `paths:` as."""
    out: list[str] = []
    for g in globs:
        for one in expand_braces(g.strip()):
            while one.endswith("/**"):
                one = one[:-3]
            if one:
                out.append(one.lower())
    return out


def relative_to(path: str, base: str) -> str | None:
    """`path` relative to the folder `base` (POSIX spelling); None when outside it.
    A relative `path` is taken as relative to `base` already."""
    p = path.replace("\\", "/")
    b = base.replace("\\", "/").rstrip("/")
    if p.startswith(b + "/"):
        return p[len(b) + 1:]
    if not p.startswith("/") and ":" not in p[:3]:
        return str(PurePosixPath(p))
    return None


def matches(globs: Sequence[str], path: str, base: str) -> bool:
    """Would a rule with `paths: globs` under project `base` load when `path` is read?"""
    return bool(matched(globs, [path], base))


def matched(globs: Sequence[str], paths: Iterable[str], base: str) -> list[str]:
    """The `paths` a rule with `paths: globs` would load for."""
    import pathspec

    lines = claude_globs(globs)
    if not lines:
        return []
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    out: list[str] = []
    for p in paths:
        rel = relative_to(p, base)
        if rel is not None and spec.match_file(rel.lower()):
            out.append(p)
    return out
