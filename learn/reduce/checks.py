"""learn's checks in place (learn.guard), as outcomes read them: which rule each checks,
since when, on which agents, and how often it stopped the agent or would have.

A check is tied to a rule in place by the rule's key (`kind:label`, set when the
check is proposed for an ignored rule, or with `learn check add --key`). Read from
the project's data file, its hits log and install record; a damaged file is read
as no check (`learn check list` says what is wrong with it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from learn.guard.files import record_file, rules_file
from learn.guard.rules import BadRules, load_rules, read_hits, tally


@dataclass(frozen=True, slots=True)
class CheckInPlace:
    key: str | None  # the rule in place it checks (None: one the person added by hand)
    rule_id: str
    mode: str  # record | enforce
    installed_at: str | None
    enforced_at: str | None
    agents: tuple[str, ...]
    would: tuple[int, int]  # (times, sessions) noted while record-only
    stopped: tuple[int, int]  # (times, sessions) stopped while enforced
    words: str = ""  # the rule in a line (learn.guard.rules.CheckRule.words)
    project: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rule_id": self.rule_id, "key": self.key, "words": self.words,
                "project": self.project, "mode": self.mode, "installed_at": self.installed_at,
                "enforced_at": self.enforced_at, "agents": list(self.agents),
                "would_have_stopped": self.would[0], "would_sessions": self.would[1],
                "stopped": self.stopped[0], "stopped_sessions": self.stopped[1]}


def checks_in_place(projects: Iterable[str], root: Path | None = None) -> dict[str, CheckInPlace]:
    """key of the rule checked -> its check, over `projects`."""
    return {c.key: c for c in all_checks(projects, root) if c.key}


def all_checks(projects: Iterable[str], root: Path | None = None) -> list[CheckInPlace]:
    """Every check of `projects`, tied to a rule in place or not."""
    out: list[CheckInPlace] = []
    for project in projects:
        path = rules_file(project, root)
        if not path.exists():
            continue
        try:
            rules = load_rules(path).rules
        except BadRules:
            continue
        try:
            record = json.loads(record_file(project, root).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        agents = tuple(a for a in (record.get("agents") or []) if isinstance(a, str)) \
            if isinstance(record, dict) else ()
        hits = read_hits(path)
        out.extend(CheckInPlace(r.key, r.id, r.mode, r.added_at, r.enforced_at,
                                agents or ("claude",), tally(hits, r.id, r.added_at, "record"),
                                tally(hits, r.id, r.added_at, "enforce"), r.words(), project)
                   for r in rules)
    return out
