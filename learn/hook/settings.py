"""The SessionEnd hook in Claude Code's settings.json, added without disturbing
anything else there (other hooks, permissions, the person's own SessionEnd
hooks). Pure functions over the parsed JSON; the command does the file I/O."""

from __future__ import annotations

import copy
from typing import Any, Final

HOOK_COMMAND: Final = "learn hook session-end"
HOOK_TIMEOUT_S: Final = 10


def has_hook(settings: dict[str, Any]) -> bool:
    groups = (settings.get("hooks") or {}).get("SessionEnd") or []
    return any(
        isinstance(h, dict) and str(h.get("command", "")).startswith(HOOK_COMMAND)
        for g in groups if isinstance(g, dict)
        for h in (g.get("hooks") or [])
    )


def with_hook(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with learn's SessionEnd hook added (unchanged when it is there already)."""
    if has_hook(settings):
        return settings
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("settings.json: \"hooks\" is not an object")
    groups = hooks.setdefault("SessionEnd", [])
    if not isinstance(groups, list):
        raise ValueError("settings.json: \"hooks.SessionEnd\" is not a list")
    groups.append({"hooks": [{"type": "command", "command": HOOK_COMMAND,
                              "timeout": HOOK_TIMEOUT_S}]})
    return out
