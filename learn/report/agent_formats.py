"""The other agents' rule files as text: the frontmatter each reads, then learn's section.

One rule file format per agent (facts: `learn.reduce.agent_files`), its scope kept in
the agent's own words for it:

- Copilot CLI `.github/instructions/<name>.instructions.md`: `applyTo` (comma-separated
  globs in one string);
- Cursor `.cursor/rules/<name>.mdc`: `description`, `globs` (one comma-joined string,
  bare: see `_cursor_globs`), `alwaysApply`;
- Windsurf `.windsurf/rules/<name>.md`: `trigger` (`glob` with `globs`, or `always_on`);
- Kiro `.kiro/steering/<name>.md`: `inclusion` (`fileMatch` with `fileMatchPattern`, or
  `always`);
- GEMINI.md, `.github/copilot-instructions.md`, AGENTS.md: no frontmatter, loaded always.

Every other value is written as a JSON string, which YAML reads as a double-quoted
scalar: a glob opening with `*` (an alias to YAML) or a description with a colon stays
one string, and a rule's words cannot break out of their field. Below the frontmatter is
learn's managed section, planned like any rule file (`edits.plan_text`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from learn.report.edits import (
    ApplyError,
    FilePlan,
    RuleEdit,
    editable_text,
    has_marker,
    normalize_rule,
    plan_text,
    read_bytes,
    seeded,
    sha256,
    split_lines,
)
from learn.report.words import flatten

__all__ = ["agent_file_limit", "frontmatter_for", "plan_agent_file"]

DESCRIPTION = "Rules learn wrote from what you kept telling your agents"
# Characters a glob may hold to be written bare: no space, quote, colon or `#`, so the
# value is the rest of its line to any reader and cannot end the field or the block.
_BARE_GLOB: Final = re.compile(r"[\w./*?{}\[\]!@+\-]+")
# The first character of a YAML plain scalar: not one of its indicators.
_PLAIN_START: Final = re.compile(r"[\w./]")
# One brace set with no braces inside it: `*.{ts,tsx}`.
_BRACES: Final = re.compile(r"\{([^{}]*)\}")
# Words YAML reads as the string they say, bare: no indicator first, no `: ` or ` #`.
_PLAIN_WORDS: Final = re.compile(r"[A-Za-z0-9(][^:#'\"\\{}\[\]]*")


def agent_file_limit(path: Path) -> int | None:
    """The characters an agent reads of its rule file at `path`, when it stops reading."""
    from learn.reduce.agent_files import WINDSURF_MAX_CHARS

    return WINDSURF_MAX_CHARS if ".windsurf" in path.parts else None


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cursor_globs(globs: Sequence[str]) -> str:
    """Cursor's `globs` value: the patterns joined by commas, bare.

    Cursor reads `.mdc` frontmatter with a line reader when YAML fails, and that reader
    keeps quotes as part of the pattern and reads a YAML list as no globs at all (measured
    on Cursor 3.17 and reported in public issues; its docs and staff give the bare
    comma-joined form, a space after a comma breaking the match). So the value is bare,
    opening with a glob YAML can read as a plain scalar when there is one (order does
    not change the scope): then YAML parsers read the same string. A scope of globs that
    all open with `*` stays bare, which Cursor reads and strict YAML does not. A glob
    with any other character (a space, a quote, a colon) is quoted as a JSON string.
    """
    patterns = [p for g in globs for p in _expand_braces(g)]
    if not all(_BARE_GLOB.fullmatch(p) for p in patterns):
        return _string(",".join(globs))
    ordered = sorted(patterns, key=lambda p: _PLAIN_START.match(p) is None)
    return ",".join(ordered)


def _expand_braces(glob: str, limit: int = 32) -> list[str]:
    """`src/*.{ts,tsx}` as `src/*.ts`, `src/*.tsx`: a comma inside braces would split one
    pattern in two in a comma-joined value. Left whole past `limit` patterns."""
    out: list[str] = []
    todo = [glob]
    while todo and len(out) + len(todo) <= limit:
        g = todo.pop(0)
        m = _BRACES.search(g)
        if m is None or "," not in m.group(1):
            out.append(g)
            continue
        todo[:0] = [g[:m.start()] + alt + g[m.end():] for alt in m.group(1).split(",")]
    return out if not todo else [glob]


def _cursor_words(text: str) -> str:
    """A description Cursor shows as written: bare when YAML reads it as that string."""
    return text if _PLAIN_WORDS.fullmatch(text) and text == text.strip() else _string(text)


def frontmatter_for(path: Path, globs: Sequence[str], description: str = "") -> str:
    """The frontmatter a new rule file at `path` opens with ("" for a plain file)."""
    name, parts = path.name, path.parts
    about = _string(flatten(description or DESCRIPTION, 200))
    if name.endswith(".instructions.md"):
        return _block([f"applyTo: {_string(','.join(globs) if globs else '**')}"])
    if name.endswith(".mdc"):
        about = _cursor_words(flatten(description or DESCRIPTION, 200))
        if globs:
            return _block([f"description: {about}", f"globs: {_cursor_globs(globs)}",
                           "alwaysApply: false"])
        return _block([f"description: {about}", "alwaysApply: true"])
    if ".windsurf" in parts:
        if globs:
            return _block(["trigger: glob", f"globs: {_string(','.join(globs))}"])
        return _block(["trigger: always_on"])
    if ".kiro" in parts:
        if globs:
            pattern = _string(globs[0]) if len(globs) == 1 else \
                "[" + ", ".join(_string(g) for g in globs) + "]"
            return _block(["inclusion: fileMatch", f"fileMatchPattern: {pattern}"])
        return _block(["inclusion: always"])
    return ""


def _block(lines: Sequence[str]) -> str:
    return "\n".join(["---", *lines, "---", ""]) + "\n"


def _old_line_in(text: str | None, old: str | None) -> str | None:
    """`old` (a restated or contradicted rule's line) when this file holds it, for
    plan_text to rewrite it, or to say it is left when it cannot; None when the file
    never had it: the rule is only appended, with no "delete the old one" to chase."""
    if not text or not old:
        return None
    want = normalize_rule(old)
    return old if want and any(normalize_rule(x) == want for x in split_lines(text)) else None


def plan_agent_file(path: Path, edits: Sequence[RuleEdit], *, max_chars: int | None = None) -> FilePlan:
    """learn's section in another agent's rule file, a new file opening with its frontmatter."""
    data = read_bytes(path)
    original = editable_text(path, data)
    plan = FilePlan(path=path, original=original, original_hash=sha256(data) if data is not None
                    else "", new_text=original or "")
    fresh = [e for e in edits if original is None or not has_marker(original, e.key)]
    plan.notes += [f"{e.key}: already in {path.name}" for e in edits if e not in fresh]
    if not fresh:
        return plan
    first = fresh[0]
    base = seeded(original, frontmatter_for(path, first.surface_rules,
                                            first.description or first.text))
    lines = [RuleEdit(key=e.key, text=e.text, target=e.target, provenance=e.provenance,
                      decision=e.decision, replace_line=_old_line_in(original, e.replace_line))
             for e in fresh]
    new, applied_lines, notes = plan_text(base, lines, path)
    plan.notes += notes
    if max_chars is not None and len(new) > max_chars:
        raise ApplyError(f"{path} would be {len(new):,} characters; its agent reads at most "
                         f"{max_chars:,} of a file. Prune it, or move rules out")
    keys = {e.key for e in applied_lines}
    plan.applied = [e for e in fresh if e.key in keys]
    plan.new_text = new
    return plan
