"""learn's hooks in Claude Code's settings.json, added without disturbing anything else
there (other hooks, permissions, the person's own hooks for the same events). Pure
functions over the parsed JSON; the command does the file I/O.

Two hooks: SessionEnd mines an ended session in the background; InstructionsLoaded
records which instruction file a session loaded, and why (learn.transcripts.
instructions), so outcomes count a rule only where it reached the agent.
"""

from __future__ import annotations

import copy
from typing import Any, Final

HOOK_COMMAND: Final = "learn hook session-end"
HOOK_TIMEOUT_S: Final = 10
LOADS_COMMAND: Final = "learn hook instructions-loaded"
LOADS_TIMEOUT_S: Final = 10  # it took 0.14-0.39 s on the shared test machine; far more under load
# (event, command, timeout) of every hook learn installs.
HOOKS: Final = (("SessionEnd", HOOK_COMMAND, HOOK_TIMEOUT_S),
                ("InstructionsLoaded", LOADS_COMMAND, LOADS_TIMEOUT_S))


def has_hook(settings: dict[str, Any], event: str = "SessionEnd",
             command: str = HOOK_COMMAND) -> bool:
    groups = (settings.get("hooks") or {}).get(event) or []
    return any(
        isinstance(h, dict) and str(h.get("command", "")).startswith(command)
        for g in groups if isinstance(g, dict)
        for h in (g.get("hooks") or [])
    )


def with_hook(settings: dict[str, Any], event: str = "SessionEnd", command: str = HOOK_COMMAND,
              timeout: int = HOOK_TIMEOUT_S) -> dict[str, Any]:
    """`settings` with learn's hook for `event` added (unchanged when it is there already)."""
    if has_hook(settings, event, command):
        return settings
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("settings.json: \"hooks\" is not an object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ValueError(f"settings.json: \"hooks.{event}\" is not a list")
    groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
    return out


def with_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with every hook learn installs (the same object when all are there)."""
    out = settings
    for event, command, timeout in HOOKS:
        out = with_hook(out, event, command, timeout)
    return out
