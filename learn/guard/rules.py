"""learn's check rules: the data file the check program reads, and what a rule matches.

A rule is data, never code: a program, an optional subcommand, the flags and
argument patterns that must not appear, the person's words as the reason, and a
mode (`record`: note what it would have stopped; `enforce`: stop it). The file is
JSON, parsed and validated word by word (VALID_*) before anything is matched; a
file that fails is refused whole, and the check then stops nothing and says so in
its log: a broken data file must never break the agent's shell.

Standard library only and no dataclasses, like the rest of learn.guard (it runs
on every shell call). Matching reads the simple commands learn.guard.shell finds: the program by name
(`/usr/bin/git` is `git`), its subcommand after the program's own options
(`git -C app push`, `git -c k=v push`), then the words after it up to `--`: a long
flag as written, with `=value` or cut to a prefix (`--force`, `--force=yes`, `--forc`;
`--force-with-lease` is another flag), a short flag alone or in a cluster of any
length (`-f`, `-uf`, `-vquf`), a rule's own cluster as its letters together in any
order or words (`-rf` is `-fr`, `-r -f`, `-rfv`; `-f` alone is not it), and
positional words against shell-style patterns (`+*`: a force-pushed refspec). For a
few programs whose short and long spellings are documented as one option (rm, cp,
chmod, chown, git push / commit / clean / checkout / branch), either spelling is the
other: `-rf` is also `rm --recursive --force` and `rm -r --force`, `git branch -D` is
`--delete --force`. How a word is compared with a flag is learn.guard.flags (its
table SAME, its prefix rule); a program not in the table compares flags as written.
A rule with targets holds only where a positional word also matches one of them
(`main`, `*:main`: "never force push to main").

A cluster was read only up to three letters, so that a value glued to its option
(`git commit -mfix`) is not read as flags; `git push -vquf` then force-pushed past
the check (audit 2, r3). Which letter takes a value differs by program and is not
known here, so every letter of a cluster counts: a rule against `git commit -n`
now also stops `git commit -mnote`, a stop the agent is told the reason for and
gets past by writing `-m note`, where a miss broke the promise that a forbidden
command is stopped in any spelling.

Known, not stopped (each needs what a reader cannot know without running anything):
a flag produced at run time (`git push $(echo -f)`, `git push $FLAG`: a
substitution's output or a variable's value is unknown, and counting every one as
the flag would stop `git push origin $(git branch --show-current)`); an alias or a
script defined elsewhere (`git config alias.p 'push -f'` then `git p`, a Makefile
target); a short spelling of a long option for a program not in learn.guard.flags'
table (`docker rm -f` against a rule on `docker rm --force`: which letter is which
option is each program's own); a long option written with one dash (`find -delete`,
Go's `-force`), read as the letters of a cluster.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple

from learn.guard.flags import reading, set_by, sets
from learn.guard.runners import GLOBAL_VALUED
from learn.guard.shell import Simple, simple_commands
from learn.visible import visible

Mode = Literal["record", "enforce"]
MODES: Final = ("record", "enforce")
FORMAT: Final = 1
# Whole values only: `$` also matches before a final "\n", so a rule file's
# `"id": "no-force\n"` or `"flags": ["--force\n"]` loaded. Anchored with \A...\Z (and
# tested with fullmatch), a value with a trailing newline is refused like any other.
VALID_ID: Final = re.compile(r"\A[a-z0-9][a-z0-9-]{0,79}\Z")
VALID_WORD: Final = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._+-]{0,63}\Z")
VALID_FLAG: Final = re.compile(r"\A--?[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
VALID_PATTERN: Final = re.compile(r"\A[A-Za-z0-9+*?._/:@-][A-Za-z0-9+*?._/:@\[\]-]{0,63}\Z")
MAX_REASON: Final = 400
MAX_RULES: Final = 200
SHORT_CLUSTER_MAX: Final = 3  # the longest cluster a rule offered from a transcript names
class BadRules(ValueError):
    """A data file learn's check will not use, with what is wrong in it."""


class CheckRule(NamedTuple):
    id: str
    program: str
    reason: str  # the person's words: what the agent is told when it is stopped
    subcommand: str | None = None
    flags: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    mode: Mode = "record"
    key: str | None = None  # the learn rule it checks (kind:label of the rule in place)
    added_at: str | None = None
    enforced_at: str | None = None  # when the person switched it to enforce
    # Patterns of which a positional word must also appear ("never force push to main":
    # `main`, `+main`, `HEAD:main`, ...); empty: the flags alone break the rule.
    targets: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "program": self.program, "subcommand": self.subcommand,
                "flags": list(self.flags), "arguments": list(self.arguments),
                "reason": self.reason, "mode": self.mode, "key": self.key,
                "added_at": self.added_at, "enforced_at": self.enforced_at,
                "targets": list(self.targets)}

    def words(self) -> str:
        """The rule in a line: `git push` with --force / -f / +*."""
        head = " ".join(x for x in (self.program, self.subcommand) if x)
        banned = [*self.flags, *self.arguments]
        said = f"`{head}` with {' / '.join(banned)}" if banned else f"`{head}`"
        # The first target is the name itself; the others are its spellings.
        return f"{said} naming `{self.targets[0]}`" if self.targets else said


class RuleSet(NamedTuple):
    project: str | None
    rules: tuple[CheckRule, ...]

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "project": self.project,
                "rules": [r.to_json() for r in self.rules]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"


def _strings(value: Any, valid: re.Pattern[str], what: str, rid: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRules(f"rule {rid}: {what} must be a list of strings")
    for v in value:
        if not valid.fullmatch(v):
            raise BadRules(f"rule {rid}: {what} {v!r} is not a plain word")
    return tuple(value)


def clean_reason(text: str) -> str:
    """The reason as one line of what it shows (learn.visible), cut at MAX_REASON
    characters.

    The agent is told the reason when it is stopped, and the person reads it in the
    rule's file and in `learn check`: `str.isprintable` kept the variation selectors
    (U+FE00-FE0F, U+E0100-E01EF), the fillers and the braille blank, which show as
    nothing, so a sentence spelled in them reached the agent unseen. `visible` is the
    one test of what shows; every character it keeps that is not printable is a space
    or a line break, which the split makes one space."""
    flat = " ".join(visible(text).split())  # `textfold.flatten` (msgspec: not here)
    return flat if len(flat) <= MAX_REASON else flat[:MAX_REASON - 1] + "…"


def parse_rule(data: Any) -> CheckRule:
    if not isinstance(data, dict):
        raise BadRules("a rule must be an object")
    rid = data.get("id")
    if not isinstance(rid, str) or not VALID_ID.fullmatch(rid):
        raise BadRules(f"rule id {rid!r} must be lower-case letters, digits and dashes")
    program, sub = data.get("program"), data.get("subcommand")
    if not isinstance(program, str) or not VALID_WORD.fullmatch(program):
        raise BadRules(f"rule {rid}: program {program!r} is not a plain word")
    if sub is not None and (not isinstance(sub, str) or not VALID_WORD.fullmatch(sub)):
        raise BadRules(f"rule {rid}: subcommand {sub!r} is not a plain word")
    reason, mode = data.get("reason"), data.get("mode", "record")
    if not isinstance(reason, str) or not reason.strip():
        raise BadRules(f"rule {rid}: a reason (the person's words) is required")
    if mode not in MODES:
        raise BadRules(f"rule {rid}: mode must be record or enforce, not {mode!r}")
    key, added, enforced = data.get("key"), data.get("added_at"), data.get("enforced_at")
    return CheckRule(id=rid, program=program, subcommand=sub,
                     flags=_strings(data.get("flags"), VALID_FLAG, "flag", rid),
                     arguments=_strings(data.get("arguments"), VALID_PATTERN, "argument", rid),
                     targets=_strings(data.get("targets"), VALID_PATTERN, "target", rid),
                     reason=clean_reason(reason), mode=mode,
                     key=key if isinstance(key, str) else None,
                     added_at=added if isinstance(added, str) else None,
                     enforced_at=enforced if isinstance(enforced, str) else None)


def parse_rules(text: str | bytes) -> RuleSet:
    """The data file's rules, validated; BadRules saying what is wrong otherwise."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadRules(f"not JSON: {exc}") from exc
    except RecursionError:  # json's limit is the stack's: ~1,000 levels
        raise BadRules("not JSON: nested too deep to read") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadRules(f"not a learn check file (format {FORMAT})")
    rules = data.get("rules")
    if not isinstance(rules, list) or len(rules) > MAX_RULES:
        raise BadRules(f"rules must be a list of at most {MAX_RULES}")
    parsed = tuple(parse_rule(r) for r in rules)
    ids = [r.id for r in parsed]
    if len(set(ids)) != len(ids):
        raise BadRules("two rules share an id")
    project = data.get("project")
    return RuleSet(project if isinstance(project, str) else None, parsed)


def load_rules(path: str | os.PathLike[str]) -> RuleSet:
    try:
        with open(path, "rb") as fh:
            return parse_rules(fh.read())
    except OSError as exc:
        raise BadRules(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from exc


def _subcommand_at(cmd: Simple) -> int:
    """Index of the subcommand word: the first word after the program's own options."""
    valued = GLOBAL_VALUED.get(cmd.program, frozenset())
    i = 1
    while i < len(cmd.argv):
        w = cmd.argv[i]
        if w in valued:
            i += 2
        elif w.startswith("-") or (cmd.program in ("cargo", "rustup") and w.startswith("+")):
            i += 1
        else:
            return i
    return i


def rule_words(rule: CheckRule, words: str) -> str:
    """`words` (a hit: the command's words that broke `rule`) as the rule says them: each
    word past the program and subcommand as the flag, argument pattern or target of the
    rule it matched, else `…`. What the hits log keeps: the word itself may be the very
    secret the rule is about (`mysql -pSECRET` broke `-p`; a clone URL's token broke
    `https://*:*@*`), and a privacy audit found both in the log."""
    out: list[str] = []
    r = reading(rule.program, rule.subcommand, rule.flags)
    for w in words.split(" "):
        if w in (rule.program, rule.subcommand):
            out.append(w)
            continue
        flags = [f for f in rule.flags if w.startswith("-") and sets(r, w) & sets(r, f)]
        # `-f` is said as `-f`, not also as its other spelling `--force` in the same rule.
        said = [f for f in flags if f.startswith("--") == w.startswith("--")] or flags or \
            [p for p in (*rule.arguments, *rule.targets) if fnmatch.fnmatchcase(w, p)]
        out.append(" ".join(dict.fromkeys(said)) if said else "…")
    return " ".join(out)


def match(rule: CheckRule, cmd: Simple) -> str | None:
    """The words of `cmd` that break `rule` (e.g. `git push -f`), or None."""
    if cmd.program != rule.program:
        return None
    start = 1
    head = [rule.program]
    if rule.subcommand is not None:
        at = _subcommand_at(cmd)
        if at >= len(cmd.argv) or cmd.argv[at] != rule.subcommand:
            return None
        head.append(rule.subcommand)
        start = at + 1
    rest = cmd.argv[start:]
    end = rest.index("--") if "--" in rest else len(rest)
    named: list[str] = []
    if rule.targets:
        positional = [w for w in rest[:end] if not w.startswith("-") or w == "-"]
        named = [w for w in [*positional, *rest[end + 1:]]
                 if any(fnmatch.fnmatchcase(w, p) for p in rule.targets)][:1]
        if not named:
            return None
    hit = _hit(rule, rest, end)
    if hit is None and (rule.flags or rule.arguments):
        return None
    return " ".join([*head, *([hit] if hit else []), *(w for w in named if w != hit)])


def _hit(rule: CheckRule, rest: Sequence[str], end: int) -> str | None:
    """The words after the subcommand that hold one of the rule's flags or arguments."""
    r = reading(rule.program, rule.subcommand, rule.flags)
    for word in rest[:end]:
        if word.startswith("-") and word != "-":
            if any(set_by(r, f, [word]) for f in rule.flags):
                return word
        elif any(fnmatch.fnmatchcase(word, p) for p in rule.arguments):
            return word
    options = [w for w in rest[:end] if w.startswith("-") and w != "-"]
    for f in rule.flags:
        used = set_by(r, f, options)
        if used:
            return " ".join(used)
    for word in rest[end + 1:]:
        if any(fnmatch.fnmatchcase(word, p) for p in rule.arguments):
            return word
    return None


class Hit(NamedTuple):
    rule: CheckRule
    words: str  # the rule's own words as they appeared (program, subcommand, the flag)


def check_line(line: str, rules: Sequence[CheckRule]) -> list[Hit]:
    """Every rule `line` breaks, once each, in rule order."""
    hits: dict[str, Hit] = {}
    cmds = simple_commands(line)
    for rule in rules:
        for cmd in cmds:
            words = match(rule, cmd)
            if words is not None:
                hits.setdefault(rule.id, Hit(rule, words))
                break
    return list(hits.values())


def hits_path(rules_file: str | os.PathLike[str]) -> str:
    """Where the check notes what it stopped or would have: beside its data file."""
    root, _ = os.path.splitext(os.fspath(rules_file))
    return root + ".hits.jsonl"


def read_hits(rules_file: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The check's notes, oldest first (a torn line is skipped)."""
    try:
        with open(hits_path(rules_file), encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for line in raw.splitlines():
        try:
            d = json.loads(line)
        except (ValueError, RecursionError):  # torn, or nested too deep: skipped like a torn one
            continue
        if isinstance(d, dict):
            out.append(d)
    return out


def _when(iso: Any) -> float | None:
    from datetime import UTC, datetime

    if not isinstance(iso, str) or not iso:
        return None
    try:
        t = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()


def tally(hits: Iterable[Mapping[str, Any]], rule_id: str, since: str | None = None,
          mode: str | None = None) -> tuple[int, int]:
    """(times, distinct sessions) the rule `rule_id` matched, from `since` (ISO) on, in
    `mode` (record: would have stopped; enforce: stopped) when given."""
    start = _when(since)
    times = 0
    sessions: set[str] = set()
    for h in hits:
        if h.get("rule") != rule_id or (mode is not None and h.get("mode") != mode):
            continue
        at = _when(h.get("at"))
        if start is not None and (at is None or at < start):
            continue
        times += 1
        sessions.add(str(h.get("session") or ""))
    return times, len(sessions)
