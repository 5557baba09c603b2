"""How learn is started by what it installs to run later or elsewhere: its hooks (the
check, SessionEnd, InstructionsLoaded), the scheduled digest, the hook's worker.

Each runs this interpreter by absolute path with `-m`: Claude Code runs hooks with its
own PATH, which often lacks the virtualenv learn lives in. But `python -m` puts the
current folder first on sys.path, and Claude Code and Codex run hooks in the session's
folder, cron and systemd in $HOME: a repository's `learn.py` or `learn/guard/__main__.py`
ran instead of learn (an audit reproduced it: the repository's code at every tool call,
the check's refusal silently gone). `-P` (Python 3.11+) leaves that folder off sys.path
and nothing else; `-I` would also drop the user's site-packages and PYTHONPATH, where
`pip install --user` puts learn.

A Claude Code hook's `command` alone is a line for a shell: bash, or on Windows Git
Bash, and PowerShell where Git Bash is absent (Claude Code 2.x runs without it, "Git
Bash not found"). PowerShell cannot run the POSIX line learn wrote there (`'C:\\Users\\Jo
Smith\\...\\python.exe' -P -m learn hook session-end`: a quoted string followed by
arguments is a parse error), so every learn hook, the check too, failed without a word.
Since Claude Code 2.1.139 a hook may carry `args` (its settings schema: "`command` is
resolved as an executable and spawned directly with these arguments, no shell"): on
Windows learn writes that exec form, which no shell parses; elsewhere the shell line,
as before, so no settings file changes under anybody who upgrades learn.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from typing import Any


def learn_argv(module: str = "learn", *args: str, python: str | None = None) -> list[str]:
    """The argv that runs `module` of learn (`learn`, `learn.guard`) with `args`."""
    return [python or sys.executable, "-P", "-m", module, *args]


def learn_line(module: str = "learn", *args: str, python: str | None = None) -> str:
    """learn_argv as one shell command line (a hook's `command`)."""
    return shlex.join(learn_argv(module, *args, python=python))


def older_line(module: str = "learn", *args: str, python: str | None = None) -> str:
    """The same command as learn wrote it before `-P`: still learn's own, so a re-install
    or a removal finds it (and replaces it) rather than adding a second one."""
    return shlex.join([python or sys.executable, "-m", module, *args])


def exec_form_hooks() -> bool:
    """Whether learn writes its Claude Code hooks in exec form (`command` and `args`, no
    shell): on Windows, where the shell may be PowerShell. Tests replace this."""
    return os.name == "nt"


def hook_fields(module: str = "learn", *args: str, python: str | None = None,
                exec_form: bool | None = None) -> dict[str, Any]:
    """The `command` (and in exec form `args`) of a hook running learn's `module` with
    `args`: exec form on Windows (exec_form_hooks), the shell line elsewhere."""
    argv = learn_argv(module, *args, python=python)
    if exec_form_hooks() if exec_form is None else exec_form:
        return {"command": argv[0], "args": argv[1:]}
    return {"command": shlex.join(argv)}


def exec_argv(hook: Mapping[str, Any]) -> list[str] | None:
    """An exec-form hook's whole argv (`command`, then `args`); None when the hook is in
    shell form (no `args`) or its `command` or any of its `args` is not a string."""
    command, args = hook.get("command"), hook.get("args")
    if not isinstance(command, str) or not isinstance(args, list) \
            or not all(isinstance(a, str) for a in args):
        return None
    return [command, *args]


def has_fields(hook: Mapping[str, Any], fields: Mapping[str, Any]) -> bool:
    """Whether `hook` runs exactly what `fields` (hook_fields) says, in the same form: a
    shell line with `args` beside it is another program (the line, resolved as a file)."""
    return hook.get("command") == fields["command"] and ("args" in hook) == ("args" in fields) \
        and hook.get("args") == fields.get("args")


def put_fields(hook: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """Point learn's own `hook` at `fields` in place: `args` right after `command` in exec
    form, none in shell form; the entry's other keys (timeout, ...) stay as they were."""
    out: dict[str, Any] = {}
    for key, value in hook.items():
        if key == "args":
            continue
        out[key] = value
        if key == "command":
            out.update({k: list(v) if k == "args" else v for k, v in fields.items()})
    hook.clear()
    hook.update(out)
