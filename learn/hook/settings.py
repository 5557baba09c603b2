"""learn's hooks in Claude Code's settings.json, added without disturbing anything else
there (other hooks, permissions, the person's own hooks for the same events). Pure
functions over the parsed JSON; the command does the file I/O.

Two hooks: SessionEnd mines an ended session in the background; InstructionsLoaded
records which instruction file a session loaded, and why (learn.transcripts.
instructions), so outcomes count a rule only where it reached the agent.

Each calls learn by absolute path (this interpreter, `-m learn`): Claude Code runs
hooks with its own PATH, which often lacks the virtualenv learn lives in, and a bare
`learn` there failed where nobody could see it.
"""

from __future__ import annotations

import copy
import shlex
import sys
from typing import Any, Final

HOOK_ARGS: Final = "hook session-end"
LOADS_ARGS: Final = "hook instructions-loaded"
HOOK_TIMEOUT_S: Final = 10
LOADS_TIMEOUT_S: Final = 10  # it took 0.14-0.39 s on the shared test machine; far more under load
# (event, learn's arguments, timeout) of every hook learn installs.
HOOKS: Final = (("SessionEnd", HOOK_ARGS, HOOK_TIMEOUT_S),
                ("InstructionsLoaded", LOADS_ARGS, LOADS_TIMEOUT_S))
# The plugin's script (hooks/learn-hook), whatever the hook.
_PLUGIN_SCRIPT: Final = "learn-hook"


def hook_command(python: str | None = None, args: str = HOOK_ARGS) -> str:
    """A hook's command line: this learn, by absolute path."""
    return f"{shlex.quote(python or sys.executable)} -m learn {args}"


def is_learn_hook(command: str, args: str = HOOK_ARGS) -> bool:
    """Whether `command` is learn's hook for `args` in any of its forms: `learn hook
    session-end`, `/abs/python -m learn hook session-end`, the plugin's script."""
    if f"learn {args}" in command:
        return True
    return _PLUGIN_SCRIPT in command and command.rstrip().endswith(args.split()[-1])


def is_bare(command: str, args: str = HOOK_ARGS) -> bool:
    """A hook that needs `learn` on Claude Code's PATH (how older versions installed it)."""
    return command.strip().startswith(f"learn {args}")


def learn_hooks(settings: dict[str, Any], event: str = "SessionEnd",
                args: str = HOOK_ARGS) -> list[dict[str, Any]]:
    """learn's hook entries for `event` in `settings`."""
    groups = (settings.get("hooks") or {}).get(event) or []
    return [
        h for g in groups if isinstance(g, dict)
        for h in (g.get("hooks") or [])
        if isinstance(h, dict) and is_learn_hook(str(h.get("command", "")), args)
    ]


def has_hook(settings: dict[str, Any], event: str = "SessionEnd", args: str = HOOK_ARGS) -> bool:
    return bool(learn_hooks(settings, event, args))


def with_hook(settings: dict[str, Any], command: str | None = None, *, event: str = "SessionEnd",
              args: str = HOOK_ARGS, timeout: int = HOOK_TIMEOUT_S) -> dict[str, Any]:
    """`settings` with learn's hook for `event` running `command` (default: this learn by
    absolute path); unchanged (the same object) when it is there already. A learn hook
    running something else (a bare `learn`, another venv) is pointed at `command`."""
    command = command or hook_command(args=args)
    found = learn_hooks(settings, event, args)
    if found and all(h.get("command") == command for h in found):
        return settings
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("settings.json: \"hooks\" is not an object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ValueError(f"settings.json: \"hooks.{event}\" is not a list")
    if found:
        for h in learn_hooks(out, event, args):
            h["command"] = command
        return out
    groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
    return out


def with_hooks(settings: dict[str, Any], python: str | None = None) -> dict[str, Any]:
    """`settings` with every hook learn installs (the same object when all are there)."""
    out = settings
    for event, args, timeout in HOOKS:
        out = with_hook(out, hook_command(python, args), event=event, args=args, timeout=timeout)
    return out
