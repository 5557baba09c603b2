"""Who wrote a piece of text the person might have pushed back with.

typed: the person typed it (a user turn on the main chain, no tool involved).
surfaced: a tool on the main chain produced it and the person saw it.
claude: a subagent (Agent/Task) or a sidechain produced it, or another agent
relayed it into the user slot; the person did not write it and may never have
seen it.
"""

from __future__ import annotations

from learn.detect.spec import Provenance, ProvenanceSpec
from learn.transcripts.models import UserEvent


def classify(
    event: UserEvent, tool_name: str | None, spec: ProvenanceSpec, *, from_tool: bool
) -> Provenance:
    if event.meta.is_sidechain or event.is_agent_injected:
        return "claude"
    if not from_tool:
        return "typed"
    if tool_name is not None and tool_name in spec.subagent_tools:
        return "claude"
    return "surfaced"
