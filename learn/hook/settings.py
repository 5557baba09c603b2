"""learn's hooks in Claude Code's settings.json, added without disturbing anything else
there (other hooks, permissions, the person's own hooks for the same events). Pure
functions over the parsed JSON; the command does the file I/O.

Two hooks: SessionEnd mines an ended session in the background; InstructionsLoaded
records which instruction file a session loaded, and why (learn.transcripts.
instructions), so outcomes count a rule only where it reached the agent.

Each calls learn by absolute path (this interpreter, `-P -m learn`): Claude Code runs
hooks with its own PATH, which often lacks the virtualenv learn lives in, and a bare
`learn` there failed where nobody could see it; `-P` keeps the session's folder off
sys.path (learn.invocation); on Windows in exec form (`command` the interpreter,
`args` the rest: no shell, which may be PowerShell there, learn.invocation). Only a hook
whose whole command is one of learn's own forms is learn's to rewrite; a person's own
command that runs learn is theirs.
"""

from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Mapping
from typing import Any, Final

from learn.invocation import exec_argv, has_fields, hook_fields, learn_line, put_fields
from learn.projects.flavour import is_windows_path

HOOK_ARGS: Final = "hook session-end"
LOADS_ARGS: Final = "hook instructions-loaded"
HOOK_TIMEOUT_S: Final = 10
LOADS_TIMEOUT_S: Final = 10  # it took 0.14-0.39 s on the shared test machine; far more under load
# (event, learn's arguments, timeout) of every hook learn installs.
HOOKS: Final = (("SessionEnd", HOOK_ARGS, HOOK_TIMEOUT_S),
                ("InstructionsLoaded", LOADS_ARGS, LOADS_TIMEOUT_S))
# The plugin's script (hooks/learn-hook), whatever the hook.
_PLUGIN_SCRIPT: Final = "learn-hook"
# `C:` names the drive's current folder, not a path: no interpreter learn writes.
_DRIVE_ONLY: Final = re.compile(r"[A-Za-z]:")


def hook_command(python: str | None = None, args: str = HOOK_ARGS) -> str:
    """A hook's command line: this learn, by absolute path, never the session folder's
    `learn` (`-P`, learn.invocation)."""
    return learn_line("learn", *args.split(), python=python)


def hook_entry(python: str | None = None, args: str = HOOK_ARGS, *,
               exec_form: bool | None = None) -> dict[str, Any]:
    """A hook's `command` (and on Windows `args`, exec form): learn.invocation.hook_fields."""
    return hook_fields("learn", *args.split(), python=python, exec_form=exec_form)


def runs_learn_hook(command: str, args: str = HOOK_ARGS) -> bool:
    """Whether `command` runs learn's hook for `args` at all: learn's own forms and any
    command of the person's that calls it (`~/bin/learn hook session-end; notify-send`).
    What doctor counts as installed, and what keeps a second one from being added."""
    if f"learn {args}" in command:
        return True
    return _PLUGIN_SCRIPT in command and command.rstrip().endswith(args.split()[-1])


def is_learn_hook(command: str, args: str = HOOK_ARGS) -> bool:
    """Whether `command` is, whole, one of the forms learn writes for `args`: `learn hook
    session-end` (older learns), `/abs/python [-P] -m learn hook session-end` (any
    interpreter: another virtualenv's is repointed), the plugin's script. Only these are
    learn's to rewrite: a person's own command that mentions learn (an option of theirs,
    a `; notify-send` after it) was rewritten whole to learn's plain form before."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    wanted = args.split()
    if words == ["learn", *wanted]:
        return True
    if len(words) == 3 and words[0] == "sh" and words[1].endswith(f"/hooks/{_PLUGIN_SCRIPT}") \
            and words[2] == wanted[-1]:
        return True
    rest = words[2:] if words[1:2] == ["-P"] else words[1:]
    # An interpreter by absolute path, POSIX or Windows (`C:\\...\\python.exe`, as
    # shlex.join writes it there): learn writes no other.
    absolute = bool(words) and (words[0].startswith("/") or is_windows_path(words[0]))
    return absolute and rest == ["-m", "learn", *wanted]


def _absolute(path: str) -> bool:
    return (path.startswith("/") or is_windows_path(path)) and not _DRIVE_ONLY.fullmatch(path) \
        and "\x00" not in path


def is_learn_entry(hook: Mapping[str, Any], args: str = HOOK_ARGS) -> bool:
    """Whether the hook entry `hook` is, whole, one of learn's forms for `args`: in shell
    form (no `args`) is_learn_hook; in exec form an interpreter by absolute path with
    exactly `-P -m learn <args>` (learn wrote no other exec form). `args` that are not all
    strings, or a `command` that is not an absolute path, are the person's."""
    if "args" not in hook:
        command = hook.get("command")
        return isinstance(command, str) and is_learn_hook(command, args)
    argv = exec_argv(hook)
    return argv is not None and _absolute(argv[0]) \
        and argv[1:] == ["-P", "-m", "learn", *args.split()]


def runs_learn_entry(hook: Mapping[str, Any], args: str = HOOK_ARGS) -> bool:
    """runs_learn_hook for a hook entry in either form (exec form: its argv, spaced)."""
    if "args" not in hook:
        return runs_learn_hook(str(hook.get("command", "")), args)
    argv = exec_argv(hook)
    return argv is not None and runs_learn_hook(" ".join(argv), args)


def in_shell_form(hook: Mapping[str, Any], args: str = HOOK_ARGS) -> bool:
    """A hook of learn's own form that runs through a shell: on Windows without Git Bash
    that shell is PowerShell, which cannot run it (learn.invocation)."""
    return "args" not in hook and is_learn_entry(hook, args)


def starts_in_folder(command: str, args: str = HOOK_ARGS) -> bool:
    """A hook of learn's own form written before `-P` (`/abs/python -m learn hook ...`):
    Python puts the session's folder first on sys.path, so a repository's `learn.py`
    runs in learn's place (learn.invocation). learn never rewrites it unasked; doctor
    says so."""
    if not is_learn_hook(command, args):
        return False
    try:
        return shlex.split(command)[1:2] == ["-m"]
    except ValueError:
        return False


def is_bare(command: str, args: str = HOOK_ARGS) -> bool:
    """A hook that needs `learn` on Claude Code's PATH (how older versions installed it)."""
    return command.strip().startswith(f"learn {args}")


def learn_hooks(settings: dict[str, Any], event: str = "SessionEnd", args: str = HOOK_ARGS,
                *, own: bool = False) -> list[dict[str, Any]]:
    """The hook entries for `event` in `settings` that run learn's hook (`own`: only those
    in one of learn's own forms, is_learn_hook)."""
    groups = (settings.get("hooks") or {}).get(event) or []
    test = is_learn_entry if own else runs_learn_entry
    return [
        h for g in groups if isinstance(g, dict)
        for h in (g.get("hooks") or [])
        if isinstance(h, dict) and test(h, args)
    ]


def has_hook(settings: dict[str, Any], event: str = "SessionEnd", args: str = HOOK_ARGS) -> bool:
    return bool(learn_hooks(settings, event, args))


def with_hook(settings: dict[str, Any], fields: dict[str, Any] | None = None, *,
              event: str = "SessionEnd", args: str = HOOK_ARGS,
              timeout: int = HOOK_TIMEOUT_S) -> dict[str, Any]:
    """`settings` with learn's hook for `event` running `fields` (hook_entry; default: this
    learn by absolute path); unchanged (the same object) when it is there already. A hook
    in one of learn's own forms running something else (a bare `learn`, another venv, an
    older learn without -P, the shell form on Windows) is pointed at `fields`; a command
    of the person's own that runs learn's hook is left as it is and none is added beside
    it (persons_own says so)."""
    fields = fields or hook_entry(args=args)
    found = learn_hooks(settings, event, args, own=True)
    if found and all(has_fields(h, fields) for h in found):
        return settings
    if not found and learn_hooks(settings, event, args):
        return settings
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("settings.json: \"hooks\" is not an object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ValueError(f"settings.json: \"hooks.{event}\" is not a list")
    if found:
        for h in learn_hooks(out, event, args, own=True):
            put_fields(h, fields)
        return out
    groups.append({"hooks": [{"type": "command", **fields, "timeout": timeout}]})
    return out


def with_hooks(settings: dict[str, Any], python: str | None = None) -> dict[str, Any]:
    """`settings` with every hook learn installs (the same object when all are there)."""
    out = settings
    for event, args, timeout in HOOKS:
        out = with_hook(out, hook_entry(python, args), event=event, args=args, timeout=timeout)
    return out


def persons_own(settings: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(event, learn's arguments, command) of each hook learn leaves alone because a
    command of the person's own already runs learn's hook for that event (with_hook adds
    none beside it)."""
    return [(event, args, _shown(h))
            for event, args, _ in HOOKS if not learn_hooks(settings, event, args, own=True)
            for h in learn_hooks(settings, event, args)]


def _shown(hook: Mapping[str, Any]) -> str:
    argv = exec_argv(hook) if "args" in hook else None
    return shlex.join(argv) if argv is not None else str(hook.get("command", ""))
