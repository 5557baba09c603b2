"""What leaves the machine when a person shares: built here, in one place.

A shared row (learn.store.team.SharedCandidate) holds the verified quote run
through redact() again (a secret that slipped past mining does not leave), its
kind and label, a hash of the session id keyed by the person, when it was said,
the repository's identity, the author and whether they chose to be named. A
*fix* is shared as evidence or not at all: the command that failed and later
passed, and the commands run in between, each checked against what ran in the
session (redacted) -- never the model's description of the fix. Nothing else of
the candidate's payload is read: no tool output, error excerpt, edited files,
rationale or local path.

shareable() is pure (local rows in, shared rows out), so `learn share --dry-run`
prints exactly what the team table's share() would store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from learn.mining.commands import command_ran
from learn.redaction.redact import redact
from learn.store.scan_tables import StoredCandidate
from learn.store.team import SharedCandidate, session_hash

# What a fix may carry as evidence: the commands run between the failure and the pass.
MAX_EVIDENCE_COMMANDS = 5

# session id -> the normalised commands that ran in it (learn.mining.verify.session_commands),
# or None when the transcript can no longer be read.
CommandsRan = Callable[[str], Sequence[str] | None]


def _project_map(projects: Mapping[Path, str]) -> dict[str, str]:
    """Each opted-in folder's project (learn.projects.project_of) -> its repository id."""
    from learn.projects import project_here

    return {project_here(root): remote for root, remote in projects.items()}


def _fix_evidence(c: StoredCandidate, ran: CommandsRan | None) -> tuple[str, tuple[str, ...]] | None:
    """(failing command, commands in between) of a fix, each one that ran, redacted;
    None when the fix cannot be checked against its session."""
    payload = c.payload or {}
    command = payload.get("command")
    if ran is None or not isinstance(command, str) or not command.strip():
        return None
    commands = ran(c.session_id)
    if commands is None or not command_ran(command, commands):
        return None
    between = payload.get("intervening_commands")
    steps = [s for s in between if isinstance(s, str)] if isinstance(between, list) else []
    kept = tuple(redact(s) for s in steps if s.strip() and command_ran(s, commands))
    return redact(command), kept[:MAX_EVIDENCE_COMMANDS]


def shareable(
    candidates: Iterable[StoredCandidate], projects: Mapping[Path, str], author: str,
    *, show_name: bool = False, commands_ran: CommandsRan | None = None,
) -> list[SharedCandidate]:
    """The rows to share: local candidates of the opted-in `projects` (local root ->
    repository identity), nothing else, each reduced to the shared fields. A fix is
    shared only when `commands_ran` shows its commands ran (without it, no fix is)."""
    if not author.strip():
        raise ValueError("an author id is needed to share (team.author in the config)")
    from learn.projects import Known, project_of

    known = Known()
    remotes = _project_map(projects)
    out: list[SharedCandidate] = []
    for c in candidates:
        remote = remotes.get(project_of(c.project, known) or "")
        if remote is None:
            continue
        quote = redact(c.text)
        evidence: tuple[str, ...] = ()
        if c.kind == "fix":
            checked = _fix_evidence(c, commands_ran)
            if checked is None:
                continue
            quote, evidence = checked
        out.append(SharedCandidate(
            author=author, session_hash=session_hash(c.session_id, author), kind=c.kind,
            label=c.label, quote=quote, occurred_at=c.occurred_at,
            project_remote=remote, show_name=show_name, evidence=evidence,
        ))
    return out
