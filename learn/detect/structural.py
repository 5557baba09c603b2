"""What counts as structural noise in a user-slot text.

Harness scaffolding (slash-command echoes, local-command output, system
reminders, skill bodies, hook feedback) and agent relays arrive in the user
slot, but the person typed none of it. A message that *opens* with one of these
is scaffolding; a person quoting one mid-sentence is still a person.
"""

from __future__ import annotations

import re
from typing import Final

from learn.transcripts.claude.literals import (
    AGENT_INJECTION_PATTERNS,
    COMPACT_SUMMARY_PREFIX,
    LOCAL_COMMAND_CAVEAT,
    MACHINE_INPUT_PATTERNS,
    TASK_NOTIFICATION_MARKER,
)
from learn.transcripts.models import UserEvent

# Not (yet) in learn.transcripts.claude.literals: the structural groups of the
# transcript filter, as observed in Claude Code output.
STRUCTURAL_PATTERNS: Final[tuple[str, ...]] = (
    r"\A\s*<command-(?:name|message|args)>",
    r"\A\s*<local-command-(?:stdout|stderr|caveat)>",
    r"\A\s*" + re.escape(LOCAL_COMMAND_CAVEAT),
    r"\A\s*Base directory for this skill:",
    r"\A\s*<system-reminder>",
    r"\A\s*<system_instruction>",
    r"\A\s*<persisted-output>",
    r"\A\s*<output-file>",
    r"\A\s*<bash-(?:input|stdout|stderr)",
    r"\A\s*Stop hook feedback:",
    r"\A\s*REMAINING_TASKS_ACKNOWLEDGED",
    r"\A\s*#{3,}[^\n]*#{3,}\s*\Z",
    r"\A\s*" + re.escape(TASK_NOTIFICATION_MARKER),
    r"\A\s*" + re.escape(COMPACT_SUMMARY_PREFIX),
)

STRUCTURAL_RE: Final = re.compile(
    "|".join(f"(?:{p})" for p in (*STRUCTURAL_PATTERNS, *AGENT_INJECTION_PATTERNS,
                                  *MACHINE_INPUT_PATTERNS))
)


def is_structural(text: str) -> bool:
    """True for harness scaffolding or an agent relay (matched at the head of the text)."""
    return STRUCTURAL_RE.match(text) is not None


def is_scaffolding(event: UserEvent) -> bool:
    """A user-slot event nobody typed: meta lines, compaction summaries, subagent
    prompts, agent relays, harness tags."""
    meta = event.meta
    return (
        meta.is_meta
        or meta.is_compact_summary
        or meta.is_sidechain
        or event.is_agent_injected
        or is_structural(event.text)
    )
