"""What to drop while parsing, before an event is ever built.

A FilterSpec is applied to the decoded wire record, so a dropped line costs its
decode and nothing more: no EntryMeta, no blocks, no public object.
"""

from __future__ import annotations

import msgspec


class FilterSpec(msgspec.Struct, frozen=True):
    """Events to drop during parsing.

    types: entry `type` values to drop (e.g. "progress").
    sidechain: drop entries with isSidechain=true (subagent traffic).
    meta: drop entries with isMeta=true (client-injected lines).
    system_subtypes: system `subtype` values to drop.
    attachment_types: `attachment.type` values to drop.
    """

    types: frozenset[str] = frozenset()
    sidechain: bool = False
    meta: bool = False
    system_subtypes: frozenset[str] = frozenset()
    attachment_types: frozenset[str] = frozenset()


# Entries that never carry anything the person said or anything the detectors
# read: editor progress ticks, file snapshots, titles, and bookkeeping system
# and attachment records. queue-operation and queued_command are kept on
# purpose: they hold prompts typed while the agent was busy.
NOISE_SPEC = FilterSpec(
    types=frozenset(
        {
            "progress",
            "file-history-snapshot",
            "ai-title",
            "custom-title",
            "last-prompt",
            "agent-name",
            "pr-link",
        }
    ),
    system_subtypes=frozenset({"turn_duration", "api_metrics"}),
    attachment_types=frozenset(
        {
            "deferred_tools_delta",
            "skill_listing",
            "mcp_instructions_delta",
            "todo_reminder",
            "critical_system_reminder",
            "date_change",
        }
    ),
)
