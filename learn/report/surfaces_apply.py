"""Planning writes to the surfaces that are not a rule line: settings.json deny rules,
Codex execpolicy rules, and `.claude/rules/<topic>.md` files scoped with `paths:`.

Same contract as learn.report.apply: pure text in, text out, shown as a diff,
written only if the file still has the hash it was planned against.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from learn.report.edits import (
    ApplyError,
    FilePlan,
    RuleEdit,
    editable_text,
    has_marker,
    plan_text,
    read_bytes,
    seeded,
    sha256,
)
from learn.report.escalation import (
    codex_refusal,
    is_deny_rule,
    merged_codex_rules,
    merged_settings,
)


def path_rule_header(globs: Sequence[str]) -> str:
    """Frontmatter Claude Code reads to load the file only for matching files; the
    globs are quoted (a bare `*` starts a YAML alias)."""
    lines = ["---", "paths:", *(f"  - {json.dumps(g)}" for g in globs), "---", ""]
    return "\n".join(lines) + "\n"


def plan_surface(path: Path, edits: Sequence[RuleEdit]) -> FilePlan:
    data = read_bytes(path)
    original = editable_text(path, data)
    digest = sha256(data) if data is not None else ""
    plan = FilePlan(path=path, original=original, original_hash=digest, new_text=original or "")
    form = edits[0].form
    text = original
    for e in edits:
        if e.form != form:
            plan.notes.append(f"{e.key}: {path.name} is a {form} file; not a {e.form}")
            continue
        if form == "permission":
            odd = next((r for r in e.surface_rules if not is_deny_rule(r)), None)
            if odd is not None:
                plan.notes.append(f"{e.key}: {odd!r} is not a deny rule learn makes (a stored "
                                  "proposal written by hand or by another program); nothing "
                                  f"is written for it into {path.name}")
                continue
            try:
                new = merged_settings(text, e.surface_rules, path)
            except ValueError as exc:
                raise ApplyError(str(exc)) from exc
            if text is not None and new == text:  # merged_settings: the file as it was
                plan.notes.append(f"{e.key}: {', '.join(e.surface_rules)} already denied")
                continue
        elif form == "codex-rule":
            odd = next((w for c in e.surface_commands if (w := codex_refusal(c))), None)
            if odd is not None:
                plan.notes.append(f"{e.key}: {odd} (a stored proposal written by hand or by "
                                  f"another program); nothing is written for it into {path.name}")
                continue
            new = merged_codex_rules(text, e.surface_commands, e.justification or e.text, e.key,
                                     e.surface_allowed)
            if new == text:
                plan.notes.append(f"{e.key}: already a rule in {path.name}")
                continue
        else:  # path-rule
            if text is not None and has_marker(text, e.key):
                plan.notes.append(f"{e.key}: already in {path.name}")
                continue
            base = seeded(text, path_rule_header(e.surface_rules))
            line_edit = RuleEdit(key=e.key, text=e.text, target=e.target,
                                 provenance=e.provenance, decision=e.decision)
            new, _, notes = plan_text(base, [line_edit], path)
            plan.notes.extend(notes)
        text = new
        plan.applied.append(e)
    plan.new_text = text or ""
    return plan
