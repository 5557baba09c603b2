"""Was a rule loaded in a session? From a record where one exists, else inferred.

An ignored rule is often a rule that never reached the agent: a `paths:` rule
whose globs matched no file the agent read, a MEMORY.md line past its size
limit, a CLAUDE.md rule in a project worked on with Codex (which reads
AGENTS.md). Counting such a session as "the rule was there and the person said
it again" blames the wording for what is a placement problem, so outcomes count
only the sessions where the rule was loaded, and say why it was not elsewhere.

Per session, in order:
1. a record that reports files of the rule's kind (learn.transcripts.instructions:
   the plugin's InstructionsLoaded lines, the transcript's own attachments):
   loaded when it names the file, and its text as loaded still holds the rule;
2. else inferred from what the session shows: which agent ran it, where (its
   cwd), which files it read or edited, and the rule's file as it is now
   (learn.reduce.rule_target).
A file whose loading learn cannot judge (a skill, a command) counts as loaded:
the verdict then rests on what was said, as it did before loading was known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from learn.projects import within
from learn.reduce.claude_paths import matched
from learn.reduce.rule_target import RuleTarget, same_file
from learn.textfold import fold
from learn.transcripts.instructions import Records

How = Literal["recorded", "inferred", "assumed"]
# Why a rule did not load in a session.
Why = Literal["paths", "cut", "agent", "nested", "absent", "unrecorded"]


@dataclass(frozen=True, slots=True)
class Seen:
    """What one session shows about which instructions could reach its agent."""

    session_id: str
    provider: str  # "claude" | "codex" | another reader's name
    cwd: str | None
    touched: tuple[str, ...] = ()  # files its tools read or edited
    records: Records = field(default_factory=Records)


@dataclass(frozen=True, slots=True)
class LoadCall:
    loaded: bool
    how: How
    why: Why | None = None


def _agent_reads(target: RuleTarget, provider: str) -> bool | None:
    if provider == "claude":
        return target.claude_reads
    if provider == "codex":
        return target.codex_reads
    return None  # an agent learn has no loading model for


def load_call(target: RuleTarget, seen: Seen, *, prior: bool = False) -> LoadCall:
    """Whether the rule reached the agent in `seen`. `prior`: the session started
    before the rule was written, and the question is whether it *would* have
    loaded (the file as it is now, records of the file not yet holding it
    ignored), so before and since are counted over comparable sessions."""
    if target.kind == "other":
        return LoadCall(True, "assumed")
    reads = _agent_reads(target, seen.provider)
    if reads is None:
        return LoadCall(True, "assumed")
    if not reads:
        return LoadCall(False, "inferred", "agent")
    if not prior and not target.found:
        return LoadCall(False, "inferred", "absent")
    if not prior:
        loads = seen.records.covers(target.file)
        if loads is not None:
            mine = [x for x in loads if same_file(x.file, target.file)]
            if mine:
                texts = [x.text for x in mine if x.text is not None]
                if texts and target.rule and not any(holds_rule(t, target.rule) for t in texts):
                    return LoadCall(False, "recorded", "cut")  # the file came, cut before the rule
                if not texts and target.cut is not None:
                    return LoadCall(False, "recorded", "cut")
                return LoadCall(True, "recorded")
            if not _start_unrecorded(target, seen):
                return LoadCall(False, "recorded", _why_missing(target, seen))
    if target.cut is not None:
        return LoadCall(False, "inferred", "cut")
    if target.kind == "claude-path-rule":
        # The person's own path rules (~/.claude/rules) match from the session's folder.
        base = target.base or seen.cwd
        if base is None:
            return LoadCall(True, "assumed")
        if matched(target.globs, seen.touched, base):
            return LoadCall(True, "inferred")
        return LoadCall(False, "inferred", "paths")
    if target.base is None:
        return LoadCall(True, "inferred")  # the person's own files load everywhere
    cwd_in = seen.cwd is not None and within(seen.cwd, target.base)
    if cwd_in:
        return LoadCall(True, "inferred")
    if seen.provider == "claude" and target.kind in ("claude-md", "agents-md") and any(
            within(f, target.base) for f in seen.touched if f.startswith("/")):
        return LoadCall(True, "inferred")  # a nested file, loaded when a file under it is read
    return LoadCall(False, "inferred", "nested")


def _start_unrecorded(target: RuleTarget, seen: Seen) -> bool:
    """The plugin's hook recorded this session but not its start, and the rule's file is
    one Claude Code loads at the start: the hook's silence on it is no evidence.

    Seen against the real Claude Code on a loaded machine: a session whose hook records
    hold the path rule read later and no `session_start` load at all, its CLAUDE.md
    among them (4 of 12 sessions run four at once beside two busy loops;
    tests/test_rules_that_work_real.py). Counted as recorded, its CLAUDE.md was "not
    loaded" in a session that had it. A session whose start the hook did record keeps
    its record's word (a CLAUDE.md left out of it was not loaded); a transcript's own
    record lists every file loaded at the start, so it is never in doubt."""
    records = seen.records
    if records.transcript is not None or not records.hook:
        return False
    if any(x.reason == "session_start" for x in records.hook):
        return False
    if target.kind == "claude-rule":  # a rules file without `paths:`: loaded at the start
        return True
    # A CLAUDE.md of the session's folder or above it (or the person's own) loads at the
    # start; one below it only when a file under it is read, which the hook did report.
    return target.kind == "claude-md" and (
        target.base is None or (seen.cwd is not None and within(seen.cwd, target.base)))


def _why_missing(target: RuleTarget, seen: Seen) -> Why:
    if target.kind == "claude-path-rule":
        return "paths"
    if target.base is not None and seen.cwd is not None and not within(seen.cwd, target.base):
        return "nested"
    return "unrecorded"


def holds_rule(text: str, rule: str) -> bool:
    return fold(rule) in fold(text)


@dataclass(frozen=True, slots=True)
class NotLoaded:
    """Why a rule did not load in the sessions since, and what to do about it."""

    why: Why
    sessions: int
    reason: str
    fix: str


def _folders(paths: Sequence[str], base: str | None, limit: int = 3) -> list[str]:
    from learn.reduce.claude_paths import relative_to

    counts: Counter[str] = Counter()
    for p in paths:
        rel = relative_to(p, base) if base else None
        if rel is None or "/" not in rel:
            continue
        counts[rel.rsplit("/", 1)[0] + "/"] += 1
    return [f for f, _ in counts.most_common(limit)]


def not_loaded(target: RuleTarget, whys: Sequence[Why], touched: Sequence[str],
               providers: Sequence[str]) -> NotLoaded | None:
    """The main reason a rule was not loaded over sessions (the most common `why`),
    with its fix; None when it loaded in every one."""
    if not whys:
        return None
    why, n = Counter(whys).most_common(1)[0]
    name = target.file.rsplit("/", 1)[-1]
    sessions = f"{n} session{'s' if n != 1 else ''}"
    if why == "paths":
        folders = _folders(touched, target.base)
        globs = ", ".join(f"`{g}`" for g in target.globs)
        where = ("; the agent worked in " + ", ".join(f"`{f}`" for f in folders)) if folders \
            else "; the agent read no file of the project"
        add = (", e.g. add " + ", ".join(f'"{f}**"' for f in folders[:2])) if folders else ""
        return NotLoaded(why, n, f"its `paths:` ({globs}) matched no file the agent read in "
                         f"{sessions}{where}",
                         f"widen `paths:` in `{target.file}`{add}, or move the rule to the "
                         "project's CLAUDE.md if it holds everywhere")
    if why == "cut":
        return NotLoaded(why, n, f"{name} is cut before it ({target.cut})",
                         f"move the rule up or to CLAUDE.md, or shorten `{target.file}`")
    if why == "agent":
        agents = Counter(providers).most_common(1)[0][0] if providers else "another agent"
        if target.kind == "agents-md":
            return NotLoaded(why, n, f"{sessions} ran Claude Code, which reads CLAUDE.md beside "
                             f"{name}, not {name}",
                             f"add `@{name}` to the CLAUDE.md beside `{target.file}`, or write "
                             "the rule in CLAUDE.md too")
        return NotLoaded(why, n, f"{sessions} ran {'Codex' if agents == 'codex' else agents}, "
                         f"which does not read {name}",
                         "write the rule in the project's AGENTS.md too (and `@AGENTS.md` in "
                         "CLAUDE.md keeps one copy for both agents)")
    if why == "nested":
        return NotLoaded(why, n, f"the agent never worked under `{target.base}` in {sessions}, "
                         f"where {name} applies",
                         "move the rule to the project's top CLAUDE.md / AGENTS.md")
    if why == "absent":
        return NotLoaded(why, n, f"the rule is no longer in `{target.file}` (removed or "
                         "reworded)",
                         "apply it again (`learn apply`), or decline it if it was dropped on "
                         "purpose")
    return NotLoaded(why, n, f"Claude Code reported the instruction files it loaded in "
                     f"{sessions}, and `{target.file}` was not among them",
                     "check that the file sits in the project's `.claude/` or a folder the "
                     "agent works in, and is not in `claudeMdExcludes`")
