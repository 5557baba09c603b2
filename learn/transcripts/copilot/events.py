"""A Copilot CLI `events.jsonl` stream as events: typed turns, replies, tool calls, results.

Shapes studied in github/copilot-sdk (`session-events.schema.json`, generated
`session-events.ts`) and public session files, Copilot CLI 0.0.3xx-1.0.x. Every
line is `{type, data, id, timestamp, parentId}` (`agentId` on a sub-agent's
events; `ephemeral` events are never written):

- `session.start` / `session.resume`: `data.sessionId`, `data.copilotVersion`,
  `data.context.cwd` (0.0.4xx on; earlier files say the cwd only in the
  session folder's `workspace.yaml`, see `places`).
- `user.message`: `data.content` is what the person typed as the timeline shows
  it; `data.transformedContent` is the prompt sent, with the client's additions
  (dates, reminders), never read here. A session VS Code runs writes the prompt
  VS Code built into `content` (`<reminder>`, `<attachments>`, `<userRequest>`):
  the typed part is `vscode_prompt.typed_of`'s. `data.source` names a machine origin (a
  skill's hidden injection, `agent-<id>`, a schedule): not typed.
  `isAutopilotContinuation` turns and `crossSession` relays are not typed either.
- `assistant.message`: `content`, `toolRequests` (`toolCallId`, `name`,
  `arguments`); `tool.execution_start` names a call too (older files have no
  `toolRequests`); `tool.execution_complete`: `success`, `result.content`,
  `error.message`.
- `abort`: the person stopped the turn.
- `permission.completed`: `toolCallId`, `result.kind`. `denied-interactively-by-user` is
  the person declining the call (what they want instead, if anything, is their next
  `user.message`); `denied-by-rules`, `denied-by-policy`, `denied-no-approval-rule-...`,
  `denied-by-content-exclusion-policy` and `denied-by-permission-request-hook` are a
  rule's refusal. The call's result is that decision in the event model's one shape
  (`lowering.denial_content`), whether or not a `tool.execution_complete` follows it.
  A `--deny-tool` rule writes no permission event at all: only a failed
  `tool.execution_complete` with `error.code` "denied" (1.0.102, driven for real):
  a rule's refusal too, not a failure. (The person's decline is `code` "rejected",
  after its `permission.completed`.)
- `system.message`: the system prompt. A `copilot -p` session's says "You are
  running in non-interactive mode" (not an interactive or ACP session's, 1.0.102):
  the session is headless (entrypoint "copilot-prompt", `view.origin`). It is written
  after the first `user.message`, so the stream is searched for it first.

A sub-agent's events (`agentId`, or the deprecated `parentToolCallId`) are a
sidechain: their prompts were written by the orchestrating agent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec

from learn.transcripts.blocks import ContentBlock, TextBlock, ToolResultBlock, ToolUseBlock
from learn.transcripts.claude.decode import SKIP_TOO_DEEP
from learn.transcripts.claude.literals import (
    AGENT_INJECTION_RE,
)
from learn.transcripts.copilot.places import session_id_of, workspace_cwd
from learn.transcripts.copilot.vscode_prompt import typed_of
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

__all__ = ["is_copilot", "lower"]

_ANY = msgspec.json.Decoder()
# `data.source` values that are still the person at the prompt.
_HUMAN_SOURCES: Final = frozenset({"user", "human", "cli", "interactive"})


class _Line(msgspec.Struct, gc=False):
    type: str
    data: Any = None
    id: Any = None
    timestamp: Any = None
    parentId: Any = None
    agentId: Any = None


_LINE = msgspec.json.Decoder(_Line)
_USER_DECLINED: Final = "denied-interactively-by-user"
# A call a `--deny-tool` rule refused, with no permission event (`error.code`).
_RULE_DENIED_CODE: Final = "denied"
# What `copilot -p`'s system prompt says, and the entrypoint it gives the session.
NON_INTERACTIVE: Final = b"You are running in non-interactive mode"
PROMPT_ENTRYPOINT: Final = "copilot-prompt"


# Lines looked at to tell a Copilot stream: its first line that decodes decides. A
# first line cut or nested too deep made a whole Copilot session read as a Claude
# transcript with no turns.
_SNIFF_LINES = 4


def is_copilot(buf: bytes, path: Path | None = None) -> bool:
    """Whether a buffer is a Copilot CLI event stream, from its first line that decodes
    (of the first few)."""
    at = 0
    size = len(buf)
    for _ in range(_SNIFF_LINES):
        end = buf.find(b"\n", at)
        stop = size if end < 0 else end
        # The line's bounds less the blanks `bytes.strip` takes, found in place: every
        # file a listing reads is asked this, and a Claude Code file's first line can be
        # a 40 kB generated prompt (copied and stripped, twice over with is_codex's,
        # 0.8% of a first listing of the tree bench home, py-spy).
        first, last = at, stop
        while first < last and buf[first] in _BLANKS:
            first += 1
        while last > first and buf[last - 1] in _BLANKS:
            last -= 1
        if first < last:
            verdict = _copilot_line(buf, first, last)
            if verdict is not None:
                return verdict
        if end < 0:
            return False
        at = end + 1
    return False


# What `bytes.strip()` takes from a line's ends (ASCII whitespace).
_BLANKS: Final = b" \t\n\r\x0b\x0c"


def _copilot_line(buf: bytes, start: int, end: int) -> bool | None:
    """Whether the line `buf[start:end]` (no blank at either end) is a Copilot event;
    None when it is no whole JSON object (cut, nested too deep), and the next line
    decides. Every Claude Code file is asked this of its first line: it says no from
    the markers alone, as before, and the line is copied only to be decoded."""
    if not (buf.startswith(b"{", start) and buf.endswith(b"}", start, end)) or buf.find(
            b'"type"', start, end) < 0:
        return None  # every line of every client this could be names a type
    if buf.find(b'"data"', start, end) < 0:
        return False
    try:
        line = _LINE.decode(buf[start:end])
    except msgspec.ValidationError:
        return False
    except (msgspec.DecodeError, RecursionError):
        return None
    return "." in line.type and isinstance(line.data, dict) and line.timestamp is not None


def lower(buf: bytes, *, path: Path | None = None, drop: FilterSpec | None = None) -> Lowered:
    chain = Chain(path)
    if path is not None:
        chain.session_id = session_id_of(path)
        # Early builds name no cwd in `session.start`; the folder's workspace.yaml does.
        chain.cwd = workspace_cwd(path.parent / "workspace.yaml") \
            if path.name == "events.jsonl" else None
    if _non_interactive(buf):
        chain.entrypoint = PROMPT_ENTRYPOINT
    events: list[Any] = []
    skipped: dict[str, int] = {}
    seen_calls: set[str] = set()
    denied, completed = _decisions(buf)
    for lineno, raw in enumerate(buf.split(b"\n")):
        if not raw.strip():
            continue
        try:
            line = decoded(_LINE.decode, raw)  # transcripts.mend: a JavaScript client's JSON
        except msgspec.ValidationError:
            _skip(skipped, "invalid")
            continue
        except msgspec.DecodeError:
            _skip(skipped, "undecodable")
            continue
        except RecursionError:  # msgspec's limit is the stack's: ~1,000 levels
            _skip(skipped, SKIP_TOO_DEEP)
            continue
        data = line.data if isinstance(line.data, dict) else {}
        at = timestamp(line.timestamp)
        if at is None:
            _skip(skipped, "invalid")
            continue
        key = line.id if isinstance(line.id, str) and line.id else str(lineno)
        side = bool(line.agentId) or bool(data.get("parentToolCallId"))
        if line.type == "permission.completed":
            event = _declined(chain, data, key, at, side, denied, completed)
        else:
            event = _event(chain, line.type, data, key, at, side, seen_calls, denied)
        if event is None:
            event = lazy(line.type, raw)
        if not dropped(event, drop):
            events.append(event)
    return events, skipped


def _lines_naming(buf: bytes, *words: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    """(type, data) of each line that holds one of `words`, read ahead of the lowering
    (what a later line says of an earlier one); a line that does not decode is left to
    `lower`, which counts it."""
    for raw in buf.split(b"\n"):
        if not any(word in raw for word in words):
            continue
        try:
            line = _LINE.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            continue
        yield line.type, line.data if isinstance(line.data, dict) else {}


def _non_interactive(buf: bytes) -> bool:
    """Whether a `system.message` says the session runs non-interactively (`copilot -p`)."""
    if NON_INTERACTIVE not in buf:
        return False
    for kind, data in _lines_naming(buf, NON_INTERACTIVE):
        content = data.get("content")
        if kind == "system.message" and isinstance(content, str) \
                and NON_INTERACTIVE.decode() in content:
            return True
    return False


def _decisions(buf: bytes) -> tuple[dict[str, str], set[str]]:
    """The calls a permission decision declined (id -> `result.kind`) and the calls that
    have a `tool.execution_complete`, from the lines that name them (either may come
    first)."""
    denied: dict[str, str] = {}
    completed: set[str] = set()
    if b"permission.completed" not in buf:
        return denied, completed
    for kind, data in _lines_naming(buf, b"permission.completed", b"tool.execution_complete"):
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str):
            continue
        if kind == "tool.execution_complete":
            completed.add(call_id)
        elif kind == "permission.completed":
            result = as_dict(data.get("result"))
            decided = result.get("kind", data.get("kind"))
            if isinstance(decided, str) and decided.startswith("denied"):
                denied[call_id] = decided
    return denied, completed


def _declined(chain: Chain, data: dict[str, Any], key: str, at: Any, side: bool,
              denied: dict[str, str], completed: set[str]) -> Any:
    """A declined call's result, here when no `tool.execution_complete` will say it."""
    call_id = data.get("toolCallId")
    if not isinstance(call_id, str) or call_id not in denied or call_id in completed:
        return None
    return UserEvent(meta=chain.meta(key, at, sidechain=side),
                     blocks=(_denial(call_id, denied[call_id], None),))


def _denial(call_id: str, kind: str, message: object) -> ToolResultBlock:
    if kind == _USER_DECLINED:
        return declined(call_id)
    return refused(call_id, as_str(message) or f"Permission {kind}.")


def _event(chain: Chain, kind: str, data: dict[str, Any], key: str, at: Any, side: bool,
           seen_calls: set[str], denied: dict[str, str]) -> Any:
    if kind in ("session.start", "session.resume", "session.context_changed"):
        sid, version = data.get("sessionId"), data.get("copilotVersion")
        if isinstance(sid, str) and sid:
            chain.session_id = sid
        if isinstance(version, str) and version:
            chain.version = version
        context = as_dict(data.get("context")) or data
        cwd = context.get("cwd")
        if isinstance(cwd, str) and cwd:
            chain.cwd = cwd
        return None
    if kind == "user.message":
        text = typed_of(as_str(data.get("content")))
        source = data.get("source")
        machine = (
            (isinstance(source, str) and source.casefold() not in _HUMAN_SOURCES)
            or bool(data.get("isAutopilotContinuation"))
        )
        relayed = data.get("crossSession") is not None or AGENT_INJECTION_RE.match(text) is not None
        return UserEvent(meta=chain.meta(key, at, sidechain=side, is_meta=machine), text=text,
                         blocks=(TextBlock(text),) if text else (), is_agent_injected=relayed,
                         prompt_source="typed")
    if kind == "assistant.message":
        text = as_str(data.get("content"))
        blocks: list[ContentBlock] = [TextBlock(text)] if text.strip() else []
        for request in data.get("toolRequests") or ():
            if isinstance(request, dict) and isinstance(request.get("toolCallId"), str):
                seen_calls.add(request["toolCallId"])
                blocks.append(_use(request["toolCallId"], request.get("name"),
                                   request.get("arguments")))
        if not blocks:
            return None
        mid = data.get("messageId")
        return AssistantEvent(meta=chain.meta(key, at, sidechain=side), model="copilot", text=text,
                              blocks=tuple(blocks), message_id=mid if isinstance(mid, str) else None)
    if kind == "tool.execution_start":
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str) or call_id in seen_calls:
            return None
        seen_calls.add(call_id)
        return AssistantEvent(meta=chain.meta(key, at, sidechain=side), model="copilot",
                              blocks=(_use(call_id, data.get("toolName"), data.get("arguments")),))
    if kind == "tool.execution_complete":
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str):
            return None
        ok = data.get("success") is not False
        result = as_dict(data.get("result"))
        error = as_dict(data.get("error"))
        if call_id in denied:
            return UserEvent(meta=chain.meta(key, at, sidechain=side), blocks=(
                _denial(call_id, denied[call_id], error.get("message")),))
        if not ok and error.get("code") == _RULE_DENIED_CODE:
            # A `--deny-tool` rule: no permission event, and no person asked.
            return UserEvent(meta=chain.meta(key, at, sidechain=side), blocks=(
                refused(call_id, as_str(error.get("message")) or "Permission denied by a rule."),))
        content = result.get("content") if ok else error.get("message", result.get("content"))
        return UserEvent(meta=chain.meta(key, at, sidechain=side), blocks=(
            ToolResultBlock(tool_use_id=call_id, content=json_text(content), is_error=not ok),))
    if kind == "abort":
        return UserEvent(meta=chain.meta(key, at, sidechain=side), interrupted=True)
    return None


def _use(call_id: str, name: object, arguments: object) -> ToolUseBlock:
    if isinstance(arguments, str):
        try:
            arguments = _ANY.decode(arguments)
        except (msgspec.DecodeError, RecursionError):
            arguments = {"input": arguments}
    args = arguments if isinstance(arguments, dict) else ({} if arguments is None else
                                                          {"input": arguments})
    return ToolUseBlock(id=call_id, name=name if isinstance(name, str) else "", input=args)


def _skip(skipped: dict[str, int], reason: str) -> None:
    skipped[reason] = skipped.get(reason, 0) + 1
