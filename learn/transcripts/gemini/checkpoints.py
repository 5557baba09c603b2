"""Shell-mode commands a Gemini CLI project's checkpoints name: the second witness, after
`shell_history`, that a `logs.json` entry was a `!cmd` and not a prompt.

`logs.json` gives a shell-mode line no mark of its own: every build logs the trimmed
input through one call (`useGeminiStream`: `logger.logMessage(MessageSenderType.USER,
trimmedQuery)`, before it looks at the mode; `MessageSenderType` has only "user"), the
`!` that switched the mode on is not in the input, and an entry holds only
`{sessionId, messageId, timestamp, type, message}`. `shell_history` names the last 100
commands; an older one is read as typed unless something else names it.

What else does: when a shell-mode command finishes, the client puts it in the model's
history as a user turn of its own (`shellCommandProcessor.ts`:
`addShellCommandToGeminiHistory`), "I ran the following shell command:\\n```sh\\n<the
command as logged>\\n```\\n\\nThis produced the following result:...", and its UI
history item is `{type: "user_shell", text: <the command>}`. Both are kept beside the log
by what saves a history: `/chat save <tag>` (`checkpoint-<tag>.json`, or `checkpoint.json`:
`Content[]`, later `{history, authType}`) and, with checkpointing on, every file-changing
tool call (`checkpoints/*.json`: `{history, clientHistory, toolCall, ...}`). A command
named there was run in shell mode in the project. Neither names a session, as
`shell_history` does not: a command is a shell line in every log session of the folder.
A command no save came after stays typed; nothing else in the folder tells it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import msgspec

from learn.transcripts.mend import decoded

__all__ = ["checkpoint_shell_commands"]

SHELL_TURN_HEAD: Final = "I ran the following shell command:\n```sh\n"
SHELL_TURN_TAIL: Final = "\n```\n\nThis produced the following result:"
_ANY = msgspec.json.Decoder()
# A saved history holds every output the model saw (each cut at 10,000 characters); a file
# past this is no checkpoint of a conversation.
_MAX_BYTES: Final = 64 << 20
_MAX_FILES: Final = 500  # checkpointing writes one per file-changing call: the newest kept
_MAX_DEPTH: Final = 8  # {clientHistory: [{parts: [{text}]}]}: four levels deep; no further

_CACHE: dict[str, tuple[tuple[tuple[str, int, int], ...], frozenset[str]]] = {}


def _files(folder: Path) -> list[Path]:
    found: list[tuple[float, Path]] = []
    for where, pattern in ((folder, "checkpoint*.json"), (folder / "checkpoints", "*.json")):
        try:
            found += [(p.stat().st_mtime, p) for p in where.glob(pattern) if p.is_file()]
        except OSError:
            continue
    found.sort(key=lambda f: (-f[0], str(f[1])))
    return [p for _, p in found[:_MAX_FILES]]


def _commands(value: Any, out: set[str], depth: int = 0) -> None:
    """The shell-mode commands a saved history names, wherever in it they are."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value:
            _commands(item, out, depth + 1)
    elif isinstance(value, dict):
        text = value.get("text")
        if value.get("type") == "user_shell" and isinstance(text, str):
            out.add(text.strip())
        elif isinstance(text, str) and text.startswith(SHELL_TURN_HEAD):
            command, tail, _ = text[len(SHELL_TURN_HEAD):].partition(SHELL_TURN_TAIL)
            if tail:
                out.add(command.strip())
        for key in ("history", "clientHistory", "parts"):
            if key in value:
                _commands(value[key], out, depth + 1)


def checkpoint_shell_commands(folder: Path) -> frozenset[str]:
    """Every shell-mode command the checkpoints of a project folder name (stripped)."""
    files = _files(folder)
    state: list[tuple[str, int, int]] = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        state.append((str(path), st.st_size, st.st_mtime_ns))
    key = tuple(state)
    got = _CACHE.get(str(folder))
    if got is not None and got[0] == key:
        return got[1]
    out: set[str] = set()
    for name, size, _ in key:
        if size > _MAX_BYTES:
            continue
        try:
            value = decoded(_ANY.decode, Path(name).read_bytes())  # transcripts.mend
        except (OSError, msgspec.DecodeError, RecursionError):
            continue
        _commands(value, out)
    out.discard("")
    commands = frozenset(out)
    _CACHE[str(folder)] = (key, commands)
    return commands
