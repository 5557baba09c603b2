"""One proposal as the digest shows it: the quote and how often it was said, the
rule the judge wrote, where it would go, and what is already written about it.

The digest (learn.report.digest) puts these under its run header; the HTML report
(learn.report.html) reads the evidence and project lines too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from learn.projects import quote_projects
from learn.records.proposal import Proposal, Quote, RunResult
from learn.reduce.file_readers import file_readers
from learn.reduce.pathscope import scoped_safely
from learn.report.outcomes import applied_here, in_place_line, shown_here
from learn.report.words import day, flatten, plural
from learn.textfold import fold
from learn.visible import code_span, visible

if TYPE_CHECKING:
    from learn.report.agent_targets import AgentsInUse

# Directive quotes are the evidence, so they get room; fix and request quotes sit
# next to a command or label that already says most of it.
QUOTE_CHARS = {"directive": 400, "fix": 200, "request": 200}
RULE_CHARS = 160


def sessions_read(result: RunResult) -> int:
    """How many sessions the counts are out of: read now, reused from cache, or failed this
    run (a failed session's quotes from an earlier run still count: left out, it made "2 of
    your last 3" where both of the 2 were among this run's failures)."""
    u = result.usage
    read = u.sessions_mined + u.sessions_cached + u.sessions_failed
    return read or u.sessions_seen


def sessions_in_scope(result: RunResult) -> int:
    """The N of "said in 2 of your last N sessions": the counted sessions of the project the
    result is shown for, else all of them (`sessions_read`). A project's digest shows the
    newest run that read it, maybe one over every project: it said "2 of your last 5" where
    the project had 4 (the fifth started in the home folder). The run's counts per project
    (`extra["counted_per_project"]`, each session's project as discovery decided it) are
    scoped by learn.report.outcomes.shown_here, as the rules and checks shown are; a session
    of no project is no project's. A run stored before them keeps its total."""
    per = result.extra.get("counted_per_project")
    if not isinstance(result.extra.get("project"), str) or not isinstance(per, dict):
        return sessions_read(result)
    here = shown_here(result)
    return sum(n for project, n in per.items()
               if isinstance(project, str) and project and isinstance(n, int) and here(project))



def scope_sentence(result: RunResult, *, markdown: bool = True) -> str:
    """"4 of them were `shop`'s: the counts below are out of those.", said where a
    project's digest or report shows a run that read more than that project (the header's
    "Read 5 sessions" is the run's, its counts `sessions_in_scope`); "" elsewhere.
    `markdown=False`: the project's name bare (the HTML report escapes it)."""
    asked = result.extra.get("project")
    if not isinstance(asked, str) or not isinstance(result.extra.get("counted_per_project"), dict):
        return ""
    scoped = sessions_in_scope(result)
    if scoped == sessions_read(result):
        return ""
    from learn.visible import code_span

    name = code_span(asked) if markdown else asked
    return (f"{scoped} of them {'was' if scoped == 1 else 'were'} {name}'s: "
            "the counts below are out of those.")

VERBS = {"directive": "said", "fix": "seen", "request": "asked for"}


def evidence_line(p: Proposal, result: RunResult) -> str:
    total = sessions_in_scope(result)
    verb = VERBS.get(p.kind, "said")
    if p.people is not None:  # a team run: who-count and session-count, names only if chosen
        said = f"{verb} by {plural(p.people, 'person', 'people')} in {plural(p.sessions, 'session')}"
        if p.authors:
            said += f" ({', '.join(p.authors)})"
        last = day(p.last_seen)
        return f"{said}, last on {last}" if last else said
    said = f"{verb} in {p.sessions} of your last {total} sessions" if total else \
        f"{verb} in {plural(p.sessions, 'session')}"
    if p.count > p.sessions:
        said += f" ({p.count} times)"
    split = agents_split(p.agents, result)
    if split:
        said += f", to {split}"
    last = day(p.last_seen)
    return f"{said}, last on {last}" if last else said


def agent_name(agent: str) -> str:
    from learn.transcripts.ids import AGENT_NAMES

    return AGENT_NAMES.get(agent, agent)


def agents_split(agents: tuple[tuple[str, int], ...], result: RunResult) -> str:
    """"Claude Code (2) and Gemini CLI (2)": which agents a count spans, said when the
    run read more than one agent (one agent's reader needs no name on every line)."""
    read = result.extra.get("agents") or {}
    if not agents or (len(agents) < 2 and len(read) < 2):
        return ""
    return names_list([f"{agent_name(a)} ({n})" for a, n in agents])


def names_list(named: list[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " and " + named[-1]


def _quote(text: str, kind: str) -> str:
    flat = flatten(text, QUOTE_CHARS.get(kind, 200))
    # A fix's text is the miner's description of what happened, not the user's words:
    # quotation marks would claim otherwise.
    return flat if kind == "fix" else f'"{flat}"'


# A rule coverage found written, with no outcome measured for it (a run stored before
# outcomes, a rule no run dated): whether it was said again since it was in place is not
# known, and that alone says "not working" (learn.report.outcomes.said_again).
UNMEASURED = ("not measured against the sessions since it was in place: if you said it "
              "after it was written, rewrite it rather than adding another")


# A run shows a decided proposal again only when it was said again since (or --all;
# a declined one when its sessions doubled): say what was decided.
EARLIER = {
    "applied": "applied before, and said again since: the rule may not be working",
    "edited": "applied before (reworded), and said again since: the rule may not be working",
    "declined": "you declined this before; shown again because it was said in at least twice "
                "as many sessions since (or `--all`)",
}


def item_lines(p: Proposal, result: RunResult, agents: AgentsInUse | None = None) -> list[str]:
    """`agents`: the agents in use, shared by the digest's items (surface_line).

    A rule already in place and measured (restated, or applied by learn) is said as its
    outcome says it (learn.report.outcomes.in_place_line), in place of coverage's lines:
    coverage said "not working" without the rule's date, beside "Did the rules work?: 0
    sessions since" for a line first found after every quote. An applied one gets no
    "proposed rule" line, nor where `learn apply` would write it: apply does not write an
    applied rule again ("nothing to apply"), and the in-place line says what to do."""
    in_place = in_place_line(p, result)
    applied = in_place is not None and applied_here(result, p.key)
    if p.kind == "fix" and p.command:
        head = f"- {code_span(flatten(p.command, 120))} — {_quote(p.text, p.kind)}"
    else:
        head = f"- **{p.label}** — {_quote(p.text, p.kind)}"
    lines = [head, f"  - {evidence_line(p, result)}"]
    lines.append(f"  - grouped as: {code_span(p.label)} (key {code_span(p.key)})")
    state = (result.extra.get("states") or {}).get(p.key)
    if result.extra.get("view") == "all" and state:
        lines.append(f"  - state: {state}")
    elif state in EARLIER and not applied:  # the in-place line says whether it works
        lines.append(f"  - {EARLIER[state]}")
    if p.error_excerpt:
        lines.append(f"  - error: {code_span(flatten(p.error_excerpt, 200))}")
    if p.intervening_commands:
        cmds = ", ".join(code_span(flatten(c, 80)) for c in p.intervening_commands[:5])
        lines.append(f"  - commands in between: {cmds}")
    if p.edited_files:
        lines.append(f"  - files edited: {', '.join(code_span(f) for f in p.edited_files[:8])}")
    same = _said_alike(p.quotes, p.text)
    if len(same) > 1:
        lines.append(f"  - these words in {plural(len(same), 'session')}")
    others = _alike(q for q in p.quotes if fold(q.text) != fold(p.text))
    for text, sessions, last in others[:2]:
        when = [f"in {plural(len(sessions), 'session')}"] if len(sessions) > 1 else []
        when += [d for d in (day(last),) if d]
        lines.append(f"  - also: {_quote(text, p.kind)}"
                     + (f" ({', '.join(when)})" if when else ""))
    if len(others) > 2:
        lines.append(f"  - and {plural(len(others) - 2, 'more quote')}")
    v = p.verdict
    if v is not None and not applied:
        what = "proposed command" if p.kind == "request" or p.surface == "command" else \
            "proposed rule"
        lines.append(f"  - {what} ({v.scope} scope, {_category(v.category)}, "
                     f"confidence {_confidence(v.confidence):.2f}): {flatten(v.summary)}")
    elif p.worded and not applied:
        lines.append(f"  - proposed rule (worded from your quote, no model judged it): "
                     f"{flatten(p.worded)}")
    if p.command_body:
        from learn.report.edits import body_too_long

        # The instruction written from every quote above; the quotes stay the evidence.
        # Shown cut at 300 columns: one too long for `learn apply` to write says so here.
        long = body_too_long(p.command_body)
        lines.append(f"  - the command's instruction: {flatten(p.command_body, 300)}"
                     + (f" ({long})" if long is not None else ""))
    if p.surface and not applied:
        lines.append(f"  - {surface_line(p, agents)}")
    where = project_line(p)
    if where:
        lines.append(f"  - {where}")
    elif p.rationale:
        lines.append(f"  - why it may be durable: {flatten(p.rationale, 200)}")
    if in_place is not None:
        lines.append(f"  - {in_place}")
    elif p.status == "restated" and p.existing_rule and _memory(p):
        lines.append(f'  - promote from memory to CLAUDE.md: your agent\'s memory '
                     f'({code_span(p.existing_rule_file or "")}) already says "{flatten(p.existing_rule, RULE_CHARS)}"'
                     " — machine-local and loaded only in part: `learn apply` writes it as a "
                     "rule (the memory file is left alone)")
    elif p.status == "contradicts" and p.existing_rule:
        where = f" in {code_span(p.existing_rule_file)}" if p.existing_rule_file else ""
        newest = p.quotes[0] if p.quotes else None
        said = f'"{flatten(newest.text, 200)}" ({day(newest.at) or "undated"})' if newest else ""
        how = "rewrites that line" if _old_line_stays(p) is None else \
            "writes the new rule where a new one goes and leaves that file alone (learn does " \
            "not write it): delete the old line by hand"
        if _unrelated(p):
            how = ("adds it as a new line and leaves yours: the two share no subject, so "
                   "coverage may be wrong about them")
        lines.append(f'  - contradicts your rule{where}: "{flatten(p.existing_rule, RULE_CHARS)}"'
                     f" — you said since: {said}. The latest wins: `learn apply` {how} "
                     "(decline to keep the rule)")
    elif p.status == "restated" and p.existing_rule:
        where = f" in {code_span(p.existing_rule_file)}" if p.existing_rule_file else ""
        lines.append(f'  - already written{where}: "{flatten(p.existing_rule, RULE_CHARS)}" '
                     f"— {UNMEASURED}")
    elif (missing := _written_elsewhere(p)) and p.existing_rule:
        readers = names_list(sorted(agent_name(a) for a in file_readers(p.existing_rule_file or "")))
        said = names_list([agent_name(a) for a in missing])
        lines.append(f'  - written for {readers or "another agent"} in {code_span(p.existing_rule_file or "")}: '
                     f'"{flatten(p.existing_rule, RULE_CHARS)}" — but you said it to {said}, '
                     "which does not read that file: `learn apply` writes it where "
                     f"{said} reads it")
    elif p.status == "has-skill" and p.existing_rule:
        lines.append(f"  - already covered by the {code_span(p.existing_rule)} skill: sharpen its "
                     "description so it triggers")
    return lines


# A category is one or two words; what is longer, or holds a character Markdown
# reads, did not come from the judge (a verdict read back from a shared store,
# team audit F1) and is not printed as it is.
CATEGORY_CHARS = 32
_MARKDOWN = re.compile(r"[#*_`\[\]()<>|!:;]")


def _category(category: str) -> str:
    flat = flatten(visible(category), CATEGORY_CHARS)
    return "uncategorised" if not flat or _MARKDOWN.search(flat) or flat[0] in "-+>=" \
        else flat


def _confidence(value: float) -> float:
    return min(1.0, max(0.0, value)) if math.isfinite(value) else 0.0


def _said_alike(quotes: Iterable[Quote], text: str) -> set[str]:
    """The sessions whose quote is `text` (case and spacing aside)."""
    return {q.session_id for q in quotes if fold(q.text) == fold(text)}


def _alike(quotes: Iterable[Quote]) -> list[tuple[str, set[str], str | None]]:
    """Quotes with the same words said once each: (text, its sessions, newest time),
    in the order first met (newest first). The same sentence typed in three
    sessions was three "also:" lines that read as three different things."""
    groups: dict[str, tuple[str, set[str], list[str]]] = {}
    for q in quotes:
        _text, sessions, times = groups.setdefault(fold(q.text), (q.text, set(), []))
        sessions.add(q.session_id)
        if q.at:
            times.append(q.at)
    return [(text, sessions, max(times) if times else None)
            for text, sessions, times in groups.values()]


def _unrelated(p: Proposal) -> bool:
    """Whether `learn apply` leaves the line coverage named (learn.report.targets)."""
    from learn.report.claimed_line import unrelated_line

    return unrelated_line(p)


def _old_line_stays(p: Proposal) -> Path | None:
    """The file whose contradicted line `learn apply` leaves (learn.report.targets)."""
    from learn.report.targets import old_line_stays

    return old_line_stays(p)


def _written_elsewhere(p: Proposal) -> tuple[str, ...]:
    from learn.report.agent_targets import written_elsewhere

    return written_elsewhere(p)


def _memory(p: Proposal) -> bool:
    from learn.reduce.surfaces import is_memory_file

    return is_memory_file(p.existing_rule_file)


def surface_line(p: Proposal, agents: AgentsInUse | None = None) -> str:
    """Where a proposal goes when it is not a line of CLAUDE.md: for a command or a deny,
    where `learn apply` puts it for the agents in use (`agents`; None: found here)."""
    p = scoped_safely(p)
    if p.surface in ("permission", "command"):
        from learn.report.agent_targets import AgentsInUse

        instead = _instead_of_claudes(p, agents or AgentsInUse())
        if instead is not None:
            return instead
    if p.surface == "permission":
        return (f"enforced, not advised: `learn apply` adds {', '.join(p.surface_rules)} to "
                "`permissions.deny` in .claude/settings.json (`--agents`: a Codex forbidden "
                "rule in ~/.codex/rules/learn.rules)")
    if p.surface == "path-rule":
        return (f"only said while working under {', '.join(code_span(g) for g in p.surface_rules)}: "
                "written to .claude/rules/ with `paths:` so it is loaded only there "
                "(`--agents`: an AGENTS.md in that folder)")
    if p.surface == "command":
        return "a command, not a rule line: `learn apply` writes .claude/commands/<name>.md, typed when wanted"
    return p.surface or ""


def _instead_of_claudes(p: Proposal, agents: AgentsInUse) -> str | None:
    """What `learn apply` writes in place of Claude Code's command file or deny rule when
    no agent in use reads it (learn.report.agent_targets.instead_of_claudes, as apply
    asks it); None when Claude Code's file is written, or apply would ask first (a rule
    said in several projects) or refuse (learn.report.apply.edit_for says why then).

    Found after apply made a Codex-only person's command a Codex prompt and their deny
    a prefix_rule: the digest still said `.claude/commands/<name>.md` and
    `.claude/settings.json`, files `learn apply` would not write."""
    from learn.report.agent_targets import instead_of_claudes
    from learn.report.codex_commands import codex_command_noun, invocation
    from learn.report.edits import RuleEdit
    from learn.report.targets import TargetChoice, TargetError, choose

    try:
        # Where `learn apply` with no flags puts it: in the project the quotes were said in.
        # The place as learn.report.apply.edit_for chooses it, not the edit: that module
        # (and the redaction it imports) cost the digest 50 ms to load for one command.
        to = choose(p, TargetChoice(project_dir=Path.cwd(), follow_quotes=True))
    except (TargetError, OSError):
        return None
    main = RuleEdit(p.key, p.text, to.path, replace_line=p.existing_rule if to.rewrites else None,
                    form=to.form, project=to.project, surface_rules=p.surface_rules,
                    surface_commands=p.surface_commands)
    unread, instead = instead_of_claudes(p, main, agents.of(main.project))
    if not unread:
        return None
    where = "you use" if main.project is None else "the project uses"
    which = "which do not read" if len(unread) > 1 else "which does not read"
    names = names_list([agent_name(a) for a in unread])
    claudes = f"{_shown(main.target, main.project)}: {where} {names}, {which} it"
    # Codex reads both files from its home only: a project's is Codex's in every project.
    every = " (which Codex reads in every project)" if main.project is not None else ""
    if p.surface == "command":
        if isinstance(instead, RuleEdit):
            return (f"a command, not a rule line: `learn apply` writes it as "
                    f"{codex_command_noun(instead.target)}, {code_span(_shown(instead.target))}"
                    f"{every}; {invocation(instead.target)}; not {claudes} (`--target claude` "
                    "writes it there)")
        return (f"a command, not a rule line: `learn apply` writes it nowhere: not {claudes}, "
                f"and {instead} (`--target claude` writes it there)")
    if isinstance(instead, RuleEdit):
        left = "".join(f"; {n.removeprefix(f'{p.key}: ')}" for n in instead.notes)
        commands = ", ".join(code_span(c) for c in instead.surface_commands)
        return (f"enforced, not advised: `learn apply` adds a forbidden prefix_rule for "
                f"{commands} to {code_span(_shown(instead.target))}{every}{left}; not "
                f"{claudes} (`--target claude` adds "
                f"{', '.join(p.surface_rules)} to `permissions.deny` there)")
    return (f"enforced, not advised, but `learn apply` writes it nowhere: not {claudes}, and "
            f"{instead} (`--target claude` adds {', '.join(p.surface_rules)} to "
            "`permissions.deny` there)")


def _shown(path: Path, project: Path | None = None) -> str:
    """`path` from `project` (named on the line below: `.claude/settings.json`), else from
    the home folder as `~/…` (a Codex file is the person's, for every project), else as
    it is."""
    home = Path.home()
    if project is not None and path.is_relative_to(project):
        return str(path.relative_to(project))
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def project_line(p: Proposal) -> str | None:
    """Which project a rule belongs to (where its quotes were said). An agent's own folder
    (`~/.codex`: learn.projects.agent_homes) is none: "said in 2 projects: …/app,
    ~/.codex" was printed, and `learn apply` now follows the one project."""
    from learn.projects import agent_home

    scope = p.verdict.scope if p.verdict else "project"
    projects = quote_projects(p.quotes)
    own = [x for x in projects if agent_home(x) is not None]
    projects = [x for x in projects if x not in own]
    if not projects:
        if not own:
            return None
        where = ", ".join(code_span(x) for x in own)
        return (f"said in {where} (a user rule: every project)" if scope == "user" else
                f"said only in {where}, an agent's own folder, which is no project: "
                "`learn apply --scope user` writes it for every project, --project DIR in one")
    if len(projects) == 1:
        return (f"project: {code_span(projects[0])}" if scope == "project"
                else f"said in {code_span(projects[0])} (a user rule: every project)")
    said = ", ".join(code_span(x) for x in projects)
    if scope == "user":
        return f"said in {len(projects)} projects: {said} (a user rule: every project)"
    return (f"said in {len(projects)} projects: {said}; `learn apply` asks which "
            "(or --project DIR)")
