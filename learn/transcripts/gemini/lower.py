"""A Gemini CLI conversation as events: typed turns, replies, tool calls and their results.

What the person typed is a `user` message's `displayContent` when the client
kept one (newer builds: `content` may hold an expansion), else its `content`,
cut before the `--- Content from referenced files ---` block the client appends
for `@file` references and without a `<session_context>` block. A custom command
(`displayContent` "/name args" beside an expanded `content`) is lowered as the
event model's slash-command record, so its arguments are typed and its body is not.

A shell-mode command (`!cmd` at the prompt) is a `user` message the client wrote
itself, "I ran the following shell command: ... This produced the following result:
...": lowered as Claude Code's `<bash-input>` / `<bash-stdout>` record, a shell line
and its output, neither said to the agent.

A `gemini` message's tool calls become tool uses, and each finished call a tool
result: `error` fails, `cancelled` is the person declining the call ("User denied
execution.", or no reason: older builds) or stopping it while it ran ("Operation
cancelled by user": an interrupted call, as Claude Code's). The note "Request
cancelled." is Esc while the model answered: an interrupt, unless it only follows a
cancelled call (the client writes it after those too). Other `info` / `warning` /
`error` messages are the client's notes, kept as bookkeeping. A subagent's file
(`kind: "subagent"`) is a sidechain throughout, like a Claude Code subagent transcript.

Every event gets a synthesized envelope (`lowering.Chain`) whose parent is the
message before it when it was written, so a rewound message sits on a dead
branch and the active branch is what the client still shows.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from learn.transcripts.blocks import ContentBlock, TextBlock, ToolResultBlock, ToolUseBlock
from learn.transcripts.claude.literals import AGENT_INJECTION_RE, INTERRUPT_MARKER
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.gemini.places import project_of_file
from learn.transcripts.gemini.record import Message, read_conversation
from learn.transcripts.lowering import (
    Chain,
    Lowered,
    declined,
    dropped,
    flatten,
    json_text,
    lazy,
)
from learn.transcripts.lowering import timestamp as parse_time
from learn.transcripts.models import AssistantEvent, UserEvent

__all__ = ["lower", "typed_of"]

REFERENCED_FILES = "--- Content from referenced files ---"
_SESSION_CONTEXT_RE = re.compile(r"<session_context>.*?</session_context>\s*", re.S)
_DONE = frozenset({"success", "error", "cancelled"})
# `useExecutionLifecycle.addShellCommandToGeminiHistory` (0.61; `shellCommandProcessor`
# before): the turn a `!cmd` adds, its command and output with `\\` and a backtick
# escaped by a backslash. Read as typed, the output was the person's words.
_SHELL_TURN_RE = re.compile(
    r"\AI ran the following shell command:\n```sh\n(?P<cmd>.*?)\n```\n\n"
    r"This produced the following result:\n```\n(?P<out>.*)\n```\s*\Z", re.S)
_SHELL_UNESCAPE_RE = re.compile(r"\\([\\`])")
# The note the client writes when Esc stops a turn (`useGeminiStream`), and the reasons a
# cancelled call's error gives (`CoreToolCallStatus.Cancelled`): Esc while it ran, and
# the person saying no at the approval prompt.
_REQUEST_CANCELLED = "Request cancelled."
_STOPPED_BY_USER = "Operation cancelled by user"
_INTERRUPTED_CALL = f"{INTERRUPT_MARKER} for tool use]"


def typed_of(record: dict[str, Any]) -> tuple[str, bool]:
    """(what the person typed in a `user` message, whether it names a custom command);
    a shell-mode turn is its `<bash-input>` record."""
    display = record.get("displayContent")
    content = flatten(record.get("content"))
    shown = flatten(display) if display is not None else ""
    if shown.strip():
        command = shown.lstrip().startswith("/") and shown.strip() != content.strip()
        return _clean(shown), command
    shell = shell_record(content.strip())
    if shell is not None:
        return shell, False
    return _clean(content), False


def shell_record(text: str) -> str | None:
    """A shell-mode turn as Claude Code's `<bash-input>` / `<bash-stdout>` record, or None."""
    if not text.startswith("I ran the following shell command:"):
        return None
    found = _SHELL_TURN_RE.match(text)
    if found is None:
        return None
    cmd, out = (_SHELL_UNESCAPE_RE.sub(r"\1", found[k]) for k in ("cmd", "out"))
    return f"<bash-input>{cmd}</bash-input><bash-stdout>{out}</bash-stdout>"


def _clean(text: str) -> str:
    cut = text.find(REFERENCED_FILES)
    if cut >= 0:
        text = text[:cut]
    return _SESSION_CONTEXT_RE.sub("", text).strip()


def _command_record(typed: str) -> str:
    """"/name args" as the event model's slash-command record (`view.typed.slash_command`)."""
    name, _, args = typed.strip().partition(" ")
    return f"<command-name>{name}</command-name><command-args>{args.strip()}</command-args>"


def lower(buf: bytes, *, path: Path | None = None, drop: FilterSpec | None = None) -> Lowered:
    conv = read_conversation(buf)
    chain = Chain(path)
    chain.session_id = str(conv.meta.get("sessionId") or "")
    # No record names a cwd: the project folder does, else the workspace list.
    dirs = conv.meta.get("directories")
    chain.cwd = project_of_file(path) if path is not None else None
    if chain.cwd is None and isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        chain.cwd = dirs[0]
    sidechain = conv.meta.get("kind") == "subagent"
    clock = parse_time(conv.meta.get("startTime"))
    events: list[Any] = [lazy("gemini.session", conv.meta)]
    skipped = dict(conv.skipped)
    # The entry a message's children hang from: a reply with tool calls is followed by
    # its results' entry, and the next message names the reply as its parent. Hung from
    # the reply, the results were a branch of their own, off the active one: a failed
    # call was no failure in the view (`learn show` said "failures 0").
    tails: dict[str, str] = {}
    stopped = False  # the last reply had a call cancelled: its note is no interrupt
    for msg in conv.messages:
        at = parse_time(msg.record.get("timestamp")) or clock
        if at is None:
            skipped["invalid"] = skipped.get("invalid", 0) + 1
            continue
        clock = at
        lowered = _message(chain, msg, at, sidechain, tails, stopped)
        stopped = _stops(msg.record, stopped)
        last = next((e.meta.uuid for e in reversed(lowered)
                     if isinstance(e, UserEvent | AssistantEvent)), None)
        if last is not None:
            tails[str(msg.record["id"])] = last
        for event in lowered:
            if not dropped(event, drop):
                events.append(event)
    return events, skipped


def _message(chain: Chain, msg: Message, at: datetime, sidechain: bool,
             tails: dict[str, str], stopped: bool = False) -> list[Any]:
    """One message's events; `stopped`: the last reply since the last typed turn had a
    call cancelled, whose "Request cancelled." note is no interrupt of its own."""
    record, mid = msg.record, str(msg.record["id"])
    kind = record.get("type")
    parent = (tails.get(msg.parent) or chain.uid(msg.parent)) if msg.parent else None
    if kind == "user":
        typed, command = typed_of(record)
        meta = chain.meta(mid, at, parent=parent, sidechain=sidechain,
                          is_meta=not msg.appended or not typed)
        text = _command_record(typed) if command else typed
        return [UserEvent(meta=meta, text=text, blocks=(TextBlock(text),) if text else (),
                          is_agent_injected=AGENT_INJECTION_RE.match(text) is not None,
                          prompt_source="typed")]
    if (kind == "info" and not stopped
            and flatten(record.get("content")).strip() == _REQUEST_CANCELLED):
        return [UserEvent(meta=chain.meta(mid, at, parent=parent, sidechain=sidechain),
                          interrupted=True)]
    if kind != "gemini":
        return [lazy(f"gemini.{kind}", record)]
    text = flatten(record.get("content"))
    calls = [c for c in record.get("toolCalls") or () if isinstance(c, dict)]
    blocks: list[ContentBlock] = [TextBlock(text)] if text.strip() else []
    blocks += [ToolUseBlock(id=_call_id(mid, i, c), name=str(c.get("name") or ""),
                            input=c["args"] if isinstance(c.get("args"), dict) else {})
               for i, c in enumerate(calls)]
    model = record.get("model")
    out: list[Any] = [AssistantEvent(
        meta=chain.meta(mid, at, parent=parent, sidechain=sidechain),
        model=model if isinstance(model, str) and model else "gemini", text=text,
        blocks=tuple(blocks), message_id=mid)]
    results = [_result(mid, i, c) for i, c in enumerate(calls) if c.get("status") in _DONE]
    if results:
        done_at = max((t for c in calls if (t := parse_time(c.get("timestamp"))) is not None),
                      default=at)
        # A call stopped while it ran is the interrupt (one Esc), whether or not the
        # client's "Request cancelled." note follows it.
        out.append(UserEvent(meta=chain.meta(f"{mid}:results", max(at, done_at),
                                             sidechain=sidechain),
                             blocks=tuple(results),
                             interrupted=any(r.content == _INTERRUPTED_CALL for r in results)))
    return out


def _stops(record: dict[str, Any], stopped: bool) -> bool:
    """Whether a "Request cancelled." note after `record` echoes a cancelled call."""
    kind = record.get("type")
    if kind == "gemini":
        calls = record.get("toolCalls")
        return isinstance(calls, list) and any(
            isinstance(c, dict) and c.get("status") == "cancelled" for c in calls)
    if kind == "user":  # a typed turn starts a new exchange; a function response does not
        return stopped and not typed_of(record)[0]
    # The echo itself ends it; another note leaves it as it was.
    return stopped and flatten(record.get("content")).strip() != _REQUEST_CANCELLED


def _call_id(mid: str, index: int, call: dict[str, Any]) -> str:
    value = call.get("id")
    return value if isinstance(value, str) and value else f"{mid}:{index}"


def _result(mid: str, index: int, call: dict[str, Any]) -> ToolResultBlock:
    status = call.get("status")
    call_id = _call_id(mid, index, call)
    if status == "cancelled":
        if _STOPPED_BY_USER in _result_text(call):
            return ToolResultBlock(tool_use_id=call_id, content=_INTERRUPTED_CALL, is_error=True)
        return declined(call_id)
    return ToolResultBlock(tool_use_id=call_id, content=_result_text(call),
                           is_error=status == "error")


def _result_text(call: dict[str, Any]) -> str:
    """What the tool returned: the function response's output or error, else the display."""
    texts: list[str] = []
    result = call.get("result")
    for part in result if isinstance(result, list) else [result]:
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
            response = part["functionResponse"].get("response")
            if isinstance(response, dict):
                value = response.get("output", response.get("error", response))
                texts.append(json_text(value))
            else:
                texts.append(json_text(response))
        elif part is not None:
            texts.append(flatten(part))
    text = "\n".join(t for t in texts if t)
    if not text and isinstance(call.get("resultDisplay"), str):
        text = call["resultDisplay"]
    return text

