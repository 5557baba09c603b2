"""learn's check, offered for an ignored rule about commands that a prefix cannot hold.

A deny rule or a Codex prefix_rule matches the start of a command: "never force
push" as `Bash(git push --force:*)` stops `git push --force` and lets `git push
origin main --force`, `git -C app push -f` and `cd app && git push -f` through. So
when a rule the agent keeps breaking forbids a command *with a flag*, learn also
proposes its own check (learn.guard): the program, the subcommand, the flag in
each spelling learn knows (learn.guard.flags.spellings: the table learn's check reads
flags by) and the rule's words as the reason.
It is a proposal like any other (`<label>-check`, surface "check"), pending until
the person applies it; applied, it starts record-only (`learn check enforce`
makes it stop the agent).

What the rule forbids is what an escalation reads (learn.report.prohibitions: a
command after a negation, or a phrase that names one, "force push"); none is
offered that would stop a command the rule prescribes or the person let run in a
session since the rule. A prohibition narrowed to a branch or a folder ("never
force push to main", "never rm -rf on the data dir"), which no deny can say, gets
a check whose rule also needs a word naming it (`targets_of`); it reads the command
line, so `git push -f` with no branch named passes (the check does not know which
branch is checked out). Any other narrowing ("without asking") gets no check.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from learn.guard.flags import spellings
from learn.guard.rules import SHORT_CLUSTER_MAX, BadRules, CheckRule, check_line, parse_rule
from learn.records.proposal import Proposal, Verdict
from learn.reduce.outcomes import RuleOutcome
from learn.report.escalation import Ran, accepted_since
from learn.report.prohibitions import read_rule

if TYPE_CHECKING:
    from learn.store.proposals import ProposalBook

Command = tuple[str, ...]

# Arguments that do what a flag does: a `+refspec` is a force push.
ARGUMENTS_OF: Final[dict[tuple[str, str | None, str], tuple[str, ...]]] = {
    ("git", "push", "--force"): ("+*",),
}
# "…to main", "…on the data dir": the words that narrow a prohibition to one branch or
# folder, the only narrowing the check can say (anything else, "without asking", it
# cannot, and no check is offered).
_NARROWED: Final = re.compile(
    r"^(?:to|on|onto|into|in|against)\s+(?:the\s+)?`?(?P<name>[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)*/?)`?"
    r"(?:\s+(?P<kind>branch|dir|directory|folder))?\s*[.!]?$", re.IGNORECASE)


def targets_of(cmd: Command, narrowing: str) -> tuple[str, ...]:
    """The words of a command line that name what `narrowing` names: a branch for
    `git push` (`main`, `+main`, `HEAD:main`, `refs/heads/main`), a folder for any
    other command (`data`, `./data/x`, `/abs/data`); () when the check cannot say it."""
    m = _NARROWED.match(narrowing)
    if m is None:
        return ()
    name, kind = m.group("name"), (m.group("kind") or "").lower()
    if _head(cmd) == ("git", "push") and kind in ("", "branch"):
        branch = name.removeprefix("origin/").rstrip("/")
        refs = (branch, f"refs/heads/{branch}")
        return tuple(f"{plus}{src}{ref}" for ref in refs for plus in ("", "+")
                     for src in ("", "*:"))
    if kind in ("dir", "directory", "folder") or "/" in name:
        folder = name.removeprefix("./").rstrip("/")
        if not folder or folder.startswith((".", "/")):
            return ()
        return tuple(f"{pre}{folder}{post}" for pre in ("", "./", "*/") for post in ("", "/*"))
    return ()


def _head(cmd: Command) -> tuple[str, str | None]:
    program = cmd[0].rsplit("/", 1)[-1]
    return program, cmd[1] if len(cmd) > 1 and not cmd[1].startswith("-") else None


def _clusters(flag: str, groups: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """A cluster (`-rf`) in each one-letter spelling of its letters (`-rf`, `-Rf`); the
    check reads a cluster as its letters together in any order. Anything else as is."""
    letters = flag[1:]
    if flag.startswith("--") or not 2 <= len(letters) <= SHORT_CLUSTER_MAX \
            or not letters.isalpha():
        return (flag,)
    each = [next(([g[1:] for g in group if len(g) == 2 and g[0] == "-" and g[1] != "-"]
                  for group in groups if f"-{x}" in group), [x]) for x in letters]
    return tuple(dict.fromkeys("-" + "".join(p) for p in itertools.product(*each)))


def check_rule_for(commands: Sequence[Command], reason: str, rule_id: str,
                   key: str | None, targets: Sequence[str] = ()) -> CheckRule | None:
    """A check for the first (program, subcommand) that `commands` forbid with a flag,
    with the flags of every command forbidding it, when a word naming one of `targets`
    is there too; None when none carries a flag (a prefix rule says a bare command
    exactly)."""
    flagged = [c for c in commands if any(w.startswith("-") for w in c[1:])]
    if not flagged:
        return None
    program, sub = _head(flagged[0])
    spelled: dict[str, None] = {}
    arguments: dict[str, None] = {}
    # Flags that are one flag: the check forbids every spelling of what the person named.
    groups = spellings(program, sub)
    for cmd in flagged:
        if _head(cmd) != (program, sub):
            continue
        for f in (w for w in cmd[1:] if w.startswith("-")):
            same = next((g for g in groups if f in g), _clusters(f, groups))
            spelled.update(dict.fromkeys(same))
            arguments.update(dict.fromkeys(ARGUMENTS_OF.get((program, sub, same[0]), ())))
    try:
        # The same validation the check program applies to its data file: a word a
        # transcript bent out of shape makes no rule, rather than a data file the check
        # would refuse whole (and so stop nothing at all).
        return parse_rule({"id": rule_id, "program": program, "subcommand": sub,
                           "flags": list(spelled), "arguments": list(arguments),
                           "reason": reason, "key": key, "targets": list(targets)})
    except BadRules:
        return None


def past_a_prefix(rule: CheckRule) -> str:
    """A spelling of what `rule` forbids that no prefix rule for it matches: the flag
    after the arguments (`git push origin main --force`)."""
    head = " ".join(x for x in (rule.program, rule.subcommand) if x)
    after = "origin main" if (rule.program, rule.subcommand) == ("git", "push") else "…"
    flag = next(iter(rule.flags), None) or next(iter(rule.arguments), "")
    return f"`{head} {after} {flag}`"


def _bare(rule: CheckRule) -> str:
    head = " ".join(x for x in (rule.program, rule.subcommand) if x)
    return f"{head} {next(iter(rule.flags), '')}".strip()


def _rule_id(label: str) -> str:
    rid = re.sub(r"[^a-z0-9-]+", "-", label.lower()).strip("-")[:80]
    return rid or "check"


def offer_check(o: RuleOutcome, base: Proposal | None = None,
                ran: Sequence[Ran] = ()) -> Proposal | None:
    """learn's check for an ignored rule that forbids a command with a flag, or None (no
    flag, or the check would stop what the rule prescribes or the person let run)."""
    if o.verdict != "ignored":
        return None
    reading = read_rule(o.rule_text, tuple(q.text for q in o.quotes_since))
    rule = check_rule_for(reading.forbidden, o.rule_text, _rule_id(o.label), o.key)
    for narrowing in dict.fromkeys(n for _, n in reading.narrowed_to) if rule is None else ():
        same = [c for c, n in reading.narrowed_to if n == narrowing]  # a phrase's spellings
        targets = targets_of(same[0], narrowing)
        rule = check_rule_for(same, o.rule_text, _rule_id(o.label), o.key, targets) \
            if targets else None
        if rule is not None:
            break
    if rule is None:
        return None
    if any(check_line(kept, [rule]) for kept in (*reading.prescribed, *accepted_since(o, ran))):
        return None
    quotes = o.quotes_since
    scope = base.verdict.scope if base and base.verdict else "project"
    if rule.targets:
        summary = (f"Check it: a deny (a prefix) cannot say \"{rule.targets[0]}\"; learn's "
                   f"check stops {rule.words()} on the command line (not `{_bare(rule)}` "
                   "with nothing named; record-only first, `learn check enforce` makes it "
                   "stop the agent)")
    else:
        summary = (f"Check it: {past_a_prefix(rule)} gets past a deny (a prefix); learn's "
                   f"check stops {rule.words()} in any spelling (record-only first; `learn "
                   "check enforce` makes it stop the agent)")
    return Proposal(
        kind="directive", label=f"{o.label}-check", text=o.rule_text, sessions=o.said_since,
        count=len(quotes), last_seen=max((q.at for q in quotes if q.at), default=None),
        quotes=quotes,
        rationale=f"the rule \"{o.rule_text}\" was ignored in {o.said_since} session(s) since "
                  "it was written, and a prefix rule cannot "
                  + (f"say \"{rule.targets[0]}\"" if rule.targets else "hold a flag"),
        verdict=Verdict(True, summary, "enforcement", scope, 1.0,
                        rationale="a permission prefix stops one spelling of the command; "
                                  "learn's check reads the command as a shell would"),
        surface="check",
        # The command checked, then the words of which one must be named with it.
        surface_commands=(" ".join(x for x in (rule.program, rule.subcommand) if x),
                          *rule.targets),
        surface_rules=(*rule.flags, *rule.arguments),
    )


def check_rule_of(p: Proposal) -> CheckRule:
    """The check rule a surface-"check" proposal stands for (record-only); BadRules when
    a word of it is not one the check program would accept."""
    words = (p.surface_commands[0] if p.surface_commands else "").split()
    if not words:
        raise ValueError(f"{p.key}: no command to check")
    flags = tuple(x for x in p.surface_rules if x.startswith("-"))
    arguments = tuple(x for x in p.surface_rules if not x.startswith("-"))
    checked = p.key[: -len("-check")] if p.key.endswith("-check") else p.key
    return parse_rule({"id": _rule_id(p.label.removesuffix("-check")), "program": words[0],
                       "subcommand": words[1] if len(words) > 1 else None,
                       "flags": list(flags), "arguments": list(arguments), "reason": p.text,
                       "key": checked, "targets": list(p.surface_commands[1:])})


def offered_in(rules: Sequence[CheckRule], rule: CheckRule) -> tuple[CheckRule, str | None]:
    """`rule` (an offer's, record-only) as it goes in among `rules`, and what to tell the
    person about it. The id an offer takes comes from the label, so it can be one the
    person gave a rule of their own (`learn check add --id no-force-push --enforce`):
    replaced by id, their enforced rule became record-only with the rule's words for a
    reason, and nothing said so. So an id held by another rule (not this offer's own
    earlier check) is left to it and the offer takes the first free `<id>-N`: a
    record-only rule beside theirs stops nothing theirs lets through and may catch
    spellings theirs does not (`-f`, `+main`); skipped instead, the offer would come back
    at every run (their rule names no learn rule it checks). Learn's own earlier check
    for the same rule is taken over, never lowered: enforced stays enforced."""
    held = next((r for r in rules if r.id == rule.id), None)
    if held is None:
        return rule, None
    if held.key == rule.key and rule.key is not None:
        return (rule._replace(mode=held.mode, enforced_at=held.enforced_at)
                if held.mode == "enforce" else rule), None
    taken = {r.id for r in rules}
    base = rule.id[:76]  # VALID_ID: 80 characters at most, `-N` included
    free = next(f"{base}-{n}" for n in itertools.count(2) if f"{base}-{n}" not in taken)
    mode = "enforced" if held.mode == "enforce" else "record-only"
    return rule._replace(id=free), (f"your check `{held.id}` ({mode}, \"{held.reason}\") "
                                    f"stays as it is; learn's goes in beside it as `{free}`, "
                                    "record-only")


def with_check_offers(book: ProposalBook, project: str | None, outcomes: Sequence[RuleOutcome],
                      proposals: Sequence[Proposal],
                      ran: Sequence[Ran] = ()) -> tuple[list[RuleOutcome], list[Proposal]]:
    """Each ignored command rule's check offer as a proposal, unless its check is in
    place, or the person applied or declined the offer (a declined one comes back like
    any proposal, at twice the sessions)."""
    by_key = {p.key: p for p in proposals}
    out: list[RuleOutcome] = []
    made: list[Proposal] = []
    for o in outcomes:
        offer = None if o.check is not None else offer_check(o, by_key.get(o.key), ran)
        if offer is None:
            out.append(o)
            continue
        state = book.decided(project, [offer.key]).get(offer.key)
        threshold = book.reoffer_threshold(offer.key, project)
        summary = offer.verdict.summary if offer.verdict else ""
        if state in ("applied", "edited") or (
                state == "declined" and threshold is not None and offer.sessions < threshold):
            out.append(dataclasses.replace(o, check_offer={"key": offer.key, "summary": summary,
                                                           "state": state}))
            continue
        made.append(offer)
        out.append(dataclasses.replace(o, check_offer={"key": offer.key, "summary": summary,
                                                       "state": "pending"}))
    return out, made
