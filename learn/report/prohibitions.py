"""What a rule forbids, exactly, and what it prescribes: the ground an escalation stands on.

A permission rule is enforced by the agent's harness, so it must say exactly
what the person forbade and nothing more. Checked against the real Claude Code
and `codex execpolicy check`: "never force push" had become `deny Bash(git
push:*)`, which refused the person's ordinary `git push origin feature/x`; "never
use rm -rf on the data dir" became `Bash(rm:*)`; and "Run the tests with `pnpm
vitest run`, never in watch mode" became `deny Bash(pnpm vitest:*)`, which stopped
the agent running the tests at all (any "never" anywhere forbade every
backticked command in the text).

So a prohibition is read only where the grammar says it: a negation ("never",
"don't", "stop", "avoid", ...), optionally a verb ("run", "use", ...), then the
command (backticked or bare words: a program, its subcommand, its flags) or a
phrase that names one (`PHRASES`: "force push" is `git push --force` / `-f` /
`--force-with-lease`), and nothing after it in the clause that narrows it ("on
the data dir", "in watch mode", "without asking", "to main"): a prefix rule
cannot say a narrowed prohibition, so none is proposed for it. What the rule
(or the person's quotes) tells the agent to run is prescribed and is never
denied, whatever else the rule says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from learn.mining.commands import command_tokens, starts_with

Command = tuple[str, ...]

_NEG: Final = (r"(?:never|don'?t|do\s+not|dont|must\s+not|mustn'?t|should\s+not|shouldn'?t|"
               r"stop|no\s+more|avoid|quit)")
_VERB: Final = (r"(?:run(?:ning)?|use|using|call(?:ing)?|execut(?:e|ing)|invok(?:e|ing)|"
                r"typ(?:e|ing)|do(?:ing)?)")
_TOUCH: Final = (r"(?:touch(?:ing)?|edit(?:ing)?|modify(?:ing)?|chang(?:e|ing)|"
                 r"writ(?:e|ing)\s+to|delet(?:e|ing))")
# A prohibition's head: the negation, "ever", the verb (all optional but the negation).
_HEAD: Final = re.compile(rf"\b{_NEG}\s+(?:ever\s+)?(?P<verb>{_VERB}\s+)?", re.IGNORECASE)
_TOUCH_HEAD: Final = re.compile(
    rf"\b{_NEG}\s+(?:ever\s+)?{_TOUCH}\s+(?:the\s+|anything\s+in\s+|files\s+in\s+)?",
    re.IGNORECASE)
_RUN_VERB: Final = re.compile(rf"(?<![\w-]){_VERB}\s+(?:it\s+with\s+|with\s+)?", re.IGNORECASE)
# Clause boundaries: sentence ends, semicolons, a colon before its explanation ("never
# force push: it rewrites history"), dashes used as punctuation, "but".
_CLAUSES: Final = re.compile(r"(?:[.;!?](?=\s|$)|[,:]\s|\s[—–]\s|\s-\s|\s+but\s+)",
                             re.IGNORECASE)
_BACKTICKED: Final = re.compile(r"`([^`\n]{1,120})`")
_WORD: Final = re.compile(r"^(?:[a-z0-9][\w.+-]*|--?[a-z0-9][\w-]*)$", re.IGNORECASE)
_PROGRAM: Final = re.compile(r"^[a-z0-9][\w.+-]*$", re.IGNORECASE)
# Words after a command that do not narrow it.
_FILLER: Final = re.compile(
    r"^(?:[\s,:!]|ever|again|please|anymore|any\s+more|at\s+all|yourself|myself|here|"
    r"(?:in|on|for)\s+(?:this|the|our|my)\s+(?:repo(?:sitory)?|project|codebase|code\s*base)|"
    r"in\s+here)*$", re.IGNORECASE)
# Words that follow "never run" but are not a program ("never run it", "don't use that").
_NOT_PROGRAMS: Final = frozenset({
    "it", "that", "this", "them", "the", "a", "an", "any", "anything", "those", "these",
    "again", "tests", "test", "code", "commands", "command", "things", "stuff", "without",
    "with", "in", "on", "to", "for", "from", "at", "and", "or", "so", "too", "more", "me",
    "mock", "mocks", "tabs", "spaces", "comments", "emojis", "print", "console.log"})

# Prohibitions said in words rather than as a command, and the prefixes they mean.
PHRASES: Final[tuple[tuple[re.Pattern[str], tuple[Command, ...]], ...]] = (
    (re.compile(r"^force[- ]?push(?:es|ed|ing)?\b|^push(?:ing)?\s+(?:with\s+)?(?:--force|-f)\b",
                re.IGNORECASE),
     (("git", "push", "--force"), ("git", "push", "-f"), ("git", "push", "--force-with-lease"))),
    (re.compile(r"^(?:skip(?:ping)?\s+(?:the\s+)?(?:git\s+)?hooks|commit(?:ting)?\s+with\s+"
                r"--no-verify)\b", re.IGNORECASE),
     (("git", "commit", "--no-verify"), ("git", "commit", "-n"))),
    (re.compile(r"^hard[- ]reset\b|^reset\s+--hard\b", re.IGNORECASE),
     (("git", "reset", "--hard"),)),
)


@dataclass(frozen=True, slots=True)
class Reading:
    """What one rule (with the person's quotes) says about commands and paths."""

    forbidden: tuple[Command, ...] = ()  # exact prefixes, flags included
    paths: tuple[str, ...] = ()  # folders / files never to edit, relative to the project
    prescribed: tuple[str, ...] = ()  # commands the text tells the agent to run
    narrowed: tuple[str, ...] = ()  # prohibitions a prefix cannot say (the words)
    # Each narrowed prohibition's commands, with the words that narrow them ("to main").
    narrowed_to: tuple[tuple[Command, str], ...] = ()


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSES.split(text) if c and c.strip()]


def _bare_command(words: str) -> tuple[Command | None, str]:
    """The command at the start of `words` (a program, a subcommand, flags) and the rest."""
    tokens = words.split()
    taken: list[str] = []
    for t in tokens:
        bare = t.rstrip(",:!?")
        if not _WORD.match(bare) or (not taken and (bare.casefold() in _NOT_PROGRAMS
                                                     or not _PROGRAM.match(bare))):
            break
        if taken and not bare.startswith("-") and bare.casefold() in _NOT_PROGRAMS:
            break
        taken.append(bare)
        if bare != t:
            break
    if not taken:
        return None, words
    rest = words.split(None, len(taken))
    return tuple(w.casefold() if not w.startswith("-") else w for w in taken), \
        (rest[len(taken)] if len(rest) > len(taken) else "")


def _object(after: str, bare: bool) -> tuple[tuple[Command, ...], str] | None:
    """What a prohibition's head is followed by: (commands, the rest of the clause).
    Bare words are a command only after a verb ("never run git push"; "never commit
    secrets" names no program)."""
    m = _BACKTICKED.match(after)
    if m:
        tokens = tuple(command_tokens(m.group(1)))
        if tokens and _PROGRAM.match(tokens[0]) and tokens[0].casefold() not in _NOT_PROGRAMS:
            return (tokens,), after[m.end():]
        return None
    for pattern, commands in PHRASES:
        pm = pattern.match(after)
        if pm:
            return commands, after[pm.end():]
    if not bare:
        return None
    command, rest = _bare_command(after)
    if command is None:
        return None
    return (command,), rest


def _paths(clause: str) -> list[str]:
    out: list[str] = []
    for m in _TOUCH_HEAD.finditer(clause):
        after = clause[m.end():]
        pm = re.match(r"`?([\w./*-]*[/.][\w./*-]*)`?", after)
        if not pm:
            continue
        path = pm.group(1).strip("'\".,;:")
        rest = after[pm.end():]
        if (not path or path.startswith(("http", "/", "~")) or ".." in path.split("/")
                or not _FILLER.match(rest)):
            continue
        out.append(path[2:] if path.startswith("./") else path)
    return out


def _prescribed(text: str, forbidden_spans: set[tuple[int, int]]) -> list[str]:
    """Commands the text names outside a prohibition: backticked ones, and bare words
    after "run" / "use" ("run pnpm vitest run")."""
    out: list[str] = []
    for m in _BACKTICKED.finditer(text):
        if (m.start(), m.end()) in forbidden_spans:
            continue
        tokens = command_tokens(m.group(1))
        if tokens and _PROGRAM.match(tokens[0]):
            out.append(m.group(1).strip())
    for clause in _clauses(text):
        if _HEAD.search(clause):
            continue
        for m in _RUN_VERB.finditer(clause):
            command, _ = _bare_command(clause[m.end():])
            if command is not None:
                out.append(" ".join(command))
    return list(dict.fromkeys(out))


def read_rule(text: str, quotes: tuple[str, ...] = ()) -> Reading:
    """What `text` (a rule the person accepted) forbids exactly and what it (or the
    person's `quotes`) prescribes; see the module doc."""
    forbidden: dict[Command, None] = {}
    narrowed: list[str] = []
    narrowed_to: list[tuple[Command, str]] = []
    spans: set[tuple[int, int]] = set()
    offset = 0
    for clause in _clauses(text):
        start = text.find(clause, offset)
        offset = max(offset, start)
        for m in _HEAD.finditer(clause):
            found = _object(clause[m.end():], bare=m.group("verb") is not None)
            if found is None:
                continue
            commands, rest = found
            tick = _BACKTICKED.match(clause[m.end():])
            if tick and start >= 0:
                spans.add((start + m.end(), start + m.end() + tick.end()))
            if _FILLER.match(rest):
                for c in commands:
                    forbidden.setdefault(c)
            else:
                narrowed.append(f"{clause[m.start():].strip()}")
                narrowed_to.extend((c, rest.strip()) for c in commands)
    paths = [p for c in _clauses(text) for p in _paths(c)]
    prescribed = _prescribed(text, spans)
    for q in quotes:
        prescribed.extend(x for x in _prescribed(q, set()) if x not in prescribed)
    return Reading(tuple(forbidden), tuple(dict.fromkeys(paths)), tuple(prescribed),
                   tuple(narrowed), tuple(narrowed_to))


def blocks(prefix: Command, command: str) -> bool:
    """Whether a prefix rule for `prefix` would refuse `command` (any segment of it)."""
    return starts_with(prefix, command)
