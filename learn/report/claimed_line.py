"""The line of the person's that coverage says a rule restates or contradicts: whether
learn may take it for the rule's own line.

Coverage (learn.reduce.coverage) is a model's answer, and it names the line by its text:
`learn apply` then rewrites that line where it is (learn.report.targets.existing_in_place)
and every agent reading that file counts as having the rule
(learn.report.agent_targets). A line found only in an agent's own memory (auto-memory,
Codex memories) is generated state, never edited in place; and a line that shares no
subject with the rule is not the rule's, whatever the answer says (`unrelated_line`).
"""

from __future__ import annotations

from pathlib import Path

from learn.records.proposal import Proposal
from learn.reduce.subject import shared_subject
from learn.textfold import flatten


def in_memory(p: Proposal) -> bool:
    """Covered only by an agent's own memory (auto-memory, Codex memories): promoted to a
    rule file, never edited in place (memories are generated state)."""
    from learn.reduce.surfaces import is_memory_file

    return p.status == "restated" and is_memory_file(p.existing_rule_file)


def unrelated_line(p: Proposal) -> bool:
    """Whether coverage called `p` a restatement or contradiction of a line it shares no
    subject with (learn.reduce.subject): not its rule, not one of the person's quotes.

    Coverage is a model's answer, and a transcript can steer it: "Never push to main"
    answered as contradicted by "Use bun for installs" had `learn apply` delete the
    safety rule for the unrelated one. Such a line is never replaced; the rule is
    added as a new one and the person is told (`unrelated_note`)."""
    if p.status not in ("restated", "contradicts") or not p.existing_rule or in_memory(p):
        return False
    said = (p.rule_text, p.text, *(q.text for q in p.quotes))
    return not shared_subject(p.existing_rule, said)


def _line_number(path: Path, line: str) -> int | None:
    """The first line of `path` holding `line` (1-based), None when none does."""
    from learn.report.confine import read_regular
    from learn.report.errors import ConfinementError

    try:
        data = read_regular(path)
    except ConfinementError:
        return None
    want = flatten(line)
    for n, text in enumerate((data or b"").decode("utf-8", "replace").splitlines(), 1):
        if want and want in flatten(text):
            return n
    return None


def unrelated_note(p: Proposal) -> str | None:
    """What the person is told when `p` is added as a new line because the line coverage
    named shares no subject with it (`unrelated_line`); None otherwise."""
    if not unrelated_line(p):
        return None
    from learn.models.items import flatten as one_line

    file = Path(p.existing_rule_file).expanduser() if p.existing_rule_file else None
    n = _line_number(file, p.existing_rule or "") if file is not None else None
    where = (f"line {n} of {file}" if n is not None
             else f"a line of {file}" if file is not None else "a line of your rules")
    said = "contradicts" if p.status == "contradicts" else "restates"
    return (f'{p.key}: coverage said it {said} {where} ("{one_line(p.existing_rule or "", 100)}"), '
            "but the two share no subject (no word, command, tool or path in common), so "
            "learn leaves that line as it is and adds the rule as a new line; if they are one "
            "rule, delete or edit the old line yourself")
