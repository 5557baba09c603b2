"""A rule the agent keeps breaking, put where it is enforced instead of repeated.

Prose in CLAUDE.md is advice the model may ignore; a permission rule is not.
So an *ignored* rule (learn.reduce.outcomes) of the "never run X" / "don't touch Y"
kind becomes a proposal for:
- Claude Code: `permissions.deny` in the project's `.claude/settings.json`
  (`Bash(git push --force:*)` refuses `git push --force` and anything after it;
  `Edit(path/**)` refuses edits under a folder: Edit rules cover every
  file-editing tool);
- Codex: a `prefix_rule(..., decision = "forbidden")` in `~/.codex/rules/learn.rules`
  (execpolicy's Starlark; `match` / `not_match` examples are checked by Codex when
  it loads), whose justification is the person's rule.
Only what the rule forbids exactly (learn.report.prohibitions): a deny never
covers a command the rule prescribes, nor one the person ran and let stand in a
session since the rule was in place. Where a prefix cannot say the prohibition
("never rm -rf on the data dir"), no deny is proposed.
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
from typing import Any, Final

from learn.records.proposal import Proposal, Verdict
from learn.reduce.outcomes import RuleOutcome
from learn.reduce.slug import is_label
from learn.report.edits import dominant_newline, is_safe_key, split_lines
from learn.report.errors import UnsafeMarkError
from learn.report.json_settings import edit_settings
from learn.report.prohibitions import Command, blocks, read_rule
from learn.store.proposals import ProposalBook

Surface = str  # "permission" | "command"


@dataclasses.dataclass(frozen=True, slots=True)
class Ran:
    """The commands a session ran that nobody refused (a denied call is not here)."""

    session_id: str
    started_at: str | None  # ISO 8601
    commands: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Enforcement:
    commands: tuple[Command, ...] = ()  # exact token prefixes never to run, flags included
    paths: tuple[str, ...] = ()  # folders / files never to edit
    keep: tuple[str, ...] = ()  # commands that must stay allowed (prescribed, or ran since)
    spared: tuple[str, ...] = ()  # prohibitions not denied, and why

    @property
    def empty(self) -> bool:
        return not self.commands and not self.paths

    def claude_rules(self) -> list[str]:
        # The words as the person wrote them: Claude Code compares a rule's prefix with
        # the command's text, and shlex.join's quoting (`rm -rf '~'`) named another
        # command, one no agent runs (`plain_command` keeps out what needed quoting).
        rules = [f"Bash({' '.join(c)}:*)" for c in self.commands]
        for p in self.paths:
            p = p[2:] if p.startswith("./") else p.rstrip("/")
            glob = p if ("*" in p or "." in Path(p).name) else f"{p}/**"
            rules.append(f"Edit({glob})")
        return rules


# A word a deny rule may hold: shlex's words that need no quoting, and `~`. Anything
# else is a pattern or shell syntax. Claude Code reads `*` in a Bash rule as a
# wildcard (`rm -rf *` would refuse every `rm -rf`, more than was forbidden), splits
# a command on `|`, `;` and `&&` before matching (a rule holding one never matches),
# and Codex matches words after the shell's parse; the two agents would each
# enforce something else than the person's words.
_PLAIN_WORD: Final = re.compile(r"[\w@%+=:,./~-]+")


# The deny rules `Enforcement.claude_rules` makes, and no other: `Bash(<plain words>:*)`
# and `Edit(<path or glob>)` (the characters learn.report.prohibitions takes a path in).
_DENY_RULE: Final = re.compile(
    r"Bash\((?:[\w@%+=:,./~-]+ )*[\w@%+=:,./~-]+:\*\)|Edit\(((?!/)[\w./*-]+)\)")


def is_deny_rule(rule: str) -> bool:
    """Whether `rule` is a deny rule learn makes (`Enforcement.claude_rules`).

    A permission proposal read back from a store (a shared database, a hand edit, another
    program) carries its rules as it was given them: `Bash(*)` or `mcp__x__*` refused far
    more than the person forbade, and a rule Claude Code cannot read (`Bash(rm -rf /)*`,
    `Bash(x`) made the Claude Code 2.0 releases skip the whole settings file ("Files with
    errors are skipped entirely", anthropics/claude-code#15056; 2.1.267 skips the rule
    alone): every deny rule the person had stopped applying."""
    m = _DENY_RULE.fullmatch(rule)
    # A path inside the project, as prohibitions reads one: not above it (`..`), not
    # absolute (Claude Code reads `/x` from the settings' folder, `//x` from the root).
    return m is not None and ".." not in (m.group(1) or "").split("/")


def plain_command(command: Command) -> bool:
    """Whether every word of `command` is plain (above): one both agents' rules say exactly."""
    return bool(command) and all(_PLAIN_WORD.fullmatch(w) for w in command)


def codex_refusal(command: str) -> str | None:
    """Why `command`, as a proposal carries it (`surface_commands`: plain words joined by
    one space, as `escalate` stores them), gets no Codex prefix_rule; None when it may.

    A stored proposal (a shared team database, a hand edit, another program) carries
    whatever it was given. Each word of the pattern is written between double quotes as
    JSON (`starlark_literal`), and a plain word needs no escape there: the pattern the
    diff shows is the words Codex matches, byte for byte, and no plain word holds the `"`
    or `\\` that would end or bend the string, a line break that would end the line, or
    the `)` / `]` that close the list and the call (plain_command is the one test, the
    same as for a deny rule). An empty command was written `pattern = []`, which Codex
    refuses ("pattern cannot be empty", 0.171.0), and with it every rule of the file."""
    words = tuple(command.split(" "))
    if plain_command(words):
        return None
    odd = next((w for w in words if w and not _PLAIN_WORD.fullmatch(w)), None)
    if not command.strip():
        why = "it names no command"
    elif odd is not None:
        why = f"{odd[:60]!r} is not a plain word of a command (letters, digits, `_@%+=:,./~-`)"
    else:
        why = f"{command[:60]!r} is not words joined by one space"
    return f"{why}; no Codex prefix_rule is written for it"


def enforcement_for(rule: str, quotes: Sequence[str] = (), ran: Sequence[str] = ()) -> Enforcement:
    """What `rule` forbids exactly, less what must stay allowed: the commands it or the
    person's `quotes` prescribe, and those that `ran` since without objection."""
    reading = read_rule(rule, tuple(quotes))
    keep = (*reading.prescribed, *ran)
    commands: list[Command] = []
    spared: list[str] = [f"{words}: a prefix rule cannot say it" for words in reading.narrowed]
    for c in reading.forbidden:
        if not plain_command(c):
            spared.append(f"{' '.join(c)}: a prefix rule cannot say it exactly (a pattern or "
                          "shell syntax in it)")
            continue
        hit = next((x for x in keep if blocks(c, x)), None)
        if hit is None:
            commands.append(c)
        else:
            why = "the rule prescribes it" if hit in reading.prescribed else \
                "you ran it since the rule was in place"
            spared.append(f"{' '.join(c)}: it would refuse `{hit}` ({why})")
    return Enforcement(tuple(commands), reading.paths, tuple(dict.fromkeys(keep)), tuple(spared))


_STEPS = re.compile(r"(?:^|\s)(?:\d+[.)]|first\b.*\bthen\b|then\b.*\bthen\b|and then\b)", re.I)


def is_procedure(text: str) -> bool:
    """Several steps in order ("first …, then …", numbered): a command, not a rule."""
    return bool(_STEPS.search(text)) and len(text) > 40


def accepted_since(o: RuleOutcome, ran: Sequence[Ran]) -> list[str]:
    """Commands that ran in sessions started since the rule was in place, other than the
    sessions where the person said the rule again (there the agent broke it)."""
    broken = {q.session_id for q in o.quotes_since}
    return [c for r in ran if r.session_id not in broken and r.started_at
            and r.started_at >= o.applied_at for c in r.commands]


def escalate(o: RuleOutcome, base: Proposal | None = None,
             ran: Sequence[Ran] = ()) -> Proposal | None:
    """The escalation of an ignored rule, or None (holding, too early, nothing a prefix
    can enforce exactly)."""
    if o.verdict != "ignored":
        return None
    quotes = o.quotes_since
    enforce = enforcement_for(o.rule_text, [q.text for q in quotes], accepted_since(o, ran))
    label = o.label
    last = max((q.at for q in quotes if q.at), default=None)
    scope = base.verdict.scope if base and base.verdict else "project"
    if not enforce.empty:
        rules = enforce.claude_rules()
        summary = ("Enforce it: deny " + ", ".join(rules) + " in .claude/settings.json"
                   + (" (and a Codex forbidden prefix_rule)" if enforce.commands else ""))
        spared = f"; not denied: {'; '.join(enforce.spared)}" if enforce.spared else ""
        return Proposal(
            kind="directive", label=f"{label}-enforced", text=o.rule_text,
            sessions=o.said_since, count=len(quotes), last_seen=last, quotes=quotes,
            rationale=f"the rule \"{o.rule_text}\" was ignored in {o.said_since} session(s) since "
                      f"it was written{spared}",
            verdict=Verdict(True, summary, "enforcement", scope, 1.0,
                            rationale="written as prose and broken again: a permission rule is "
                                      "enforced by the tool, not left to the model"),
            surface="permission", surface_rules=tuple(rules),
            surface_commands=tuple(' '.join(c) for c in enforce.commands),
            surface_allowed=enforce.keep[:8],
        )
    if is_procedure(o.rule_text):
        return Proposal(
            kind="request", label=f"{label}-command", text=o.rule_text, sessions=o.said_since,
            count=len(quotes), last_seen=last, quotes=quotes,
            verdict=Verdict(True, f"Make it a command: {o.rule_text}", "procedure", scope, 1.0,
                            rationale="a procedure the agent does not follow from a rule line; "
                                      "a command is typed when wanted and followed step by step"),
            surface="command",
            # The procedure as the person accepted it is the command's instruction.
            command_body=o.rule_text,
        )
    return None


def merged_settings(original: str | None, deny: Sequence[str], path: Path) -> str:
    """settings.json with `deny` added to permissions.deny (kept, order kept, no doubles).

    The rest of the file is kept as written (learn.report.json_settings); ValueError
    when it is not a JSON object, or has a key twice (learn does not guess at a file
    Claude Code itself would reject, nor drop one of the two)."""

    def add(data: dict[str, Any]) -> dict[str, Any]:
        perms = data.setdefault("permissions", {})
        if not isinstance(perms, dict):
            raise ValueError(f"{path}: `permissions` is not an object; fix it by hand first")
        have = perms.setdefault("deny", [])
        if not isinstance(have, list):
            raise ValueError(f"{path}: `permissions.deny` is not a list; fix it by hand first")
        for rule in deny:
            if rule not in have:
                have.append(rule)
        return data

    new = edit_settings(original, path, add)
    return new if new is not None else original or ""


def _tokens(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def starlark_literal(value: Any) -> str:
    """`value` (strings, lists of them) as a Starlark literal in a Codex `.rules` file.

    JSON's string syntax is Starlark's, but for one escape: JSON writes a character
    past U+FFFF as two `\\u` surrogate escapes, which Starlark refuses ("invalid string
    escape sequence"), and Codex then loads none of the file's rules (`codex execpolicy
    check`, 0.171.0). Written as itself in UTF-8, as Starlark reads it; the control
    characters JSON escapes (`\\n`, `\\u0001`) Starlark reads the same
    (tests/test_codex_rules_literals.py checks with the real Codex). The three line
    breaks JSON leaves as they are (U+0085, U+2028, U+2029) are escaped too: one raw in
    a string would be a line break to any reader that splits lines as Python does.
    """
    return json.dumps(value, ensure_ascii=False).translate(_RAW_BREAKS)


_RAW_BREAKS: Final = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _has_surrogate(command: str) -> bool:
    # A lone surrogate (from undecodable bytes kept as they were) has no UTF-8 spelling:
    # no rule for it can be written.
    return any("\ud800" <= ch <= "\udfff" for ch in command)


def codex_rule_text(command: str, justification: str, key: str,
                    keep: Sequence[str] = ()) -> str:
    """One execpolicy prefix_rule forbidding `command` (and what follows it); the
    justification Codex shows when it refuses is the person's rule. Commands that
    must stay allowed, and share the program, are `not_match` examples: Codex
    refuses to load a rule that would forbid one of them."""
    tokens = _tokens(command)
    # An example the pattern matches as Codex does (its words start with the pattern's)
    # makes Codex refuse the whole file when it loads: never one, however `blocks` read it.
    examples = [ex for ex in (list(_tokens(seg)) for k in keep for seg in k.split("&&")
                              if not blocks(tuple(tokens), seg))
                if ex[:1] == tokens[:1] and ex[:len(tokens)] != tokens][:3]
    # A line of its own in Starlark: a line break would be code. A proposal's key, or the
    # id of a rule of learn's check (learn check writes Codex rules under it).
    if not (is_safe_key(key) or is_label(key)):
        raise UnsafeMarkError(f"{key!r} is not a key learn makes; no Codex rule is written for it")
    lines = [f"# learn {key}", "prefix_rule(", f"    pattern = {starlark_literal(tokens)},",
             '    decision = "forbidden",',
             f"    justification = {starlark_literal(justification)},",
             f"    match = [{starlark_literal(tokens)}],"]
    if examples:
        lines.append(f"    not_match = {starlark_literal(examples)},")
    return "\n".join([*lines, ")"]) + "\n"


def merged_codex_rules(original: str | None, commands: Sequence[str], justification: str,
                       key: str, keep: Sequence[str] = ()) -> str:
    text = original or "# Written by `learn apply`: commands you told the agent never to run.\n"
    # The new block takes the file's own line ending: LF lines appended to a CRLF file
    # left it with mixed endings, which editors and diff tools then flag on every line.
    nl = dominant_newline(split_lines(text))
    if not text.endswith(("\n", "\r")):
        text += nl
    for c in commands:
        if _has_surrogate(c) or _has_surrogate(justification):
            continue
        tokens = _tokens(c)
        # Written before as JSON's ASCII escapes, or now as itself: either is this rule.
        if any(f"pattern = {spelled}," in text
               for spelled in (starlark_literal(tokens), json.dumps(tokens))):
            continue
        # codex_rule_text's lines hold JSON strings, which escape any newline of their own:
        # every "\n" in the block is a line ending.
        text += nl + codex_rule_text(c, justification, key, keep).replace("\n", nl)
    return text


def escalations_for(book: ProposalBook, project: str | None, outcomes: Sequence[RuleOutcome],
                    proposals: Sequence[Proposal],
                    ran: Sequence[Ran] = ()) -> tuple[list[RuleOutcome], list[Proposal]]:
    """Each ignored rule's escalation as a proposal, unless the person already applied
    it, or declined it and it was not said in REOFFER_FACTOR times the sessions since.
    `ran`: the commands of the sessions read, so a deny spares what the person let run."""
    by_key = {p.key: p for p in proposals}
    out: list[RuleOutcome] = []
    made: list[Proposal] = []
    for o in outcomes:
        proposal = escalate(o, by_key.get(o.key), ran)
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
