"""Which agents a project or a person uses, and what of a rule they read.

`learn apply` writes a rule for every agent in use (`agents_in_use`, `AgentsInUse`: those
with sessions in the project, as learn's session index knows them, and those whose own
files the project holds: `.cursor/rules`, `.windsurf/rules`, `.kiro/steering`, GEMINI.md,
`.github/copilot-instructions.md`, ...), each in the file it reads (learn.report.
agent_rule_files.agent_edits, importable from here too).

This says when no agent in use reads the main destination (`unread_main`: then, `--target`
left to its default, it is not written), and for a command or a deny made for Claude Code,
what is written in its place: Codex's form where Codex is in use (`codex_form`), or nothing,
and why (`instead_of_claudes`: the one decision, which `learn apply` acts on and the
digest reports).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from learn.projects import within
from learn.records.proposal import Proposal
from learn.reduce.agent_files import agents_with_files
from learn.reduce.file_readers import file_readers
from learn.reduce.rule_places import claude_home
from learn.report.agent_rule_files import _owner as _owner  # its tests ask for it here
from learn.report.agent_rule_files import agent_edits
from learn.report.edits import MAX_RULE_CHARS, RuleEdit
from learn.report.prose import plain_prose
from learn.report.words import flatten
from learn.transcripts.ids import AGENT_NAMES

__all__ = ["ORDER", "AgentsInUse", "agent_edits", "agents_in_use", "codex_form",
           "instead_of_claudes", "shared_line", "unread_main", "written_elsewhere"]

ORDER: Final = ("claude", "codex", "opencode", "gemini", "copilot", "cursor", "windsurf", "kiro")


def agents_in_use(project: Path, sessions: Iterable[tuple[str, str | None]]) -> tuple[str, ...]:
    """The agents a project uses: with sessions in it (`sessions`: (agent, project)
    pairs) or with their own instruction files in it; in a fixed order.

    `project` is the checkout the rule is written into, a worktree as often as the
    main one; a session's project is its repository (learn.projects.project_of), so
    they are compared as projects: by folder, a worktree used no agent but those
    with files in it."""
    from learn.projects import Known, project_of

    known = Known()
    mine = project_of(str(project), known)
    found = {agent for agent, where in sessions
             if where and (within(where, str(project)) or project_of(where, known) == mine)}
    found |= agents_with_files(project)
    return tuple(a for a in ORDER if a in found)


def unread_main(p: Proposal, main: RuleEdit, agents: Sequence[str],
                home: Path | None = None) -> tuple[str, ...]:
    """The agents in use, when none of them reads `main`'s file (the main destination,
    `--target`'s default: Claude Code's); () when one does, or when no agent is known.

    Found on a Codex-only person (15 Codex sessions, no Claude Code session, no
    ~/.claude): `learn apply` planned every rule into a new ~/.claude/CLAUDE.md as well as
    ~/.codex/AGENTS.md, and a project's CLAUDE.md beside its AGENTS.md, because the main
    destination was planned whatever agent the rule was said to. In use: `agents` (the
    project's, from its sessions and files: `agents_in_use`; for a user-scope rule, the
    person's, with a session anywhere), the agents the rule itself was said to there (a
    quote with no agent recorded is Claude Code's: learn read only Claude Code before),
    and, for a user-scope rule, Claude Code when its home folder exists. A line rewritten
    in place stays where it is: the file holds the rule already."""
    if main.replace_line is not None:
        return ()
    home = home or Path.home()
    said = [(q.agent or "claude", q.project) for q in p.quotes]
    if main.project is not None:
        used = {*agents, *agents_in_use(main.project, said)}
    else:
        used = {*agents, *(agent for agent, _ in said)}
        if claude_home(home).is_dir():
            used.add("claude")
    if not used or file_readers(main.target, home) & used:
        return ()
    return tuple(a for a in ORDER if a in used)


def codex_form(p: Proposal, main: RuleEdit, home: Path | None = None) -> RuleEdit | str:
    """Codex's own form of `main`, a command file or a deny rule made for Claude Code
    (`.claude/commands/<name>.md`, `.claude/settings.json`): for a command, the file the
    person's Codex reads (learn.report.codex_commands: a skill in `~/.agents/skills`, a
    custom prompt in `~/.codex/prompts` for a Codex before 0.117.0), with a note saying
    how it is called; for a deny, a forbidden prefix_rule in `~/.codex/rules/learn.rules`
    for the commands it names. Why there is none, as a clause, when the deny names no
    command (`Edit(docs/**)`: a prefix_rule forbids commands, not edits).

    Found with the main destination made to follow the agents in use (`unread_main`): a
    Codex-only person still got `.claude/commands/release-notes.md` and a `.claude/
    settings.json` deny, because those forms kept Claude Code's files whatever the agents.
    Codex reads both of its files from its home only, so a project's command or deny is
    Codex's in every project: the apply says so beside the diff."""
    from learn.report.codex_commands import codex_command, codex_command_noun, invocation
    from learn.report.targets import codex_rules, slug

    if main.form == "command":
        target = codex_command(slug(p.label, "command"), home)
        # The apply's plan says what the file is and how it is called: a skill is no
        # slash command, and a person told "a command" typed `/name` for nothing.
        said = f"{main.key}: {codex_command_noun(target)}, {invocation(target)}"
        return replace(main, target=target, notes=(*main.notes, said))
    if not main.surface_commands:
        rules = ", ".join(main.surface_rules)
        return f"Codex has no rule for it ({rules}: a prefix_rule forbids commands, not edits)"
    edits = [r for r in main.surface_rules if r.startswith("Edit(")]
    notes = (f"{main.key}: {', '.join(edits)} not denied for Codex (a prefix_rule forbids "
             "commands, not edits)",) if edits else ()
    # What Codex shows when it refuses: the person's rule, as learn.report.apply.edit_for
    # words it for `--agents`.
    return replace(main, target=codex_rules(home), form="codex-rule",
                   justification=flatten(plain_prose(p.text), MAX_RULE_CHARS),
                   notes=(*main.notes, *notes))


def instead_of_claudes(p: Proposal, main: RuleEdit, agents: Sequence[str],
                       home: Path | None = None, *,
                       named: bool = False) -> tuple[tuple[str, ...], RuleEdit | str | None]:
    """For `main`, a command or a deny made for Claude Code: the agents in use when none
    of them reads it, and what is written in its place: Codex's form (`codex_form`), where
    Codex is one of them, or why nothing is; ((), None) when Claude Code's file is
    written. In use: `agents` and those the rule was said to (`unread_main`, `--target`
    left to its default); `named`: `agents` are the ones the person named (`--agent`),
    and only they count. The one decision: `learn apply` acts on it (learn.commands.
    apply_agents), and the digest asks it to say where the rule would go."""
    if named:
        unread = () if file_readers(main.target, home) & set(agents) else tuple(agents)
    else:
        unread = unread_main(p, main, agents, home)
    if not unread:
        return (), None
    if "codex" in unread:
        return unread, codex_form(p, main, home)
    names = ", ".join(AGENT_NAMES.get(a, a) for a in unread)
    return unread, f"no command or deny of {names} is one learn writes"


class AgentsInUse:
    """The agents a rule is written for when `--agent` names none, found for `learn apply`
    (learn.commands.apply_agents) and the digest alike: a project's (`agents_in_use`), or
    for a user-scope rule (None) every agent the person has a session with. The sessions
    are read from learn's store once, and each project's agents found once: the digest
    asks for each command and deny it lists, up to hundreds."""

    def __init__(self, sessions: Sequence[tuple[str, str | None]] | None = None) -> None:
        self._sessions = list(sessions) if sessions is not None else None
        self._found: dict[Path | None, tuple[str, ...]] = {}

    def of(self, project: Path | None) -> tuple[str, ...]:
        if project not in self._found:
            if self._sessions is None:
                self._sessions = _scanned_sessions()
            if project is None:
                self._found[project] = tuple(a for a in ORDER
                                             if any(a == s for s, _ in self._sessions))
            else:
                self._found[project] = agents_in_use(project, self._sessions)
        return self._found[project]


def _scanned_sessions() -> list[tuple[str, str | None]]:
    """(agent, project) of every session learn has read (the scan the runs keep)."""
    from learn.store import open_store

    try:
        with open_store(readonly=True) as store:
            return [(s.provider, s.project) for s in store.scans.scanned_sessions().values()]
    except Exception:  # no store yet, or one learn cannot open: the files still say
        return []


def written_elsewhere(p: Proposal) -> tuple[str, ...]:
    """The agents a rule written only in another agent's file was said to (coverage
    found it there, and none of them reads that file); () otherwise."""
    if p.status != "new" or not p.existing_rule_file:
        return ()
    readers = file_readers(p.existing_rule_file)
    return tuple(a for a, _ in p.agents if a not in readers)


def shared_line(path: Path, agents: Iterable[str] = (), home: Path | None = None) -> str | None:
    """The preview's line for a file the agents read by other names too (links): which
    names, and which of `agents` (the apply's; none: any) read it by any of them; None
    for a file with one name.

    The diff names the real file: with CLAUDE.md linked to AGENTS.md, a person who asked
    for Claude Code's rule saw only AGENTS.md change, and nothing said Claude Code reads it."""
    from learn.reduce.file_readers import file_readers, other_names

    home = home or Path.home()
    names = other_names(path, home)
    if not names:
        return None
    base = path.parent

    def shown(name: Path) -> str:
        return str(name.relative_to(base)) if name.is_relative_to(base) else str(name)

    readers = file_readers(path, home)
    wanted = set(agents) or set(ORDER)
    who = ", ".join(AGENT_NAMES.get(a, a) for a in ORDER if a in readers and a in wanted)
    return (f"{path.name} is also {', '.join(shown(n) for n in names)} (links to one file): "
            f"written once{f', read by {who}' if who else ''}")
