"""`learn apply` for every agent a project uses: the other agents' edits beside each rule.

A command-side helper of `learn apply` (learn.commands.apply): which agents a rule is
written for (named with `--agent`, else the ones the project uses:
learn.report.agent_targets), said once per project, and their edits beside the main one;
a command or a deny no agent in use reads in Claude Code's file goes to Codex's instead.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from learn.records.proposal import Proposal
from learn.report.agent_targets import ORDER as AGENT_ORDER
from learn.report.agent_targets import AgentsInUse, instead_of_claudes, unread_main
from learn.report.codex_commands import codex_command_noun
from learn.report.edits import RuleEdit
from learn.report.targets import TargetChoice
from learn.transcripts.ids import AGENT_NAMES
from learn.visible import visible

__all__ = ["ForAgents"]


class ForAgents:
    """The same rule for every agent the project uses, each in its own file
    (learn.report.agent_targets); says once per project which agents those are."""

    def __init__(self, choice: TargetChoice, named: tuple[str, ...]) -> None:
        self._choice = choice
        self._named = named
        # The agents in use, found once per project (learn's sessions read once).
        self._in_use = AgentsInUse()
        self._said: set[Path | None] = set()
        # The other agents' edits made for each rule (by key), for keeps_main to weigh.
        self._others: dict[str, list[RuleEdit]] = {}
        self._overrides: set[Path] = set()
        # The agents in use, by rule, when none reads its main destination (--target left
        # to its default: learn.report.agent_targets.unread_main).
        self._unread: dict[str, tuple[str, ...]] = {}
        # By rule, for a command or a deny made for Claude Code when no agent in use
        # reads it: what is written for Codex instead, or why nothing is (instead_of_claudes).
        self._instead: dict[str, str] = {}
        # Why an agent got nothing (Gemini's settings name no file learn writes): each
        # said once per apply.
        self._notes: list[str] = []
        # Every agent a rule of this apply was written for: the preview says which of
        # them read a file by other names (learn.report.agent_targets.shared_line).
        self.used: set[str] = set()

    def _agents(self, project: Path | None) -> tuple[str, ...]:
        found = self._find(project)
        self.used.update(found)
        return found

    def _find(self, project: Path | None) -> tuple[str, ...]:
        if self._named:
            return tuple(a for a in AGENT_ORDER if a in self._named)
        found = self._in_use.of(project)
        if project is not None and project not in self._said \
                and [a for a in found if a != "claude"]:
            self._said.add(project)
            names = ", ".join(AGENT_NAMES.get(a, a) for a in found)
            click.echo(f"{project} uses {names}: each gets the rule in the file it reads "
                       "(--agent picks)")
        return found

    def edits(self, p: Proposal, main: RuleEdit) -> list[RuleEdit]:
        from learn.report.agent_rule_files import agent_edits

        if self._choice.file is not None:
            return []  # the person named the one file
        # The apply's claims: a name one rule's scope took is not another scope's.
        said = len(self._notes)
        agents = self._agents(main.project)
        if self._choice.scope == "user" and p.verdict is not None:
            # --scope user: the other agents' user files too, as for a rule judged so (a
            # Codex-only person told to use it got nothing where Codex reads).
            p = replace(p, verdict=replace(p.verdict, scope="user"))
        others = agent_edits(p, main, agents, claims=self._choice.claims, notes=self._notes)
        for note in self._notes[said:]:
            # A note can quote a cloned repository's settings (Gemini's context.fileName).
            click.echo(visible(f"note: {note}"))
        if not self._choice.kind_named:  # --target, --agents: written where they name
            others = self._weigh_main(p, main, agents, others)
        self._others[main.key] = others
        self._say_overrides([main, *others])
        return others

    def _weigh_main(self, p: Proposal, main: RuleEdit, agents: tuple[str, ...],
                    others: list[RuleEdit]) -> list[RuleEdit]:
        """Which agents in use do not read the main destination (for keeps_main); for a
        command or a deny, which only Claude Code reads, the edits in its place, as
        learn.report.agent_targets.instead_of_claudes decides (the digest says the same).
        A deny's prose copies are not kept then: they are learn's summary ("deny … in
        .claude/settings.json"), not the person's rule, which their files hold already
        (it was written, and ignored: learn.report.escalation)."""
        if not _claude_only(main):
            if not self._named:
                self._unread[main.key] = unread_main(p, main, agents)
            return others
        # Named (`--agent codex`): those agents, as for a rule line (keeps_main).
        unread, instead = instead_of_claudes(p, main, agents, named=bool(self._named))
        self._unread[main.key] = unread
        if not unread:
            return others
        if isinstance(instead, RuleEdit):
            what = (codex_command_noun(instead.target) if instead.form == "command"
                    else "a Codex prefix_rule")
            every = ", which Codex reads in every project" if main.project else ""
            self._instead[main.key] = f"; written as {what} instead, to {instead.target}{every}"
            return [instead]
        self._instead[main.key] = f"; nothing is written for it: {instead}"
        return []

    def _say_overrides(self, edits: list[RuleEdit]) -> None:
        """Say once per file that Codex's copy goes to an AGENTS.override.md: the person
        may think of it as temporary, and the rule leaves with it (agent_files.codex_doc)."""
        for e in edits:
            if e.target.name == "AGENTS.override.md" and e.target not in self._overrides:
                self._overrides.add(e.target)
                click.echo(f"{e.target}: Codex reads this override in place of AGENTS.md "
                           "there, so its copy of the rule goes here (move it if you remove "
                           "the override)")

    def keeps_main(self, main: RuleEdit) -> bool:
        """The main destination unless another file planned for the rule reaches its
        readers (a CLAUDE.md that imports the AGENTS.md written for Codex), or the person
        named agents that do not read it; a command or a deny, unless no agent in use
        reads Claude Code's file (`edits` planned Codex's instead). Called after `edits`
        for the same rule."""
        if self._choice.file is not None:
            return True
        if main.form in ("command", "permission", "codex-rule"):
            return self._keeps_claudes(main)
        from learn.reduce.file_readers import file_readers

        others = self._others.get(main.key, [])
        shared = _imported_agents_md(main, others)
        if shared is not None:
            # Written to both, Claude Code read the rule twice: CLAUDE.md and, through
            # `@AGENTS.md`, the AGENTS.md beside it.
            click.echo(f"{main.key}: {main.target.name} imports {shared.name} (@AGENTS.md): "
                       f"written once, to {shared}, which Claude Code reads through it")
            return False
        if not self._named:
            unread = self._unread.get(main.key, ())
            if not unread:
                return True
            nothing = "" if others else "; nothing is written for it"
            click.echo(f"{_unread_line(main, unread)}{nothing} (--target claude writes it there)")
            return False
        if file_readers(main.target) & set(self._named):
            return True
        if not others:
            names = ", ".join(AGENT_NAMES.get(a, a) for a in self._named)
            click.echo(f"{main.key}: nothing written: {names} does not read {main.target} and "
                       "has no file of its own for this rule (another --agent, or --file, "
                       "picks one)", err=True)
        return False

    def _keeps_claudes(self, main: RuleEdit) -> bool:
        """A command or a deny: Claude Code's file, unless no agent in use reads it
        (`edits` put Codex's form in its place, or found none: said here)."""
        unread = self._unread.get(main.key, ())
        if not unread:
            return True
        hint = "--agent claude" if self._named else "--target claude"
        click.echo(f"{_unread_line(main, unread)}{self._instead.get(main.key, '')} ({hint} "
                   "writes it there)")
        return False


def _names(agents: tuple[str, ...]) -> str:
    return ", ".join(AGENT_NAMES.get(a, a) for a in agents)


def _unread_line(main: RuleEdit, unread: tuple[str, ...]) -> str:
    where = "you use" if main.project is None else f"{main.project} uses"
    which = "which do not read it" if len(unread) > 1 else "which does not read it"
    return f"{main.key}: not written to {main.target}: {where} {_names(unread)}, {which}"


def _claude_only(main: RuleEdit) -> bool:
    """A command file or a deny rule made for Claude Code, a form no other agent reads
    (`--target` left to its default)."""
    from learn.reduce.file_readers import file_readers

    return main.form in ("command", "permission") and "claude" in file_readers(main.target)


def _imported_agents_md(main: RuleEdit, others: list[RuleEdit]) -> Path | None:
    """The AGENTS.md planned for another agent that `main`'s CLAUDE.md imports (Claude
    Code reads it, learn.reduce.agent_files.readers_of); None when there is none, or when
    `main` rewrites a line of its own in place (that line stays where it is). A CLAUDE.md
    not made yet imports nothing: Claude Code will read it, not the AGENTS.md beside it."""
    if main.target.name != "CLAUDE.md" or main.form != "rule" or main.replace_line \
            or not main.target.is_file():
        return None
    from learn.reduce.agent_files import readers_of

    beside = main.target.with_name("AGENTS.md").expanduser().resolve()
    for e in others:
        if e.target.expanduser().resolve() == beside and "claude" in readers_of(e.target):
            return e.target
    return None
