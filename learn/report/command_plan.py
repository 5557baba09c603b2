"""A command's file: the slash command Claude Code reads, the custom prompt an old Codex
reads, the skill a current one reads and the policy that keeps it for when the person
names it (learn.report.codex_commands); planned here, written by learn.report.apply."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from learn.report.codex_commands import (
    EXPLICIT_ONLY,
    POLICY_FILE,
    is_codex_skill,
    policy_path,
)
from learn.report.codex_prompt import codex_description, is_codex_prompt
from learn.report.confine import confine
from learn.report.edits import (
    ApplyError,
    FilePlan,
    RuleEdit,
    body_too_long,
    has_marker,
    learn_comment,
    sha256,
)
from learn.report.inline_read import read
from learn.report.prose import plain_prose
from learn.report.words import flatten
from learn.report.writable import read_only_reason, read_planned

# The columns of a command's description: one line of the command menus.
_DESCRIPTION_COLUMNS: Final = 80


def command_description(text: str) -> str:
    """`text` as prose (learn.report.prose) on one line of at most _DESCRIPTION_COLUMNS,
    cut with an ellipsis, never inside a code span: one cut through is closed after the
    ellipsis ("run `pnpm lint --fix…`"), or left out when none of its words fit.

    Cut as plain text, the span lost its closing backtick, and the code spans are what
    keep a tag learn made safe (`<img src=x onerror=…>`) from being HTML: read as
    Markdown, the rest of the line was one loose backtick and a live tag."""
    whole = flatten(plain_prose(text))
    cut = flatten(whole, _DESCRIPTION_COLUMNS)
    kept = len(cut) - 1  # the characters of `whole` before the ellipsis
    piece = next((x for x in read(whole) if x.kind != "text" and x.start < kept < x.end), None)
    if cut == whole or piece is None:
        return cut
    if piece.kind == "code":
        fence = len(whole[piece.start:piece.end]) - len(whole[piece.start:piece.end].lstrip("`"))
        inner = flatten(whole, _DESCRIPTION_COLUMNS - fence)
        if len(inner) - 1 > piece.start + fence:  # some of the span's words fit
            return inner + "`" * fence
    return whole[:piece.start].rstrip() + "…"


# A character YAML does not take as it is in a double-quoted scalar (outside its printable
# set), a line break a YAML 1.1 reader folds (U+0085, U+2028, U+2029), and the hyphen that
# starts a run of three.
_YAML_UNSAFE: Final = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|-(?=--)")


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar of one line, which Claude Code reads back as
    `value` whatever it holds: JSON's quoting (a JSON string is a YAML one), and a `\\u`
    escape for each character above (`_YAML_UNSAFE`).

    The hyphens: Claude Code (2.1.332) ends a command's front matter at the first `---`
    anywhere after the opening one, inside a quoted value too (`/^---\\s*\\n([\\s\\S]*?)---/`).
    A description holding "---" left its front matter `description: "`, which does not
    parse: the command had no description, and the model was sent the rest of the value
    and the closing `---` as the command's first lines (tests/test_f5_command_description
    _yaml.py, with the real client)."""
    quoted = json.dumps(value, ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def command_text(edit: RuleEdit, *, codex: bool = False, skill: str | None = None) -> str:
    """A slash command file: the instruction the model wrote from everything the person
    asked (learn.reduce.commands), prose only; the quotes stay in the digest. `codex`: a
    Codex custom prompt, whose description Codex reads without YAML's escapes
    (learn.report.codex_prompt). `skill`: a Codex skill of that name (learn.report.
    codex_commands), whose front matter Codex reads as YAML (serde_yaml): its name and
    description written as Claude Code's description is, so a `---`, a `: ` or a quote
    in the description is read back as written (tests/test_codex_skills.py, with the
    real Codex)."""
    description = command_description(edit.description or edit.text)
    if skill is not None:
        # Codex loads no skill with an empty description: the name's words, then.
        said = description or skill.replace("-", " ")
        head = f"name: {yaml_string(skill)}\ndescription: {yaml_string(said)}"
    else:
        quoted = codex_description(description) if codex else yaml_string(description)
        head = f"description: {quoted}"
    body = plain_prose(edit.body or edit.text, one_line=False)
    return f"---\n{head}\n---\n{body}\n\n{learn_comment(edit.key, edit.provenance)}\n"


def plan_command(path: Path, edits: Sequence[RuleEdit]) -> FilePlan:
    """A new command file; an existing one is left alone (it is the person's own, or
    this one already)."""
    edit = edits[0]
    if (long := body_too_long(edit.body or edit.text)) is not None:
        raise ApplyError(f"{edit.key}: {long}")
    data = read_planned(path)
    skill = path.parent.name if is_codex_skill(path) else None
    new_text = command_text(edit, codex=is_codex_prompt(path), skill=skill)
    plan = FilePlan(path=path, original=None if data is None else "",
                    original_hash=sha256(data) if data is not None else "", new_text="")
    if data is None:
        plan.new_text = new_text
        plan.applied.append(edit)
    elif has_marker(data.decode("utf-8", "replace"), edit.key):
        plan.notes.append(f"{edit.key}: the command {path.name} is already there")
    else:
        raise ApplyError(f"{path} exists and is a different command; learn does not replace it. "
                         "Rename or edit it by hand, or write a rule instead with "
                         f"--only {edit.key} --file FILE")
    for other in edits[1:]:
        plan.notes.append(f"{other.key}: {path.name} is taken by {edit.key}")
    return plan


def with_policy(plan: FilePlan, edit: RuleEdit) -> list[FilePlan]:
    """`plan`, and for a Codex skill the plan of its policy file before it (`plan_policy`):
    the skill used only when the person names it, as the custom prompt it replaces was.
    Planned whenever the command is applied, so a skill written before learn wrote the
    policy gets it when the person applies it again, and only then. First, so it is
    written first: no moment has the skill without it.

    A policy that cannot be written refuses a new skill with it: Codex would use that
    skill unasked, which is more than the command the person confirms."""
    if edit.form != "command" or plan.refused is not None or not is_codex_skill(plan.path):
        return [plan]
    try:
        policy = plan_policy(plan.path, edit, plan.projects)
    except ApplyError as exc:
        if plan.changed:
            plan.refused = (f"{plan.path} is not written: Codex would use the skill on its own, "
                            f"unasked; {exc}")
            return [plan]
        return [FilePlan(path=policy_path(plan.path), original=None, original_hash="",
                         new_text="", applied=[edit], refused=str(exc),
                         projects=plan.projects), plan]
    return [plan] if policy is None else [policy, plan]


def plan_policy(skill: Path, edit: RuleEdit, projects: Sequence[str] = ()) -> FilePlan | None:
    """The plan that makes the skill whose SKILL.md is the resolved `skill` (the one `edit`
    writes, or wrote before learn wrote this file) used only when the person names it: its
    `agents/openai.yaml` made, holding `EXPLICIT_ONLY`, confined as its own kind of file.
    None when it holds exactly that already. ApplyError when it may not be written, or
    holds other text: that file is the person's (or another tool's) then, and learn
    neither replaces it nor adds to it."""
    real = confine(policy_path(skill), projects)
    data = read_planned(real)
    if data == EXPLICIT_ONLY.encode():
        return None
    name = skill.parent.name
    if data is not None:
        raise ApplyError(f"{real} is there already, and says something else than learn's "
                         f"policy; learn does not replace it. For Codex to use ${name} only "
                         "when you type it, give it the lines `policy:` and "
                         "`  allow_implicit_invocation: false`")
    if (refused := read_only_reason(real)) is not None:
        raise ApplyError(refused)
    return FilePlan(path=real, original=None, original_hash="", new_text=EXPLICIT_ONLY,
                    applied=[edit], projects=tuple(projects),
                    notes=[f"{edit.key}: {'/'.join(POLICY_FILE)} keeps the skill ${name} "
                           "for when you type it: without it, Codex may use the skill on its "
                           "own whenever it judges a task matches"])
