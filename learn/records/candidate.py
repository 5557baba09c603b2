"""What the map stage produces: one occurrence the model (or a detector) noticed.

Deliberately unnamed: naming happens once, globally, in `learn.reduce.naming`,
where every candidate is visible at the same time. This is also the shape that
goes in the per-session cache, so nothing model-specific may live on it (a
cached label frozen at mining time forks the vocabulary when the model changes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

CandidateKind = Literal["directive", "fix", "request"]
KINDS: tuple[CandidateKind, ...] = ("directive", "fix", "request")


@dataclass(frozen=True, slots=True)
class MinedCandidate:
    kind: CandidateKind
    text: str  # verbatim quote of what the user typed (fix: a short description)
    rationale: str | None = None
    command: str | None = None  # fix: the command that failed, then passed
    error_excerpt: str | None = None
    intervening_commands: tuple[str, ...] = ()
    edited_files: tuple[str, ...] = ()
    # "miner" for the model; a detector name ("denial", "exit_plan_rejection",
    # "ask_user_question", ...) for deterministic signals.
    source: str = "miner"
    # ISO 8601 time the quoted turn was typed (None: not located, e.g. a quote
    # joined from two turns, or a candidate cached before times were kept; the
    # session's last activity stands in).
    at: str | None = None


@dataclass(frozen=True, slots=True)
class SessionCandidates:
    """Verified candidates of one session, with what counting needs to know."""

    session_id: str
    provider: str
    project: str | None
    last_activity: str | None  # ISO 8601; the newest activity on the active branch
    candidates: tuple[MinedCandidate, ...] = field(default=())
