"""Codex's code mode: shell commands run from a script, read as the commands they are.

From 0.156 (format-drift audit, late 2026: `codex exec` and TUI rollouts of 0.156.1 in
public repositories' fixtures and probe notes, and readers written against them) a
Codex turn may run its tools from JavaScript: one `custom_tool_call` named `exec`
whose `input` is a script calling `tools.exec_command({cmd: "make check", workdir:
...})`, once or several times, and one `custom_tool_call_output` whose `output` is a
list of text items, the first a status header (`Script completed` / `Script failed`,
`Wall time 0.3 seconds`, `Output:`), then what the script printed, or `Script
error:` and the error.

Lowered as any other custom call, the call's only input was the script, so no command
was seen to run (its summary read `input=const r = await tools.exec…`, and a fix the
person asked for was checked against no command); the output list was written out as
its JSON, and a failed script, exit code or none, was read as a success.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

__all__ = ["code_mode_call", "code_mode_output"]

CODE_MODE_TOOL: Final = "exec"

# `cmd:` (or `"cmd":`) then a string literal, inside a `tools.exec_command({...})` call.
_CALL_RE: Final = re.compile(r"tools\.exec_command\(\s*\{")
_CMD_RE: Final = re.compile(
    r"""["']?cmd["']?\s*:\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)""", re.S)
_WORKDIR_RE: Final = re.compile(r"""["']?workdir["']?\s*:\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
# How far past a call's opening its arguments are looked for: a command spelled out
# inline fits; one built from variables is not read (it is not a literal).
_ARGS_SPAN: Final = 4000
# The status item a script's output opens with.
_STATUS_RE: Final = re.compile(
    r"\AScript (completed|failed|terminated|timed out)\b[^\n]*\n(?:[^\n]*\n)*?Output:\n?")
# A result the script printed whole (`text(JSON.stringify(r))`) carries the exit code.
_EXIT_CODE_RE: Final = re.compile(r'"exit_code"\s*:\s*(-?\d+)')


def _literal(token: str) -> str:
    """A JavaScript string literal's value: double-quoted as JSON, single-quoted with its
    escapes read the same way, a template literal as written."""
    body = token[1:-1]
    if token[0] == "`":
        return body
    if token[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    try:
        value = msgspec.json.decode(f'"{body}"'.encode())
    except msgspec.DecodeError:
        return body
    return value if isinstance(value, str) else body


def code_mode_call(name: str, script: object) -> dict[str, Any] | None:
    """The input a code-mode call is read with: its commands as `cmd` (several joined
    with `; `), the first one's `workdir`, and the script as `input`; None when `script`
    runs no literal `exec_command` (any other custom call, or one built from variables)."""
    if name != CODE_MODE_TOOL or not isinstance(script, str) or "exec_command" not in script:
        return None
    commands: list[str] = []
    workdir: str | None = None
    for call in _CALL_RE.finditer(script):
        args = script[call.end():call.end() + _ARGS_SPAN]
        cmd = _CMD_RE.search(args)
        if cmd is None:
            continue
        commands.append(_literal(cmd.group(1)))
        if workdir is None:
            found = _WORKDIR_RE.search(args)
            workdir = _literal(found.group(1)) if found else None
    if not commands:
        return None
    out: dict[str, Any] = {"cmd": "; ".join(commands), "input": script}
    if workdir:
        out["workdir"] = workdir
    return out


def code_mode_output(raw: object) -> tuple[str, bool] | None:
    """A code-mode output list as (what the script printed, whether it failed), or None
    for any other output. Failed: the status says so, or the printed result's exit code
    is not 0."""
    if isinstance(raw, str):
        texts = [raw]
    elif isinstance(raw, list):
        texts = [item["text"] for item in raw
                 if isinstance(item, dict) and isinstance(item.get("text"), str)]
    else:
        return None
    status = _STATUS_RE.match(texts[0]) if texts else None
    if status is None:
        return None
    body = "\n".join(t for t in (texts[0][status.end():], *texts[1:]) if t)
    if status.group(1) != "completed":
        return body, True
    code = _EXIT_CODE_RE.search(body[:2000])
    return body, code is not None and int(code.group(1)) != 0
