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
result: `error` fails, `cancelled` is the person declining the call or stopping it
(Esc) before it finished: an interrupted call, as Claude Code's. The reason in the
result's error part tells them apart (`_stopped`). The note "Request cancelled." is Esc
while the model answered: an interrupt, unless it goes with a reply's cancelled call,
written just before that reply (0.39) or just after it (0.61) (`_echoes`). Other `info`
/ `warning` / `error` messages are the client's notes, kept as bookkeeping. A
subagent's file (`kind: "subagent"`) is a sidechain throughout, like a Claude Code
subagent transcript.

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
# The note the client writes when Esc stops a turn (`useGeminiStream`).
_REQUEST_CANCELLED = "Request cancelled."
# A cancelled call's error is "[Operation Cancelled] <reason>" ("Reason: <reason>" from
# the scheduler's state). The reasons for a call Esc stopped before it finished, folded
# (`_reason`): "User cancelled tool execution." once it ran (`ToolExecutor`, measured on
# 0.39.1; the older `CoreToolScheduler` too), "Operation cancelled by user" (`cancelAll`,
# 0.61), "Operation cancelled" (aborted before it ran) and "Tool call cancelled by user."
# (aborted before its approval prompt, `CoreToolScheduler`). Every other reason is the
# person's no: "User denied execution." (0.61), "User did not allow tool call"
# (`CoreToolScheduler`), "User cancelled operation" (the calls queued behind a refused
# one), or none (older builds).
_STOPPED_REASONS = frozenset({"user cancelled tool execution", "operation cancelled by user",
                              "operation cancelled", "tool call cancelled by user"})
_CANCELLED_PREFIX_RE = re.compile(r"\A\s*\[Operation Cancelled\]\s*(?:Reason:\s*)?", re.I)
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
    echoes = _echoes(conv.messages)
    for msg in conv.messages:
        at = parse_time(msg.record.get("timestamp")) or clock
        if at is None:
            skipped["invalid"] = skipped.get("invalid", 0) + 1
            continue
        clock = at
        lowered = _message(chain, msg, at, sidechain, tails, echoes)
        last = next((e.meta.uuid for e in reversed(lowered)
                     if isinstance(e, UserEvent | AssistantEvent)), None)
        if last is not None:
            tails[str(msg.record["id"])] = last
        for event in lowered:
            if not dropped(event, drop):
                events.append(event)
    return events, skipped


def _message(chain: Chain, msg: Message, at: datetime, sidechain: bool,
             tails: dict[str, str], echoes: frozenset[str] = frozenset()) -> list[Any]:
    """One message's events; `echoes`: the "Request cancelled." notes that go with a
    cancelled call (`_echoes`), no interrupt of their own."""
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
    if _is_cancel_note(record) and mid not in echoes:
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
        # A call stopped before it finished is the interrupt (one Esc), whether or not the
        # client's "Request cancelled." note stands beside it (`_echoes`).
        out.append(UserEvent(meta=chain.meta(f"{mid}:results", max(at, done_at),
                                             sidechain=sidechain),
                             blocks=tuple(results),
                             interrupted=any(r.content == _INTERRUPTED_CALL for r in results)))
    return out


def _is_cancel_note(record: dict[str, Any]) -> bool:
    return (record.get("type") == "info"
            and flatten(record.get("content")).strip() == _REQUEST_CANCELLED)


def _has_cancelled(record: dict[str, Any]) -> bool:
    calls = record.get("toolCalls")
    return isinstance(calls, list) and any(
        isinstance(c, dict) and c.get("status") == "cancelled" for c in calls)


def _echoes(messages: list[Message]) -> frozenset[str]:
    """The ids of the "Request cancelled." notes that go with a cancelled call: one Esc,
    whose interrupt (or denial) the call's result already is.

    The client writes the note when Esc is pressed, and a call's results once it has
    stopped, onto the last message if that is a reply, else onto a new one. 0.61 cancels
    the calls first, so the note comes just after the reply holding them; 0.39.1 wrote
    the note first, then the call in a new reply after it: read only after, both stopped
    commands of a real session counted twice ("denials 2 · interrupts 2"). A note pairs
    with the nearest reply with a cancelled call in the same exchange: the next reply if
    that is one (only notes between), else the one before if no other reply came since.
    Each reply takes one note, so a second Esc still counts.
    """
    echoes: set[str] = set()
    waiting: str | None = None  # a note no reply has taken yet
    stopped = False  # the last reply had a call cancelled and has no note yet
    for msg in messages:
        record, kind = msg.record, msg.record.get("type")
        if _is_cancel_note(record):
            if stopped:
                echoes.add(str(record["id"]))
            else:
                waiting = str(record["id"])  # an earlier waiting note stays an interrupt
            stopped = False
        elif kind == "gemini":
            cancelled = _has_cancelled(record)
            if cancelled and waiting is not None:
                echoes.add(waiting)
                cancelled = False
            waiting, stopped = None, cancelled
        elif kind == "user" and typed_of(record)[0]:
            # A typed turn starts a new exchange; a function response does not.
            waiting, stopped = None, False
    return frozenset(echoes)


def _call_id(mid: str, index: int, call: dict[str, Any]) -> str:
    value = call.get("id")
    return value if isinstance(value, str) and value else f"{mid}:{index}"


def _result(mid: str, index: int, call: dict[str, Any]) -> ToolResultBlock:
    status = call.get("status")
    call_id = _call_id(mid, index, call)
    if status == "cancelled":
        if _stopped(call):
            return ToolResultBlock(tool_use_id=call_id, content=_INTERRUPTED_CALL, is_error=True)
        return declined(call_id)
    return ToolResultBlock(tool_use_id=call_id, content=_result_text(call),
                           is_error=status == "error")


def _stopped(call: dict[str, Any]) -> bool:
    """Whether a cancelled call was stopped by Esc rather than refused at its prompt.

    Read from the error part alone: a command stopped mid-run keeps its output beside the
    error (0.39.1), and that output is the program's, free to say anything.
    """
    return any(_reason(error) in _STOPPED_REASONS for error in _errors(call))


def _reason(error: str) -> str:
    """A cancelled call's reason, folded: without the "[Operation Cancelled]" prefix,
    its case and its closing period."""
    return _CANCELLED_PREFIX_RE.sub("", error).strip().rstrip(".").strip().lower()


def _errors(call: dict[str, Any]) -> list[str]:
    """The texts of the call's function responses' `error` parts."""
    result = call.get("result")
    parts = result if isinstance(result, list) else [result]
    responses = [p["functionResponse"].get("response") for p in parts
                 if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
    return [r["error"] for r in responses if isinstance(r, dict) and isinstance(r.get("error"), str)]


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
