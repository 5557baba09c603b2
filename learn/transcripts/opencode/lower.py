"""An OpenCode session (the canonical buffer of `export`) as events.

1.x messages (`message` + `part`, or the JSON store): a `user` message's text
parts are what the person typed, except parts the client marks `synthetic`
(file contents it read in, reminders) or `ignored`: those are context. An
`assistant` message's parts in order: `text` a reply, `tool` a call
(`callID`, `tool`, `state.input`) and, once finished, its result
(`state.output`, or `state.error` for a failure). A permission the person
declined is an error whose text says so (`permission/index.ts`): "The user
rejected permission to use this specific tool call." with ` with the following
feedback: <what they typed>` when they typed a reason; a rule's refusal says
"The user has specified a rule which prevents you from using this specific tool
call". Those are lowered as denials (`lowering.denial_content`). An aborted
reply (`error.name` "MessageAbortedError") is an interrupt.

The first builds' messages (`project_storage`: parts inside the message, facts under
`metadata`, tool calls as `tool-invocation` parts) are read in the later shape.

2.x entries (`session_message`): `user` (`text`), `synthetic` (the client's text:
context), `shell` (a command the person ran with `!`), `assistant` (`content`:
text, reasoning, tool with `state.content`), `compaction` (a summary: never typed).

A child session (`parentID`: a subagent's task) is a sidechain throughout.

A fork (`opencode run --fork`, the TUI's /fork) is a new session with no parent that
opens with a copy of every earlier message: new ids, the same text, and the original
`time.created`, earlier than the fork's own creation (1.18.33, driven for real). A
message created before its session is such a copy: its text is context, not typed
again (the session it was typed in counts it), and its events say they were copied,
so the fork starts at its first message of its own (`view.session`), as a Claude Code
`/branch` does.

`opencode run` without `--interactive` gives its session three rules of its own
(`permission`: deny `question`, `plan_enter`, `plan_exit`; a TUI or API session has
none): the session is headless (entrypoint "opencode-run", `view.origin`), and as no
person is there to ask, every permission it would ask is rejected by the client,
written as "The user rejected permission ..." with no feedback: a refusal, not the
person's denial. Its message is its arguments (quoted when they hold a space) and what
was piped to its stdin: the arguments are typed, the piped text is context
(`run_message`). Killed mid-answer, it leaves its reply unfinished and writes no abort:
that reply is an interrupt (`_unfinished`).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Final

import msgspec
from msgspec.structs import replace

from learn.transcripts.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from learn.transcripts.claude.decode import SKIP_TOO_DEEP
from learn.transcripts.claude.literals import (
    AGENT_INJECTION_RE,
)
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.lowering import (
    Chain,
    Lowered,
    as_dict,
    as_str,
    declined,
    dropped,
    json_text,
    lazy,
    refused,
    timestamp,
)
from learn.transcripts.mend import decoded
from learn.transcripts.models import AssistantEvent, UserEvent
from learn.transcripts.opencode.run_message import split_run_message

__all__ = ["lower"]

_ANY = msgspec.json.Decoder()
REJECTED: Final = "The user rejected permission to use this specific tool call"
FEEDBACK: Final = " with the following feedback: "
RULE_REFUSED: Final = "The user has specified a rule which prevents you from using this specific"
ABORTED: Final = "MessageAbortedError"
# The entrypoint of an `opencode run` session (`view.origin.HEADLESS_CLIENTS`), and the
# rules `run` sets on its sessions that tell it.
RUN_ENTRYPOINT: Final = "opencode-run"
_RUN_RULES: Final = frozenset({"question", "plan_enter", "plan_exit"})
# What `opencode run` appended from stdin to the person's message (`run_message`): its
# event is context, and says so where a reader looks for an entry's origin.
PIPED_INPUT: Final = "piped-input"
# `copied_from` of a fork's copied messages: the store does not name the session a fork
# was copied from.
FORK_SOURCE: Final = "opencode:fork"


def lower(buf: bytes, *, path: Path | None = None, drop: FilterSpec | None = None) -> Lowered:
    chain = Chain(path)
    events: list[Any] = []
    skipped: dict[str, int] = {}
    side = False
    clock: datetime | None = None
    born: datetime | None = None  # the session's creation: a message before it is a copy
    for raw in buf.split(b"\n"):
        if not raw.strip():
            continue
        try:
            record = decoded(_ANY.decode, raw)  # transcripts.mend: a JavaScript client's JSON
        except msgspec.DecodeError:
            skipped["undecodable"] = skipped.get("undecodable", 0) + 1
            continue
        except RecursionError:  # msgspec's limit is the stack's: ~1,000 levels
            skipped[SKIP_TOO_DEEP] = skipped.get(SKIP_TOO_DEEP, 0) + 1
            continue
        kind = record.get("opencode") if isinstance(record, dict) else None
        if kind == "session":
            chain.session_id = str(record.get("id") or "")
            chain.cwd = record.get("directory") or None
            chain.version = record.get("version") or None
            side = bool(record.get("parentID"))
            time = as_dict(record.get("time"))
            born = timestamp(time.get("created"))
            clock = born or clock
            if run_session(record.get("permission")):
                chain.entrypoint = RUN_ENTRYPOINT
            out: list[Any] = [lazy("opencode.session", raw)]
        elif kind == "message":
            out = _message(chain, record, side, clock, born)
        elif kind == "entry":
            out = _entry(chain, record, side, clock, born)
        elif kind == "unreadable":  # the store's records that did not decode (export)
            count = record.get("count")
            skipped["undecodable"] = skipped.get("undecodable", 0) + (
                count if isinstance(count, int) and count > 0 else 1)
            continue
        else:
            skipped["invalid"] = skipped.get("invalid", 0) + 1
            continue
        for event in out:
            at = getattr(getattr(event, "meta", None), "timestamp", None)
            clock = at or clock
            if not dropped(event, drop):
                events.append(event)
    return events, skipped


def run_session(permission: object) -> bool:
    """Whether a session's permission rules are those `opencode run` sets (deny
    `question`, `plan_enter` and `plan_exit`)."""
    if not isinstance(permission, list):
        return False
    denied = {r.get("permission") for r in permission
              if isinstance(r, dict) and r.get("action") == "deny"}
    return _RUN_RULES.issubset(denied)


def _copied(events: list[Any]) -> list[Any]:
    """A fork's copy of an earlier message: each event marked as copied."""
    return [replace(e, meta=replace(e.meta, copied_from=FORK_SOURCE))
            if getattr(e, "meta", None) is not None else e for e in events]


def _time(value: object, fallback: datetime | None) -> datetime | None:
    if isinstance(value, dict):
        for key in ("created", "start", "end"):
            got = timestamp(value.get(key))
            if got is not None:
                return got
        return fallback
    return timestamp(value) or fallback


def _user(chain: Chain, key: str, at: datetime, texts: list[str], side: bool,
          context: bool) -> UserEvent:
    text = "\n".join(t for t in texts if t.strip())
    return UserEvent(meta=chain.meta(key, at, sidechain=side, is_meta=context or not text),
                     text=text, blocks=(TextBlock(text),) if text else (),
                     is_agent_injected=AGENT_INJECTION_RE.match(text) is not None,
                     prompt_source="typed")


def _message(chain: Chain, record: dict[str, Any], side: bool, clock: datetime | None,
             born: datetime | None) -> list[Any]:
    info = as_dict(record.get("data"))
    parts = [p for p in record.get("parts") or () if isinstance(p, dict)]
    first = isinstance(info.get("metadata"), dict) and "time" not in info
    if first:
        info, parts = _first_builds(info, parts)
    at = _time(info.get("time"), clock)
    if at is None:
        return []
    if born is not None and at < born:  # a fork's copy (module docstring)
        return _copied(_lowered(chain, record, info, parts, side, at, inherited=True))
    out = _lowered(chain, record, info, parts, side, at, inherited=False)
    if not first and _unfinished(info):
        # Killed mid-answer: no abort was written, the reply simply never ended.
        out.append(UserEvent(meta=chain.meta(f"{record.get('id') or ''}:abort",
                                             _last_time(parts, at), sidechain=side),
                             interrupted=True))
    return out


def _unfinished(info: dict[str, Any]) -> bool:
    """A reply that never ended: no `time.completed`, no error, no `finish`.

    `opencode run` killed mid-answer (SIGTERM, or Ctrl-C at a terminal: 1.18.33, driven
    for real) leaves its assistant message so, and nothing else: no MessageAbortedError
    (only an abort from the TUI or the API writes one), no part saying it stopped. Every
    reply that ended has `time.completed` (with `finish`, or `error` when it failed).
    A reply being streamed while learn reads has the same shape; the store changes when
    it ends, so the session is read again (its stamp) and the interrupt goes.
    The first builds' messages (`project_storage`) were never seen killed: not read so."""
    if info.get("role") != "assistant" or info.get("error") or info.get("finish"):
        return False
    time = info.get("time")
    return isinstance(time, dict) and time.get("created") is not None \
        and time.get("completed") is None


def _last_time(parts: list[dict[str, Any]], at: datetime) -> datetime:
    """When a reply was last seen: the latest time its parts name, else its creation."""
    seen = [t for p in parts for key in ("start", "end")
            if (t := timestamp(as_dict(p.get("time")).get(key))) is not None]
    seen += [t for p in parts for key in ("start", "end")
             if (t := timestamp(as_dict(as_dict(p.get("state")).get("time")).get(key))) is not None]
    return max(seen, default=at)


def _run_user(chain: Chain, mid: str, at: datetime, texts: list[str],
              side: bool) -> list[UserEvent]:
    """A message `opencode run` sent: its arguments typed (without the quotes `run` put
    round them), what it appended from stdin context (`run_message`)."""
    split = [split_run_message(t) for t in texts]
    typed = [s.typed for s in split if s.typed.strip()]
    piped = "\n".join(s.piped for s in split if s.piped.strip())
    out = [_user(chain, mid, at, typed, side, context=False)] if typed else []
    if piped:
        out.append(UserEvent(meta=chain.meta(f"{mid}:{PIPED_INPUT}", at, sidechain=side,
                                             is_meta=True),
                             text=piped, blocks=(TextBlock(piped),), origin_kind=PIPED_INPUT))
    return out


def _lowered(chain: Chain, record: dict[str, Any], info: dict[str, Any],
             parts: list[dict[str, Any]], side: bool, at: datetime, *,
             inherited: bool) -> list[Any]:
    """One message's events; an `inherited` one's text is context, its declines' reasons
    left to the session they were typed in."""
    mid = str(record.get("id") or "")
    role = info.get("role")
    path = info.get("path")
    if isinstance(path, dict) and isinstance(path.get("cwd"), str) and path["cwd"]:
        chain.cwd = path["cwd"]
    if role == "user":
        typed = [p.get("text", "") for p in parts if p.get("type") == "text"
                 and not p.get("synthetic") and not p.get("ignored")
                 and isinstance(p.get("text"), str)]
        if typed and chain.entrypoint == RUN_ENTRYPOINT and not inherited:
            return _run_user(chain, mid, at, typed, side)
        if typed:
            return [_user(chain, mid, at, typed, side, context=inherited)]
        said = [p.get("text", "") for p in parts
                if p.get("type") == "text" and isinstance(p.get("text"), str)]
        return [_user(chain, mid, at, said, side, context=True)] if said else []
    if role != "assistant":
        return [lazy("opencode.message", record)]
    model = as_str(info.get("modelID"), "opencode")
    out: list[Any] = []
    for part in parts:
        key = f"{mid}:{part.get('id')}"
        when = _time(part.get("time"), at) or at
        if part.get("type") == "text":
            out += _reply(chain, key, when, side, model, mid, part)
        elif part.get("type") == "tool":
            state = as_dict(part.get("state"))
            call_id = str(part.get("callID") or part.get("id") or key)
            out += _call(chain, key, when, side, model, mid, call_id, str(part.get("tool") or ""),
                         state.get("input"), state.get("status"),
                         state.get("output"), state.get("error"), _time(state.get("time"), when),
                         inherited=inherited)
    error = info.get("error")
    if isinstance(error, dict) and error.get("name") == ABORTED:
        out.append(UserEvent(meta=chain.meta(f"{mid}:abort", _time(info.get("time"), at) or at,
                                             sidechain=side), interrupted=True))
    return out


def _reply(chain: Chain, key: str, at: datetime, side: bool, model: str, mid: str,
           part: dict[str, Any]) -> list[AssistantEvent]:
    """A text part of a reply; none when empty or the client's own (`synthetic`)."""
    text = part.get("text")
    if not isinstance(text, str) or not text.strip() or part.get("synthetic"):
        return []
    return [AssistantEvent(meta=chain.meta(key, at, sidechain=side), model=model, text=text,
                           blocks=(TextBlock(text),), message_id=mid)]


def _call(chain: Chain, key: str, at: datetime, side: bool, model: str, mid: str, call_id: str,
          name: str, args: object, status: object, output: object, error: object,
          done: datetime | None, *, inherited: bool = False) -> list[Any]:
    use = AssistantEvent(
        meta=chain.meta(key, at, sidechain=side), model=model, message_id=mid,
        blocks=(ToolUseBlock(id=call_id, name=name,
                             input=args if isinstance(args, dict) else {}),))
    if status == "completed":
        block = ToolResultBlock(tool_use_id=call_id, content=json_text(output))
    elif status == "error":
        block = _failure(call_id, json_text(error), unattended=chain.entrypoint == RUN_ENTRYPOINT,
                         inherited=inherited)
    else:
        return [use]
    return [use, UserEvent(meta=chain.meta(f"{key}:result", done or at, sidechain=side),
                           blocks=(block,))]


def _failure(call_id: str, text: str, *, unattended: bool, inherited: bool) -> ToolResultBlock:
    if text.startswith(REJECTED):
        if FEEDBACK not in text and unattended:
            # `opencode run` rejects every ask itself: no person was asked.
            return refused(call_id, text)
        reason = text.split(FEEDBACK, 1)[1] if FEEDBACK in text else None
        return declined(call_id, None if inherited else reason)
    if text.startswith(RULE_REFUSED):
        return refused(call_id, text)
    return ToolResultBlock(tool_use_id=call_id, content=text, is_error=True)


def _entry(chain: Chain, record: dict[str, Any], side: bool, clock: datetime | None,
           born: datetime | None) -> list[Any]:
    """A 2.x `session_message` entry (one created before its session: a fork's copy)."""
    data = as_dict(record.get("data"))
    at = timestamp(record.get("time")) or _time(data.get("time"), clock)
    if at is None:
        return []
    if born is not None and at < born:
        return _copied(_entry_events(chain, record, data, side, at, inherited=True))
    return _entry_events(chain, record, data, side, at, inherited=False)


def _entry_events(chain: Chain, record: dict[str, Any], data: dict[str, Any], side: bool,
                  at: datetime, *, inherited: bool) -> list[Any]:
    eid = str(record.get("id") or "")
    kind = record.get("type")
    if kind == "user":
        text = as_str(data.get("text"))
        return [_user(chain, eid, at, [text], side, context=inherited)]
    if kind in ("synthetic", "compaction"):
        text = data.get("text", data.get("summary", ""))
        return [_user(chain, eid, at, [text if isinstance(text, str) else ""], side,
                      context=True)]
    if kind == "shell":
        command = as_str(data.get("command"))
        return _call(chain, eid, at, side, "opencode", eid, str(data.get("callID") or eid),
                     "bash", {"command": command}, "completed", data.get("output"), None,
                     _time(data.get("time"), at))
    if kind != "assistant":
        return [lazy(f"opencode.{kind}", record)]
    model_ref = data.get("model")
    model = str(model_ref.get("id") or "opencode") if isinstance(model_ref, dict) else "opencode"
    out: list[Any] = []
    for i, item in enumerate(data.get("content") or ()):
        if not isinstance(item, dict):
            continue
        key = f"{eid}:{item.get('id') or i}"
        if item.get("type") == "text":
            out += _reply(chain, key, at, side, model, eid, item)
        elif item.get("type") == "tool":
            state = as_dict(item.get("state"))
            content = state.get("content")
            text = "\n".join(json_text(c.get("text", c)) for c in content
                             if isinstance(c, dict)) if isinstance(content, list) else ""
            error = state.get("error")
            message = error.get("message", error) if isinstance(error, dict) else error
            out += _call(chain, key, at, side, model, eid, str(item.get("id") or key),
                         str(item.get("name") or ""), state.get("input"), state.get("status"),
                         text, message if message is not None else text,
                         _time(item.get("time"), at), inherited=inherited)
    error = data.get("error")
    if isinstance(error, dict) and "abort" in json_text(error).casefold():
        out.append(UserEvent(meta=chain.meta(f"{eid}:abort", at, sidechain=side),
                             interrupted=True))
    return out


# What the first builds wrote in place of a `synthetic` flag (none then): an `@file`'s
# contents, read in as text of the person's own message.
_READ_IN: Final = "Called the Read tool"


def _first_builds(info: dict[str, Any], parts: list[dict[str, Any]]
                  ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A message of the first builds (`project_storage`: parts held in the message, its
    facts under `metadata`) in the shape of the later ones."""
    meta = as_dict(info.get("metadata"))
    assistant = as_dict(meta.get("assistant"))
    tools = as_dict(meta.get("tool"))
    shaped = {"role": info.get("role"), "time": meta.get("time"), "error": meta.get("error"),
              "modelID": assistant.get("modelID"), "path": assistant.get("path")}
    out: list[dict[str, Any]] = []
    for i, part in enumerate(parts):
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            read_in = isinstance(text, str) and text.startswith(_READ_IN)
            out.append({"id": str(i), **part, "synthetic": bool(part.get("synthetic")) or read_in})
        elif kind == "tool-invocation":
            call = as_dict(part.get("toolInvocation"))
            call_id = as_str(call.get("toolCallId"), str(i))
            facts = as_dict(tools.get(call_id))
            done = call.get("state") == "result"
            failed = done and bool(facts.get("error"))
            out.append({"id": str(i), "type": "tool", "callID": call_id,
                        "tool": as_str(call.get("toolName")),
                        "state": {"status": "error" if failed else
                                  "completed" if done else "running",
                                  "input": call.get("args"), "output": call.get("result"),
                                  "error": call.get("result") if failed else None,
                                  "time": facts.get("time")}})
        else:
            out.append({"id": str(i), **part})
    return shaped, out
