"""Codex's code mode: the commands and patches a script runs, read as the calls they are.

From 0.144 (`codex exec` and TUI rollouts of 0.144-0.171 in public repositories' fixtures
and probe notes, and readers written against them) a Codex turn may run its tools from
JavaScript: one `custom_tool_call` named `exec` whose `input` is a script calling
`tools.exec_command({cmd: "make check", workdir: ...})` or `tools.apply_patch("*** Begin
Patch ...")`, once or several times, and one `custom_tool_call_output` whose `output` is
a list of text items, the first a status header (`Script completed` / `Script failed`,
`Wall time 0.3 seconds`, `Output:`), then what the script printed, or `Script error:`
and the error.

Lowered as any other custom call, the call's only input was the script, so no command
was seen to run (its summary read `input=const r = await tools.exec…`, and a fix the
person asked for was checked against no command) and no file was seen edited; the output
list was written out as its JSON, and a failed script, exit code or none, was read as a
success; a command or a patch the person declined inside a script was a failure.

What is read is only what the script says exactly: a string literal, or a name bound
once to one (`const cmd = "npm test"; tools.exec_command({cmd})`, `const patch = "...";
tools.apply_patch(patch)`). A command computed at run time (an interpolated template, a
helper's parameter, a loop's variable, a joined array) cannot be known from the script:
it is not guessed. The call keeps the commands that were read; a script none of whose
commands or patches can be read stays the script it is (`input`), as any other custom
call.
"""

from __future__ import annotations

import re
from typing import Any, Final

from learn.lazy import lazy_pattern
from learn.transcripts.codex.script_calls import PATCH_TOOL, script_calls

__all__ = ["code_mode_call", "code_mode_output", "code_mode_read", "script_refusal"]

CODE_MODE_TOOL: Final = "exec"
# The status item a script's output opens with.
_STATUS_RE: Final = lazy_pattern(
    r"\AScript (completed|failed|terminated|timed out)\b[^\n]*\n(?:[^\n]*\n)*?Output:\n?")
# A result the script printed whole (`text(JSON.stringify(r))`) carries the exit code.
_EXIT_CODE_RE: Final = lazy_pattern(r'"exit_code"\s*:\s*(-?\d+)')


def code_mode_call(name: str, script: object) -> dict[str, Any] | None:
    """The input a code-mode call is read with (`code_mode_read`), or None."""
    read = code_mode_read(name, script)
    return None if read is None else read[1]


def code_mode_read(name: str, script: object) -> tuple[str, dict[str, Any]] | None:
    """The name and input a code-mode call is read with, or None for any other custom
    call and for a script none of whose commands or patches is known exactly.

    Its commands are `cmd` (several joined with `; `, in the order written; one that is
    not known exactly is left out) with the first one's `workdir`. A script that applies
    a patch is an `apply_patch` call whose `input` is the patch (several joined by a
    newline), as outside code mode, with the commands it also runs beside it; any other
    keeps the script as `input`."""
    if name != CODE_MODE_TOOL or not isinstance(script, str) or (
            "exec_command" not in script and PATCH_TOOL not in script):
        return None
    calls = script_calls(script)
    commands = [c.value for c in calls if c.tool == "exec_command" and c.value]
    patches = [c.value for c in calls if c.tool == PATCH_TOOL and c.value]
    if not commands and not patches:
        return None
    out: dict[str, Any] = {}
    if commands:
        out["cmd"] = "; ".join(commands)
        workdir = next((c.workdir for c in calls if c.tool == "exec_command" and c.value), None)
        if workdir:
            out["workdir"] = workdir
    if patches:
        out["input"] = "\n".join(patches)
        return PATCH_TOOL, out
    out["input"] = script
    return CODE_MODE_TOOL, out


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


# --- A call refused inside a script ----------------------------------------------------
#
# A command or a patch the script asked for and that was refused ends the script with the
# refusal as its error (0.155-0.171, rollouts and probe notes): the patch tool's own words,
# as outside code mode ("Script error:\npatch rejected: writing is blocked by read-only
# sandbox; rejected by user approval settings"), and for a command the exec runtime's
# error around them: "Script error:\nexec_command failed for `/bin/zsh -lc \"pnpm vitest
# run\"`: CreateProcess { message: \"Rejected(\\\"rejected by user\\\")\" }" (also without
# `for `...``), the reason Rust-escaped twice. "rejected by user" is the person's decline;
# a policy's, the sandbox's or the reviewer's reason is a rule's (`rm -f x` rejected: ...,
# "This action was rejected due to unacceptable risk"); anything else (a bare "Rejected",
# which `codex exec` with no one at the prompt also writes, "approval request failed", a
# process that could not start) stays a failure.
_SCRIPT_ERROR: Final = "Script error:\n"
_NESTED_REFUSAL_RE: Final = lazy_pattern(
    r'exec_command failed(?: for `[\s\S]*`)?: CreateProcess \{ message: "([\s\S]*)" \}\s*\Z')
_REJECTED_RE: Final = lazy_pattern(r"\ARejected\(\"([\s\S]*)\"\)\Z")
_RUST_ESCAPE_RE: Final = lazy_pattern(r"\\(?:u\{([0-9A-Fa-f]{1,6})\}|([\s\S]))")
_RUST_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}
# The exec runtime's own reason for a decline (codex-rs ToolError::Rejected).
DECLINED_BY_USER: Final = "rejected by user"


def _rust_unescaped(text: str) -> str:
    """A string Rust's `{:?}` wrote, as it was."""
    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return chr(min(int(m.group(1), 16), 0x10FFFF))
        return _RUST_ESCAPES.get(m.group(2), m.group(2))

    return _RUST_ESCAPE_RE.sub(one, text)


def script_refusal(body: str) -> str | None:
    """What refused the call a failed script made, from its output's `Script error:`:
    the refusal's own words ("patch rejected by user", "rejected by user", "patch
    rejected: ...", "`rm -f x` rejected: ..."), or None when the script ended on any
    other error (or printed the words itself: only the error the runtime appends, at
    the output's end, is read)."""
    at = body.rfind(_SCRIPT_ERROR)
    if at < 0 or (at and body[at - 1] != "\n"):
        return None
    error = body[at + len(_SCRIPT_ERROR):].strip()
    nested = _NESTED_REFUSAL_RE.match(error)
    if nested is None:
        return error
    rejected = _REJECTED_RE.match(_rust_unescaped(nested.group(1)))
    return _rust_unescaped(rejected.group(1)) if rejected is not None else None
