"""A rule the agent keeps breaking, put where it is enforced instead of repeated.

Prose in CLAUDE.md is advice the model may ignore; a permission rule is not.
So an *ignored* rule (learn.reduce.outcomes) of the "never run X" / "don't touch Y"
kind becomes a proposal for:
- Claude Code: `permissions.deny` in the project's `.claude/settings.json`
  (`Bash(git push:*)` refuses `git push` and anything after it; `Edit(path/**)`
  refuses edits under a folder: Edit rules cover every file-editing tool);
- Codex: a `prefix_rule(..., decision = "forbidden")` in `~/.codex/rules/learn.rules`
  (execpolicy's Starlark; `match` examples are checked by Codex when it loads).
A multi-step procedure that keeps being asked for again becomes a command.

Each is a Proposal like any other (kind directive, its own label, the quotes since
the rule as evidence) with `surface` set, so it is pending until the person
applies or declines it, and `learn apply` shows the change as a diff.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from learn.records.proposal import Proposal, Verdict
from learn.reduce.outcomes import RuleOutcome
from learn.store.proposals import ProposalBook

# "never run `git push`", "don't run git push", "stop running npm install", "do not use yarn"
_RUN = re.compile(
    r"\b(?:never|don'?t|do not|stop|no more|avoid)\s+(?:ever\s+)?"
    r"(?:run(?:ning)?|use|using|call(?:ing)?|execute|executing|invoke|invoking|type)\s+"
    r"`?([a-z0-9][\w.+-]*(?:\s+-{0,2}[a-z][\w.-]*)?)`?", re.IGNORECASE)
# "don't touch vendor/", "never edit `migrations/`", "do not modify generated/api.ts"
_TOUCH = re.compile(
    r"\b(?:never|don'?t|do not|stop|avoid)\s+(?:ever\s+)?"
    r"(?:touch(?:ing)?|edit(?:ing)?|modify(?:ing)?|chang(?:e|ing)|writ(?:e|ing) to|delet(?:e|ing))\s+"
    r"(?:the\s+|anything in\s+|files in\s+)?`?([\w./-]*[/.][\w./*-]*)`?", re.IGNORECASE)
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
# Words that follow "never run" but are not a program ("never run it", "don't use that").
_NOT_PROGRAMS = {"it", "that", "this", "them", "the", "a", "an", "any", "anything", "those",
                 "these", "again", "tests", "code"}

Surface = str  # "permission" | "command"


@dataclasses.dataclass(frozen=True, slots=True)
class Enforcement:
    commands: tuple[tuple[str, ...], ...] = ()  # token prefixes never to run
    paths: tuple[str, ...] = ()  # folders / files never to edit

    @property
    def empty(self) -> bool:
        return not self.commands and not self.paths

    def claude_rules(self) -> list[str]:
        rules = [f"Bash({' '.join(c)}:*)" for c in self.commands]
        for p in self.paths:
            p = p.strip("./") if p.startswith("./") else p.rstrip("/")
            glob = p if ("*" in p or "." in Path(p).name) else f"{p}/**"
            rules.append(f"Edit({glob})")
        return rules


def _command(words: str) -> tuple[str, ...] | None:
    try:
        tokens = shlex.split(words)
    except ValueError:
        tokens = words.split()
    tokens = [t.strip(".,;:!?") for t in tokens]
    tokens = [t for t in tokens if t]
    if not tokens or tokens[0].lower() in _NOT_PROGRAMS or not re.match(r"^[a-z0-9][\w.+-]*$",
                                                                          tokens[0], re.I):
        return None
    # Program plus one subcommand ("git push", "npm install"); a flag or a path after
    # the program is an argument, not part of what to forbid.
    if len(tokens) > 1 and re.match(r"^[a-z][\w-]*$", tokens[1]) and tokens[1] not in _NOT_PROGRAMS:
        return (tokens[0].lower(), tokens[1].lower())
    return (tokens[0].lower(),)


def enforcement_for(texts: Sequence[str]) -> Enforcement:
    """What `texts` (the rule, the quotes) forbid, when it is a command or a path."""
    commands: dict[tuple[str, ...], None] = {}
    paths: dict[str, None] = {}
    for text in texts:
        for m in _RUN.finditer(text):
            cmd = _command(m.group(1))
            if cmd:
                commands.setdefault(cmd)
        for m in _TOUCH.finditer(text):
            path = m.group(1).strip("`'\".,;:")
            if path and not path.startswith(("http", "/")) and ".." not in path:
                paths.setdefault(path)
        if not commands and re.search(r"\b(?:never|don'?t|do not)\b", text, re.I):
            # "never `git push --force`": a backticked command after a prohibition.
            for m in _BACKTICK.finditer(text):
                cmd = _command(m.group(1))
                if cmd and "/" not in m.group(1):
                    commands.setdefault(cmd)
    return Enforcement(tuple(commands), tuple(paths))


_STEPS = re.compile(r"(?:^|\s)(?:\d+[.)]|first\b.*\bthen\b|then\b.*\bthen\b|and then\b)", re.I)


def is_procedure(text: str) -> bool:
    """Several steps in order ("first …, then …", numbered): a command, not a rule."""
    return bool(_STEPS.search(text)) and len(text) > 40


def escalate(o: RuleOutcome, base: Proposal | None = None) -> Proposal | None:
    """The escalation of an ignored rule, or None (holding, too early, nothing to enforce)."""
    if o.verdict != "ignored":
        return None
    texts = [o.rule_text, *(q.text for q in o.quotes_since)]
    enforce = enforcement_for(texts)
    label = o.label
    quotes = o.quotes_since
    last = max((q.at for q in quotes if q.at), default=None)
    scope = base.verdict.scope if base and base.verdict else "project"
    if not enforce.empty:
        rules = enforce.claude_rules()
        summary = ("Enforce it: deny " + ", ".join(rules) + " in .claude/settings.json"
                   + (" (and a Codex forbidden prefix_rule)" if enforce.commands else ""))
        return Proposal(
            kind="directive", label=f"{label}-enforced", text=o.rule_text,
            sessions=o.said_since, count=len(quotes), last_seen=last, quotes=quotes,
            rationale=f"the rule \"{o.rule_text}\" was ignored in {o.said_since} session(s) since "
                      "it was written",
            verdict=Verdict(True, summary, "enforcement", scope, 1.0,
                            rationale="written as prose and broken again: a permission rule is "
                                      "enforced by the tool, not left to the model"),
            surface="permission", surface_rules=tuple(rules),
            surface_commands=tuple(" ".join(c) for c in enforce.commands),
        )
    if is_procedure(o.rule_text):
        return Proposal(
            kind="request", label=f"{label}-command", text=o.rule_text, sessions=o.said_since,
            count=len(quotes), last_seen=last, quotes=quotes,
            verdict=Verdict(True, f"Make it a command: {o.rule_text}", "procedure", scope, 1.0,
                            rationale="a procedure the agent does not follow from a rule line; "
                                      "a command is typed when wanted and followed step by step"),
            surface="command",
        )
    return None


def merged_settings(original: str | None, deny: Sequence[str], path: Path) -> str:
    """settings.json with `deny` added to permissions.deny (kept, order kept, no doubles).

    Everything else in the file is carried over; ValueError when it is not a JSON
    object (learn does not guess at a file Claude Code itself would reject)."""
    data: object = {}
    if original is not None and original.strip():
        try:
            data = json.loads(original)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix "
                             "it first, learn does not rewrite a file it cannot read") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object; learn does not rewrite it")
    perms = data.setdefault("permissions", {})
    if not isinstance(perms, dict):
        raise ValueError(f"{path}: `permissions` is not an object; fix it by hand first")
    have = perms.setdefault("deny", [])
    if not isinstance(have, list):
        raise ValueError(f"{path}: `permissions.deny` is not a list; fix it by hand first")
    for rule in deny:
        if rule not in have:
            have.append(rule)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def codex_rule_text(command: str, justification: str, key: str) -> str:
    """One execpolicy prefix_rule forbidding `command` (and what follows it)."""
    tokens = command.split()
    pattern = json.dumps(tokens)
    example = json.dumps([*tokens, "origin"] if len(tokens) > 1 else tokens)
    why = json.dumps(f"{justification} (learn {key})", ensure_ascii=False)
    return (f"prefix_rule(\n    pattern = {pattern},\n    decision = \"forbidden\",\n"
            f"    justification = {why},\n    match = [{example}],\n)\n")


def merged_codex_rules(original: str | None, commands: Sequence[str], justification: str,
                       key: str) -> str:
    text = original or "# Written by `learn apply`: commands you told the agent never to run.\n"
    if not text.endswith("\n"):
        text += "\n"
    for c in commands:
        if json.dumps(c.split()) in text:
            continue
        text += "\n" + codex_rule_text(c, justification, key)
    return text


def escalations_for(book: ProposalBook, project: str | None, outcomes: Sequence[RuleOutcome],
                    proposals: Sequence[Proposal]) -> tuple[list[RuleOutcome], list[Proposal]]:
    """Each ignored rule's escalation as a proposal, unless the person already applied
    it, or declined it and it was not said in REOFFER_FACTOR times the sessions since."""
    import dataclasses

    by_key = {p.key: p for p in proposals}
    out: list[RuleOutcome] = []
    made: list[Proposal] = []
    for o in outcomes:
        proposal = escalate(o, by_key.get(o.key))
        if proposal is None:
            out.append(o)
            continue
        state = book.decided(project, [proposal.key]).get(proposal.key)
        threshold = book.reoffer_threshold(proposal.key, project)
        if state in ("applied", "edited") or (
                state == "declined" and threshold is not None and proposal.sessions < threshold):
            out.append(dataclasses.replace(o, escalation={
                "key": proposal.key, "summary": proposal.verdict.summary if proposal.verdict
                else "", "state": state}))
            continue
        made.append(proposal)
        out.append(dataclasses.replace(o, escalation={
            "key": proposal.key, "summary": proposal.verdict.summary if proposal.verdict else "",
            "state": "pending"}))
    return out, made
