"""A Gemini CLI conversation as events: typed turns, replies, tool calls and their results.

What the person typed is a `user` message's `displayContent` when the client
kept one (newer builds: `content` may hold an expansion), else its `content`,
cut before the `--- Content from referenced files ---` block the client appends
for `@file` references and without a `<session_context>` block. A custom command
(`displayContent` "/name args" beside an expanded `content`) is lowered as the
event model's slash-command record, so its arguments are typed and its body is not.

A `gemini` message's tool calls become tool uses, and each finished call a tool
result: `error` fails, `cancelled` is the person declining or stopping the call
(no reason is recorded). `info` / `warning` / `error` messages are the client's
notes, kept as bookkeeping. A subagent's file (`kind: "subagent"`) is a
sidechain throughout, like a Claude Code subagent transcript.

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
from learn.transcripts.claude.literals import AGENT_INJECTION_RE
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


def typed_of(record: dict[str, Any]) -> tuple[str, bool]:
    """(what the person typed in a `user` message, whether it names a custom command)."""
    display = record.get("displayContent")
    content = flatten(record.get("content"))
    shown = flatten(display) if display is not None else ""
    if shown.strip():
        command = shown.lstrip().startswith("/") and shown.strip() != content.strip()
        return _clean(shown), command
    return _clean(content), False


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
    for msg in conv.messages:
        at = parse_time(msg.record.get("timestamp")) or clock
        if at is None:
            skipped["invalid"] = skipped.get("invalid", 0) + 1
            continue
        clock = at
        lowered = _message(chain, msg, at, sidechain, tails)
        last = next((e.meta.uuid for e in reversed(lowered)
                     if isinstance(e, UserEvent | AssistantEvent)), None)
        if last is not None:
            tails[str(msg.record["id"])] = last
        for event in lowered:
            if not dropped(event, drop):
                events.append(event)
    return events, skipped


def _message(chain: Chain, msg: Message, at: datetime, sidechain: bool,
             tails: dict[str, str]) -> list[Any]:
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
        out.append(UserEvent(meta=chain.meta(f"{mid}:results", max(at, done_at),
                                             sidechain=sidechain),
                             blocks=tuple(results)))
    return out


def _call_id(mid: str, index: int, call: dict[str, Any]) -> str:
    value = call.get("id")
    return value if isinstance(value, str) and value else f"{mid}:{index}"


def _result(mid: str, index: int, call: dict[str, Any]) -> ToolResultBlock:
    status = call.get("status")
    call_id = _call_id(mid, index, call)
    if status == "cancelled":
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

