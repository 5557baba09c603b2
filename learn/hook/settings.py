"""The SessionEnd hook in Claude Code's settings.json, added without disturbing
anything else there (other hooks, permissions, the person's own SessionEnd
hooks). Pure functions over the parsed JSON; the command does the file I/O.

The hook calls learn by absolute path (this interpreter, `-m learn`): Claude
Code runs hooks with its own PATH, which often lacks the virtualenv learn lives
in, and a bare `learn` there failed where nobody could see it.
"""

from __future__ import annotations

import copy
import shlex
import sys
from typing import Any, Final

HOOK_ARGS: Final = "hook session-end"
# What every form of learn's hook command contains: `learn hook session-end`,
# `/abs/python -m learn hook session-end`, the plugin's script.
_MARKS: Final = (f"learn {HOOK_ARGS}", "learn-session-end")
HOOK_TIMEOUT_S: Final = 10


def hook_command(python: str | None = None) -> str:
    """The hook's command line: this learn, by absolute path."""
    return f"{shlex.quote(python or sys.executable)} -m learn {HOOK_ARGS}"


def is_learn_hook(command: str) -> bool:
    return any(mark in command for mark in _MARKS)


def is_bare(command: str) -> bool:
    """A hook that needs `learn` on Claude Code's PATH (how older versions installed it)."""
    return command.strip().startswith(f"learn {HOOK_ARGS}")


def learn_hooks(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """learn's SessionEnd hook entries in `settings`."""
    groups = (settings.get("hooks") or {}).get("SessionEnd") or []
    return [
        h for g in groups if isinstance(g, dict)
        for h in (g.get("hooks") or [])
        if isinstance(h, dict) and is_learn_hook(str(h.get("command", "")))
    ]


def has_hook(settings: dict[str, Any]) -> bool:
    return bool(learn_hooks(settings))


def with_hook(settings: dict[str, Any], command: str | None = None) -> dict[str, Any]:
    """`settings` with learn's SessionEnd hook running `command` (default: this learn by
    absolute path); unchanged (the same object) when it is there already. A learn hook
    running something else (a bare `learn`, another venv) is pointed at `command`."""
    command = command or hook_command()
    found = learn_hooks(settings)
    if found and all(h.get("command") == command for h in found):
        return settings
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("settings.json: \"hooks\" is not an object")
    groups = hooks.setdefault("SessionEnd", [])
    if not isinstance(groups, list):
        raise ValueError("settings.json: \"hooks.SessionEnd\" is not a list")
    if found:
        for h in learn_hooks(out):
            h["command"] = command
        return out
    groups.append({"hooks": [{"type": "command", "command": command,
                              "timeout": HOOK_TIMEOUT_S}]})
    return out
