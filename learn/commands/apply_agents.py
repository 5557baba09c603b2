"""`learn apply` for every agent a project uses: the other agents' edits beside each rule.

A command-side helper of `learn apply` (learn.commands.apply): which agents a rule is
written for (named with `--agent`, else the ones the project uses:
learn.report.agent_targets), said once per project, and their edits beside the main one.
"""

from __future__ import annotations

from pathlib import Path

import click

from learn.records.proposal import Proposal
from learn.report.agent_targets import ORDER as AGENT_ORDER
from learn.report.edits import RuleEdit
from learn.report.targets import TargetChoice
from learn.transcripts.ids import AGENT_NAMES

__all__ = ["ForAgents"]


class ForAgents:
    """The same rule for every agent the project uses, each in its own file
    (learn.report.agent_targets); says once per project which agents those are."""

    def __init__(self, choice: TargetChoice, named: tuple[str, ...]) -> None:
        self._choice = choice
        self._named = named
        self._sessions: list[tuple[str, str | None]] | None = None
        self._said: set[Path | None] = set()

    def _agents(self, project: Path | None) -> tuple[str, ...]:
        from learn.report.agent_targets import agents_in_use

        if self._named:
            return tuple(a for a in AGENT_ORDER if a in self._named)
        if self._sessions is None:
            self._sessions = _session_agents()
        if project is None:  # a user-scope rule: the agents the person uses anywhere
            return tuple(a for a in AGENT_ORDER if any(a == s for s, _ in self._sessions))
        found = agents_in_use(project, self._sessions)
        if project not in self._said and [a for a in found if a != "claude"]:
            self._said.add(project)
            names = ", ".join(AGENT_NAMES.get(a, a) for a in found)
            click.echo(f"{project} uses {names}: each gets the rule in the file it reads "
                       "(--agent picks)")
        return found

    def edits(self, p: Proposal, main: RuleEdit) -> list[RuleEdit]:
        from learn.report.agent_targets import agent_edits

        if self._choice.file is not None:
            return []  # the person named the one file
        # The apply's claims: a name one rule's scope took is not another scope's.
        return agent_edits(p, main, self._agents(main.project), claims=self._choice.claims)

    def keeps_main(self, main: RuleEdit) -> bool:
        """The main destination unless the person named agents that do not read it."""
        if not self._named or main.form in ("command", "permission", "codex-rule"):
            return True
        from learn.reduce.agent_files import readers_of

        return bool(readers_of(main.target) & set(self._named))


def _session_agents() -> list[tuple[str, str | None]]:
    """(agent, project) of every session learn has read (the scan the runs keep)."""
    from learn.store import open_store

    try:
        with open_store(readonly=True) as store:
            return [(s.provider, s.project) for s in store.scans.scanned_sessions().values()]
    except Exception:  # no store yet, or one learn cannot open: the files still say
        return []
