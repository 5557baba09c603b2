"""Lower Codex CLI rollouts into the same event model as Claude Code transcripts.

A rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, sometimes
compressed to `.jsonl.zst`) is one `{timestamp, type, payload}` object per line,
opening with `session_meta`. Older clients wrote other shapes, all read here
(studied in public repositories' rollouts and readers, 2025-2026):

- Bare era (up to about September 2025): the first line is a header
  `{"id", "timestamp", "instructions", "git"?}` with no `type` and no payload,
  then `{"record_type": "state"}` markers and bare response items
  (`{"type": "message", "role": "user", ...}`) with no per-line timestamp. Those
  files have no `user_message` event: the typed prompt is the user-role message
  that is not injected context, and the cwd is only in `<environment_context>`.
- Flattened records (`{"timestamp", "type": "session_meta", "id", "cwd"}`): the
  payload's fields at the top level. Read as if wrapped.

Subagent rollouts (`session_meta.payload.source` is `{"subagent": ...}` — a
review, a compaction, a spawned thread — or an `internal` job, or
`thread_source: "subagent"`) are written by an agent: every line is lowered as
a sidechain, exactly like a Claude Code subagent file, so no prompt in them is
ever a typed turn.

What the person typed comes from `event_msg/user_message`, or from Codex 0.171 on
(which no longer writes that event) from `event_msg/item_completed` whose item is a
`UserMessage`; never from `response_item` user messages: those also carry the
injected `<environment_context>` and AGENTS.md text, so mining them would "learn"
our own instructions back. They lower to OtherEvent. A client that writes both
records of one prompt has it counted once (`_typed`). The other items 0.171
completes (AgentMessage, CommandExecution, FileChange, McpToolCall, Reasoning, ...)
repeat what its `response_item` lines already say, and are not read.

A call the person declined is read from its output (`_result`): `exec command rejected by
user` / `patch rejected by user` (older clients, and a client answering 0.171's approval
with a plain decline) is their denial; one a policy, the sandbox's approval rules or the
reviewer refused is a rule's; inside a code-mode script the same refusal ends the script as
its `Script error:` (`_script_result`, `code_mode.script_refusal`). 0.171's TUI has no plain
decline: its "No, and tell Codex what to do differently" (also Esc and `n`) aborts the turn,
written exactly as an Esc while the command runs, so it lowers as an interrupted call and
the words typed next are a typed turn.

Codex lines carry no uuid or parent link, so the lowering synthesizes them: a
uuid derived from the session id and line number ("<session id>:<line>",
stable across re-parses and file moves), and a parent chain through the previous lowered event so the
active-branch walk of the session view works unchanged. Unlike Claude Code
parsing, lowering is not compositional: the session id and cwd come from
earlier lines.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import msgspec

from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.claude.decode import SKIP_INVALID, SKIP_TOO_DEEP
from learn.transcripts.claude.literals import AGENT_INJECTION_RE, INTERRUPT_MARKER
from learn.transcripts.codex.code_mode import (
    DECLINED_BY_USER,
    code_mode_output,
    code_mode_read,
    script_refusal,
)
from learn.transcripts.codex.lines import ANY, Line, State, read_line, repaired
from learn.transcripts.codex.meta import (
    INJECTED_PREFIXES,
    environment_cwd,
    subagent_kind,
)
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.lowering import declined, refused
from learn.transcripts.models import (
    AssistantEvent,
    OtherEvent,
    TranscriptEvent,
    UserEvent,
)

__all__ = ["lower"]

# "Exit code: 1" (the exec tool's text preamble) / "exited with code 1".
_EXIT_CODE_RE = re.compile(r"(?:Exit code:|exited with code)\s*(-?\d+)")


# Values read from a decoded line are told by exact type (`type(x) is str`), not by
# isinstance: JSON decodes to no subclass of str, dict, list or int, and the builtin's
# call was the dearer test (callgrind, lowering the spread home's rollouts: 0.975x the
# instructions, 0.984x with the two tests of every line in `lower` alone).


def _timestamp(value: object) -> datetime | None:
    if type(value) is not str:
        return None
    try:
        ts = datetime.fromisoformat(value)
    except ValueError:
        return None
    return ts if ts.tzinfo is not None else None


def _str(value: object) -> str | None:
    return value if type(value) is str else None


def _arguments(raw: object) -> dict[str, Any]:
    if type(raw) is dict:
        return raw
    if type(raw) is str:
        try:
            parsed = ANY.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            return {"input": raw}
        return parsed if type(parsed) is dict else {"input": parsed}
    return {}


def _output(raw: object) -> tuple[str, bool]:
    """Flatten a function_call_output payload; is_error from its exit code."""
    data: object = raw
    if type(raw) is str:
        stripped = raw.lstrip()
        if stripped.startswith("{"):
            try:
                data = ANY.decode(stripped)
            except (msgspec.DecodeError, RecursionError):
                data = raw
    if type(data) is dict:
        text = data.get("output", data.get("content", ""))
        if type(text) is list:
            text = "".join(
                item.get("text", "") for item in text
                if type(item) is dict and type(item.get("text")) is str
            )
        if type(text) is not str:
            text = msgspec.json.encode(text).decode()
        meta = data.get("metadata")
        code = meta.get("exit_code") if type(meta) is dict else None
        if data.get("success") is False:
            return text, True
        if type(code) is int:  # a bool is no exit code
            return text, code != 0
        data = text
    text = data if type(data) is str else msgspec.json.encode(data).decode()
    match = _EXIT_CODE_RE.search(text[:400])
    return text, bool(match and int(match.group(1)) != 0)


# The lines a shell call's output opens with before what the command printed: 0.171's
# "Chunk ID: fe05c6\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token
# count: 12\nOutput:\n", and the "Exit code: 1\nWall time: ...\nOutput:\n" of earlier
# builds. A failure's excerpt read "Chunk ID: fe05c6" (its first line), and the miner was
# sent the header with every failure. Taken off last (`_result`): the exit code is read
# from it, and a decline's phrase counts only as the whole output, never as what a
# command printed after a header.
_HEADER_LINES: Final = (
    "Chunk ID", "Wall time", "Process exited with code", "Exit code", "Original token count",
    "Total output lines", "Process running with session ID")
_HEADER_RE: Final = re.compile(r"(?:(?:" + "|".join(_HEADER_LINES) + r")\b[^\n]*\n)+Output:\n")


def _body(text: str) -> str:
    """A shell call's output past its header (_HEADER_RE), when anything follows it."""
    # Told first by its opening: most outputs have no header, and matching the pattern
    # against each cost 0.2% more of the spread home's lowering (callgrind) than this test.
    if not text.startswith(_HEADER_LINES):
        return text
    header = _HEADER_RE.match(text)
    if header is None or not text[header.end():].strip():
        return text
    return text[header.end():]


# What Codex returns to the model for a call the person declined at its approval prompt
# (codex-rs ToolEmitter: `ToolError::Rejected("rejected by user")`, and the older codex.rs's
# ReviewDecision::Denied | Abort), with no exit code: read as a successful output, a Codex
# decline was no denial and not even a failure (audit of client formats, 2026-12).
_DECLINED: Final = frozenset({"exec command rejected by user", "patch rejected by user"})
# The same refused by policy or by the guardian, not by the person: a rule's, not theirs.
# 0.171 adds the approval policy's own refusal of an escalation (`approval policy is Never;
# reject command — you cannot ask for escalated permissions ...`, seen in `codex exec`'s
# rollout), the exec policy's ("`rm -rf x` rejected: blocked by policy") and the automatic
# reviewer's (strings of the 0.171.0 binary); each read as a successful output before.
_REFUSED_RE: Final = re.compile(
    r"\s*(?:(?:exec command|patch) rejected: |This action was rejected due to unacceptable risk"
    r"|approval policy is \w+; reject command|`[^`\n]*` rejected: "
    r"|automatic approval review denied the action)")
# What 0.171 returns for a call stopped by Esc, or by "No, and tell Codex what to do
# differently" at its approval prompt (its TUI's only way to say no; `n` and Esc pick it):
# codex-rs `abort_message`, "Wall time: 9.5 seconds\naborted by user" for a shell call,
# "aborted by user after 8.8s" for any other (apply_patch). The two are written alike, the
# turn aborted after either, so the rollout cannot tell a decline from an interrupt: it is
# lowered as Claude Code's interrupted call, one interrupt (the turn_aborted line's), never a
# denial or a failure. Read as a successful output before, no detector saw the call stopped.
_ABORTED_RE: Final = re.compile(
    r"(?:Wall time: \d+(?:\.\d+)? seconds\naborted by user|aborted by user after \d+(?:\.\d+)?s)\s*\Z")
_INTERRUPTED_CALL: Final = f"{INTERRUPT_MARKER} for tool use]"
# Longer than any of them with room for blanks around: an output this long is none, and is
# neither copied nor hashed to tell (stripping and looking up every output cost 0.9% of a
# first listing's instructions where a tenth of the sessions are Codex rollouts).
_DECLINED_MAX: Final = 64


# The kinds Codex tagged its own context blocks with when it sent them as user messages.
_CONTEXT_KINDS: Final = frozenset({"environment_context", "user_instructions"})


def _result(call_id: str, text: str, is_error: bool) -> ToolResultBlock:
    """A call's output as the one shape every agent's results take: a decline as a denial."""
    if len(text) <= _DECLINED_MAX:
        if text.strip() in _DECLINED:
            return declined(call_id)
        if _ABORTED_RE.match(text):
            return ToolResultBlock(tool_use_id=call_id, content=_INTERRUPTED_CALL, is_error=True)
    if _REFUSED_RE.match(text):
        return refused(call_id, text)
    return ToolResultBlock(tool_use_id=call_id, content=_body(text), is_error=is_error)


def _script_result(call_id: str, text: str, is_error: bool) -> ToolResultBlock:
    """A code-mode script's output: a call in it the person declined is their denial, one
    a rule refused a rule's, as outside code mode (`code_mode.script_refusal`)."""
    refusal = script_refusal(text) if is_error else None
    if refusal is not None:
        if refusal == DECLINED_BY_USER or refusal in _DECLINED:
            return declined(call_id)
        if _REFUSED_RE.match(refusal):
            return refused(call_id, refusal)
    return _result(call_id, text, is_error)


def _message_text(content: object) -> str:
    if type(content) is str:
        return content
    if type(content) is not list:
        return ""
    return " ".join(
        item["text"] for item in content
        if type(item) is dict and type(item.get("text")) is str
    )


def _lower_line(
    line: Line, lineno: int, st: State, obj: dict[str, Any]
) -> TranscriptEvent | None:
    """The event a wrapped line lowers to; None for a turn's line with no time (invalid)."""
    kind, p, stamp = line
    ptype = p.get("type")
    if type(ptype) is not str:
        # A payload's type that is not a string (a list, an object) names no record
        # learn reads: kept as a bookkeeping line. Tested against the frozenset below it
        # raised TypeError (unhashable) and lost the whole file.
        ptype = None
    if kind == "session_meta":
        st.session_id = _str(p.get("id")) or _str(p.get("session_id")) or ""
        st.cwd = _str(p.get("cwd")) or st.cwd
        st.version = _str(p.get("cli_version"))
        source = p.get("source")
        st.entrypoint = _str(p.get("originator")) or _str(source)
        st.sidechain = subagent_kind(
            {"source": source, "thread_source": p.get("thread_source")}) is not None
        st.clock = _timestamp(stamp) or st.clock
        return OtherEvent(kind, obj)
    if kind == "turn_context":
        st.cwd = _str(p.get("cwd")) or st.cwd
        st.model = _str(p.get("model")) or st.model
        return OtherEvent(kind, obj)
    if kind == "event_msg":
        conversational = ptype in ("user_message", "agent_message") or (
            ptype == "turn_aborted" and p.get("reason") in (None, "interrupted")) or (
            ptype == "item_completed" and _user_item(p) is not None)
        if ptype in _TURN_STARTS:
            # A new turn: its reply or prompt is no copy of the last turn's.
            st.last_assistant_text = st.last_typed_text = None
    elif kind == "response_item":
        if st.bare and ptype == "message" and p.get("role") == "user":
            return _bare_prompt(p, stamp, lineno, st, obj)
        conversational = (ptype == "message" and p.get("role") == "assistant") or ptype in (
            "function_call", "custom_tool_call", "local_shell_call",
            "function_call_output", "custom_tool_call_output")
    else:
        conversational = False
    if not conversational:
        return OtherEvent(kind, obj)
    ts = _line_time(stamp, st)
    if ts is None:
        return None
    if kind == "event_msg":
        if ptype == "user_message":
            return _typed(_str(p.get("message")) or "", p.get("kind"), lineno, ts, st, obj,
                          record=ptype)
        if ptype == "item_completed":
            return _typed(_user_item_text(_user_item(p) or {}), None, lineno, ts, st, obj,
                          record=ptype)
    # Anything but a prompt ends the run in which a second record of it is a copy.
    st.last_typed_text = None
    if kind == "event_msg":
        if ptype == "turn_aborted":
            return UserEvent(meta=st.meta(lineno, ts), text="", interrupted=True)
        text = _str(p.get("message")) or ""
        if text == st.last_assistant_text:
            # Codex writes each reply twice (response_item + agent_message).
            return OtherEvent(kind, obj)
        st.last_assistant_text = text
        return AssistantEvent(
            meta=st.meta(lineno, ts), model=st.model, text=text, blocks=(TextBlock(text),)
        )
    if ptype == "message":
        text = _message_text(p.get("content"))
        if text == st.last_assistant_text:
            return OtherEvent(kind, obj)
        st.last_assistant_text = text
        return AssistantEvent(
            meta=st.meta(lineno, ts), model=st.model, text=text, blocks=(TextBlock(text),),
            message_id=_str(p.get("id")),
        )
    call_id = _str(p.get("call_id")) or _str(p.get("id")) or ""
    if ptype in ("function_call_output", "custom_tool_call_output"):
        output = p.get("output")
        scripted = code_mode_output(output) if ptype == "custom_tool_call_output" else None
        if scripted is not None:
            return UserEvent(meta=st.meta(lineno, ts), blocks=(_script_result(call_id, *scripted),))
        text, is_error = _output(output)
        return UserEvent(meta=st.meta(lineno, ts), blocks=(_result(call_id, text, is_error),))
    if ptype == "local_shell_call":
        action = p.get("action")
        name, args = "local_shell", action if type(action) is dict else {}
    elif ptype == "custom_tool_call":
        name = _str(p.get("name")) or ""
        read = code_mode_read(name, p.get("input"))
        name, args = read if read is not None else (name, _arguments(p.get("input")))
    else:
        name, args = _str(p.get("name")) or "", _arguments(p.get("arguments"))
    return AssistantEvent(
        meta=st.meta(lineno, ts), model=st.model,
        blocks=(ToolUseBlock(id=call_id, name=name, input=args),),
    )


# Where a turn starts ("turn_started" is the event's name in the protocol, "task_started"
# the one rollouts have carried since 0.2x).
_TURN_STARTS: Final = frozenset({"task_started", "turn_started"})


def _user_item(p: dict[str, Any]) -> dict[str, Any] | None:
    """The `UserMessage` item an `item_completed` payload completes, if it is one.

    Codex 0.171 writes `{"type": "item_completed", "turn_id", "item": {"type":
    "UserMessage", "id", "client_id"?, "content": [{"type": "text", "text",
    "text_elements"}, {"type": "image" | "local_image", ...}]}}` in place of
    `user_message` (codex-rs/protocol/src/items.rs `TurnItem`, seen in 0.171.0's
    own rollouts, exec and TUI alike).
    """
    item = p.get("item")
    return item if type(item) is dict and item.get("type") == "UserMessage" else None


def _user_item_text(item: dict[str, Any]) -> str:
    """A UserMessage item's text parts joined as Codex joins them for its own
    `user_message` (items.rs `UserMessageItem::message`: no separator, images left out),
    so both records of one prompt read alike."""
    content = item.get("content")
    if type(content) is str:
        return content
    if type(content) is not list:
        return ""
    return "".join(
        part["text"] for part in content
        if type(part) is dict and part.get("type") == "text" and type(part.get("text")) is str
    )


def _typed(
    text: str, kind: object, lineno: int, ts: datetime, st: State, obj: dict[str, Any],
    *, record: str,
) -> TranscriptEvent:
    """What the person typed, from either record Codex keeps of it."""
    if kind in _CONTEXT_KINDS or text[:64].lstrip().startswith(INJECTED_PREFIXES):
        # Codex of about August-September 2025 sent its context blocks (AGENTS.md as
        # <user_instructions>, <environment_context>) as user messages tagged with
        # their kind: client-written, never typed (it fed the person's own AGENTS.md
        # back to the miner as things they said).
        meta = msgspec.structs.replace(st.meta(lineno, ts), is_meta=True)
        return UserEvent(meta=meta, text=text, blocks=(TextBlock(text),))
    if text == st.last_typed_text and record != st.last_typed_record:
        # The same prompt's other record (`user_message` beside its `item_completed`,
        # in either order, with nothing but bookkeeping between): one typed turn. The
        # same record twice is the person typing it again (a rollout with no turn
        # markers between, "try again" after a failed turn).
        return OtherEvent("event_msg", obj)
    st.last_typed_text, st.last_typed_record = text, record
    st.last_assistant_text = None
    return UserEvent(
        meta=st.meta(lineno, ts), text=text, blocks=(TextBlock(text),),
        is_agent_injected=AGENT_INJECTION_RE.match(text) is not None,
        prompt_source="typed",
    )


def _line_time(stamp: object, st: State) -> datetime | None:
    ts = _timestamp(stamp)
    if ts is not None:
        st.clock = ts
        return ts
    # A bare-era line has no timestamp: it happened after the last one known.
    return st.clock if st.bare else None


def _bare_prompt(
    p: dict[str, Any], stamp: object, lineno: int, st: State, obj: dict[str, Any]
) -> TranscriptEvent | None:
    """A bare-era user-role message: the prompt, unless it is the harness's context."""
    text = _message_text(p.get("content"))
    injected = text.lstrip().startswith(INJECTED_PREFIXES)
    if injected:
        st.cwd = environment_cwd(text) or st.cwd
    ts = _line_time(stamp, st)
    if ts is None:
        return None
    if injected:
        # Kept as a client-written (meta) entry, like Claude Code's isMeta
        # lines: never typed, but it carries the only cwd of the session.
        meta = msgspec.structs.replace(st.meta(lineno, ts), is_meta=True)
        return UserEvent(meta=meta, text=text, blocks=(TextBlock(text),))
    st.last_assistant_text = None
    return UserEvent(
        meta=st.meta(lineno, ts), text=text, blocks=(TextBlock(text),),
        is_agent_injected=AGENT_INJECTION_RE.match(text) is not None, prompt_source="typed",
    )


def _is_dropped(event: TranscriptEvent, spec: FilterSpec) -> bool:
    if isinstance(event, OtherEvent):
        return event.type in spec.types
    if isinstance(event, UserEvent):
        return "user" in spec.types
    if isinstance(event, AssistantEvent):
        return "assistant" in spec.types
    return False


def lower(
    buf: bytes, *, path: Path | None = None, drop: FilterSpec | None = None
) -> tuple[list[TranscriptEvent], dict[str, int]]:
    """Lower a Codex rollout buffer into events plus skip counts by reason.

    Each line is decoded once, untyped (`lines.read_line`): bookkeeping lines
    are OtherEvents holding that decode.
    """
    st = State(path)
    events: list[TranscriptEvent] = []
    skipped: dict[str, int] = {}
    decode = ANY.decode
    # memoryview slices rather than buf.split(): no copy of every line (see
    # parser.decode_claude_lines).
    view = memoryview(buf)
    find = buf.find
    size = len(buf)
    start = 0
    lineno = -1
    while start < size:
        lineno += 1
        end = find(b"\n", start)
        if end < 0:
            end = size
        if end == start:
            start += 1
            continue
        raw = view[start:end]
        start = end + 1
        try:
            obj = decode(raw)
        except msgspec.DecodeError:
            whole = raw.tobytes()
            if whole.isspace():
                continue
            # Invalid UTF-8 or half a surrogate pair mended, the line kept (transcripts.mend).
            reason, obj = repaired(whole)
            if reason is not None:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
        except RecursionError:
            skipped[SKIP_TOO_DEEP] = skipped.get(SKIP_TOO_DEEP, 0) + 1
            continue
        line = read_line(obj, st)
        if isinstance(line, str):
            if line == "state":
                events.append(OtherEvent("state", obj))
            else:
                skipped[line] = skipped.get(line, 0) + 1
            continue
        event = _lower_line(line, lineno, st, obj)
        # None, not the reason's name: told by `is`, where a type test of every line's
        # result cost 1% of the spread home's lowering (callgrind).
        if event is None:
            skipped[SKIP_INVALID] = skipped.get(SKIP_INVALID, 0) + 1
            continue
        if drop is not None and _is_dropped(event, drop):
            continue
        events.append(event)
    return events, skipped
