"""A Gemini CLI chats file, in either era's shape, read into one conversation.

Shapes studied in google-gemini/gemini-cli (`chatRecordingService.ts`,
`chatRecordingTypes.ts`) and in public session files, 2025-2026:

- JSON era (to about 0.38): `~/.gemini/tmp/<project>/chats/session-<ts>-<id8>.json`
  holds one `ConversationRecord`, rewritten whole on every change:
  `{sessionId, projectHash, startTime, lastUpdated, messages: [...], summary?}`.
- JSONL era (about 0.39 on): `session-<ts>-<id8>.jsonl` is appended to. The first line is
  the metadata (`{sessionId, projectHash, startTime, lastUpdated, kind?,
  directories?}`); then message records (`{id, timestamp, type, content,
  displayContent?, toolCalls?, thoughts?, tokens?, model?}`), where a message
  updated later (its tool calls finished, its tokens arrived) is appended again
  under the same id and the last copy wins in the first copy's place;
  `{"$set": {...}}` metadata updates (a `messages` list there replaces the
  conversation the model sees, holding synthetic turns no line has); and
  `{"$rewindTo": id}`, which drops that message and everything after it.
  Every session opens with a `$set.messages` of its `<session_context>` turn.
  A JSON session resumed by a JSONL client is copied into a new `.jsonl` file
  with the same session id (the old file stays: discovery keeps the newer).
- A history the client sets again (`setHistory`: every tool call of a turn cancelled,
  `/chat resume <tag>` loading a saved one) is written again: each turn with no id
  becomes a new line (a new id, one timestamp for the whole burst, no
  `displayContent`), then a `$set.messages` naming them. Those lines are a replay,
  never turns typed there (`_replayed`).
- Subagents (`kind: "subagent"`) write `chats/<parent session id>/<id>.jsonl`.

Message types: `user` (the person's turn; `displayContent` is what they typed
when `content` holds an expansion), `gemini` (the model's reply with its tool
calls and their results), `info` / `warning` / `error` (the client's notes).
A rewound message stays evidence of what the person typed, off the active
branch, exactly like a rewound Claude Code branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.claude.decode import SKIP_TOO_DEEP
from learn.transcripts.mend import decoded

__all__ = ["Conversation", "Message", "is_gemini", "read_conversation"]

_ANY = msgspec.json.Decoder()
# A head this long holds the metadata line (or the legacy object's first keys).
_SNIFF_BYTES = 8192


class Message(msgspec.Struct):
    record: dict[str, Any]
    order: int  # where it first appeared (a re-appended message keeps its place)
    parent: str | None  # the message before it on the chain when it was written
    # False: known only from a `$set.messages` list, or written as a replay of one
    # (`_replayed`): context, never a typed turn.
    appended: bool = True


class Conversation(msgspec.Struct):
    meta: dict[str, Any] = msgspec.field(default_factory=dict)
    messages: list[Message] = msgspec.field(default_factory=list)
    # Ids still on the chain after every rewind: the active branch.
    chain: list[str] = msgspec.field(default_factory=list)
    skipped: dict[str, int] = msgspec.field(default_factory=dict)


def is_gemini(buf: bytes, path: Path | None = None) -> bool:
    """Whether a buffer is a Gemini CLI chats file (either era), from its head."""
    # Searched in place: every file a listing reads is asked this (no copy of its head).
    if (buf.find(b'"projectHash"', 0, _SNIFF_BYTES) < 0
            or buf.find(b'"sessionId"', 0, _SNIFF_BYTES) < 0):
        return False
    return buf[:_SNIFF_BYTES].lstrip()[:1] == b"{"


def read_conversation(buf: bytes) -> Conversation:
    """The conversation a chats file holds; bad lines counted, never raised."""
    legacy = _legacy(buf)
    if legacy is not None:
        return legacy
    conv = Conversation()
    by_id: dict[str, Message] = {}
    set_messages: list[Any] | None = None
    # The new messages written since the last record that was neither a message nor a
    # `lastUpdated` stamp: the burst a `$set.messages` may close (`_replayed`).
    burst: list[Message] = []
    for lineno, line in enumerate(buf.split(b"\n")):
        if not line.strip():
            continue
        try:
            record = decoded(_ANY.decode, line)
        except msgspec.DecodeError:
            _skip(conv, "undecodable")
            continue
        except RecursionError:  # msgspec's limit is the stack's: ~1,000 levels
            _skip(conv, SKIP_TOO_DEEP)
            continue
        if not isinstance(record, dict):
            _skip(conv, "not_object")
            continue
        rewind = record.get("$rewindTo")
        update = record.get("$set")
        closing = burst
        if not (isinstance(record.get("id"), str)
                or (isinstance(update, dict) and set(update) <= {"lastUpdated"})):
            burst = []  # anything else ends it: a replay is messages, then their list
        if isinstance(rewind, str):
            if rewind in conv.chain:
                del conv.chain[conv.chain.index(rewind):]
            else:
                conv.chain.clear()  # what the client does with an unknown id
            continue
        if isinstance(record.get("id"), str):
            mid = record["id"]
            known = by_id.get(mid)
            if known is not None:
                known.record = record  # the re-appended copy wins, in place
                burst = []  # a message finishing (its tool calls, its tokens): no replay
            else:
                msg = Message(record, lineno, conv.chain[-1] if conv.chain else None)
                by_id[mid] = msg
                conv.messages.append(msg)
                burst.append(msg)
            if mid not in conv.chain:
                conv.chain.append(mid)
            continue
        if isinstance(update, dict):
            if isinstance(update.get("messages"), list):
                set_messages = update["messages"]
                _replayed(closing, set_messages)
            conv.meta.update({k: v for k, v in update.items() if k != "messages"})
            continue
        if isinstance(record.get("sessionId"), str):
            conv.meta.update(record)  # the metadata line
            continue
        _skip(conv, "invalid")
    if set_messages is not None:
        _synthetic(conv, by_id, set_messages)
    return conv


def _legacy(buf: bytes) -> Conversation | None:
    """The JSON era's one object, or None when the buffer is not one."""
    start = buf.lstrip()[:1]
    if start != b"{":
        return None
    # Mended (transcripts.mend): this era's file is one object, and one half of a
    # surrogate pair in it (a text cut mid-emoji) lost the whole session.
    try:
        record = decoded(_ANY.decode, buf)
    except msgspec.DecodeError:
        return None
    except RecursionError:
        # The JSON era's object is pretty-printed, its first line a lone "{" (no
        # JSONL line is): that whole file is one record too deep to read. Otherwise
        # it is a JSONL file whose first line is the deep one, read line by line.
        if buf.lstrip().split(b"\n", 1)[0].strip() == b"{":
            return Conversation(skipped={SKIP_TOO_DEEP: 1})
        return None
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        return None
    conv = Conversation(meta={k: v for k, v in record.items() if k != "messages"})
    for i, item in enumerate(record["messages"]):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            _skip(conv, "invalid")
            continue
        conv.messages.append(Message(item, i, conv.chain[-1] if conv.chain else None))
        conv.chain.append(item["id"])
    return conv


def _replayed(burst: list[Message], listed: list[Any]) -> None:
    """Mark the messages a `$set.messages` list closes a replay of: not typed there.

    `setHistory` writes each turn of the history it sets that has no id as a new line,
    all at one timestamp, then the list naming them (0.61: after Esc at an approval
    prompt the session's earlier turns came back under 6 new ids, a custom command as
    its expanded body; `/chat resume` brought another session's prompts in, counted as
    typed in both). The replay is the run of new lines right before the list, each named
    by it, all at the last one's timestamp. A typed turn is never one: it is written when
    sent, at its own time, and a list naming it names it later (an Esc while the model
    answers lists the earlier turns after the "Request cancelled." note) or beside the
    reply written after it, at another time, where the run stops. A turn typed again is
    a new line after the list, and counts.
    """
    named = {item["id"] for item in listed
             if isinstance(item, dict) and isinstance(item.get("id"), str)}
    stamp = burst[-1].record.get("timestamp") if burst else None
    for msg in reversed(burst):
        if msg.record["id"] not in named or msg.record.get("timestamp") != stamp:
            break
        msg.appended = False


def _synthetic(conv: Conversation, by_id: dict[str, Message], listed: list[Any]) -> None:
    """Turns only a `$set.messages` list holds (a summary the client made): context, never typed."""
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        if item["id"] in by_id:
            continue
        msg = Message(item, len(conv.messages) + 1_000_000, conv.chain[-1] if conv.chain else None,
                      appended=False)
        by_id[item["id"]] = msg
        conv.messages.append(msg)
        conv.chain.append(item["id"])


def _skip(conv: Conversation, reason: str) -> None:
    conv.skipped[reason] = conv.skipped.get(reason, 0) + 1
