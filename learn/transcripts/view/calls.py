"""Tool calls as the view shows them: one short line each, and failure excerpts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from learn.secret_fields import secret_inputs

# Failed tool output is evidence for a fix, but a stack trace is mostly noise
# after the first screen; hoocode's TOOL_ERROR_CHARS.
FAILURE_EXCERPT_CHARS: Final = 1500
_SUMMARY_CHARS: Final = 200
_SUMMARY_VALUE_CHARS: Final = 60
_SHELLS: Final = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})
_WS_RE: Final = re.compile(r"\s+")

def summarize_call(name: str, tool_input: Mapping[str, Any]) -> str:
    """One short line: the command for a shell tool, the path for a file tool, else k=v."""
    if not isinstance(tool_input, Mapping):
        return ""
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        # Codex: ["bash", "-lc", "<script>"] is the script; anything else is argv.
        if len(command) >= 3 and command[0] in _SHELLS and command[1] in ("-lc", "-c"):
            command = command[2]
        else:
            command = " ".join(command)
    if isinstance(command, str) and command.strip():
        return _one_line(command, _SUMMARY_CHARS, whole_words=True)
    # `filePath`: OpenCode; `absolute_path`: Gemini CLI's read_file.
    for key in ("file_path", "notebook_path", "path", "filePath", "absolute_path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _one_line(value, _SUMMARY_CHARS)
    questions = tool_input.get("questions")
    if isinstance(questions, list):
        # AskUserQuestion: the question is the whole point of the call.
        asked = [q["question"] for q in questions
                 if isinstance(q, Mapping) and isinstance(q.get("question"), str)]
        if asked:
            return _one_line(" | ".join(asked), _SUMMARY_CHARS)
    parts: list[str] = []
    # A password a tool typed into a field, or passed under a key named for it, is
    # replaced here, where the line is made: nothing in `text=...` says what it is.
    secret = secret_inputs(tool_input)
    for key, value in tool_input.items():
        if isinstance(value, bool | int | float):
            parts.append(f"{key}={value}")
        elif isinstance(value, str) and key in secret:
            parts.append(f"{key}=[REDACTED:{secret[key]}]")
        elif isinstance(value, str):
            parts.append(f"{key}={_one_line(value, _SUMMARY_VALUE_CHARS, whole_words=True)}")
        # Objects and arrays are dropped: they are payloads, not a description.
    return _one_line(" ".join(parts), _SUMMARY_CHARS, whole_words=True)


# The view cuts a call's line and a failure's output before anything redacts them (the
# stored view, the model's input: learn.render), and a redaction rule knows a secret
# whole: a cut inside `postgresql://deploy:<password>@host` or a `ghp_` token left a
# piece no rule recognises, sent and stored in clear (a privacy audit reproduced both).
# So a command, a value and an output are cut only between words: a word is all there,
# for the redactor, or not at all. (A path is cut as before: pathscope reads its folder.)


def _one_line(text: str, limit: int, *, whole_words: bool = False) -> str:
    flat = _WS_RE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if whole_words and flat[limit - 1] != " ":
        cut = cut[: cut.rfind(" ") + 1].rstrip()  # "" when the first word is too long
    return cut + "…"


def excerpt(text: str) -> str:
    """A failure's output, cut between words (see above) past FAILURE_EXCERPT_CHARS."""
    text = text.strip()
    if len(text) <= FAILURE_EXCERPT_CHARS:
        return text
    cut = text[: FAILURE_EXCERPT_CHARS - 1]
    if not text[FAILURE_EXCERPT_CHARS - 1].isspace():
        cut = cut[: max((cut.rfind(c) for c in " \t\n\r"), default=-1) + 1]
    return cut.rstrip() + "…"


