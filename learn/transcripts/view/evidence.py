"""The evidence of a session: every turn the person typed, wherever it sits.

Typed turns are collected from the whole file, not only the active branch,
because that is where corrections hide: the prompt typed before rewinding, the
turns before a 1.0.x compaction (one real session showed 1 of 9), a message
queued while a tool ran and surfaced only inside a tool result, a `/btw` side
question that lives in its own file. The same text twice in one session is one
turn (a client that rewrote the conversation under new uuids, an enqueue and
the prompt it became), and the copy on the active branch is the one kept.

`TypedReader.typed` is the one place where user text becomes a human turn's
text; it asks `typed.typed_blocks` (one message's text blocks through
`typed_text`), which decides what of a user text was typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final

from learn.textfold import fold
from learn.transcripts.blocks import TextBlock
from learn.transcripts.models import (
    AssistantEvent,
    OtherEvent,
    Transcript,
    TranscriptEvent,
    UserEvent,
)
from learn.transcripts.view.model import HumanTurn
from learn.transcripts.view.relayed import strip_relayed
from learn.transcripts.view.typed import AssistantText, Typed, strip_pasted_output, typed_blocks

QUEUE_OPERATION: Final = "queue-operation"
# The reminder Claude Code wraps a `/btw` question in before the question itself;
# the same opening sentence since 2.1.2x.
SIDE_QUESTION_MARKER: Final = "This is a side question from the user"
# A queued `/command` is run as a command later, with its own record on the chain.
_QUEUED_COMMAND_RE: Final = re.compile(r"\A\s*/[\w:.-]+(?:\s|\Z)")


class TypedReader:
    """What the person typed in a user message, with the session's context so far.

    Fed the file in order (`saw`), so a turn is checked against the assistant
    text written before it: lines of that pasted back are not typed.
    """

    def __init__(self, fingerprints: Sequence[str], provider: str) -> None:
        self._fingerprints = fingerprints
        self._provider = provider
        self._assistant_texts = AssistantText()

    def saw(self, event: AssistantEvent, texts: Sequence[str] | None = None) -> None:
        """Take in an assistant message (`texts`: its text blocks, when the caller has them)."""
        if event.meta.is_sidechain:
            return
        said = [b.text for b in event.blocks if isinstance(b, TextBlock)] if texts is None else texts
        if said:
            self._assistant_texts.extend(said)  # AssistantText.add is append
        elif event.text:
            self._assistant_texts.append(event.text)

    def without_agent_text(self, text: str) -> str:
        """`text` from a slot that is not a prompt (a rejection reason, a free-form
        answer) without the agent output pasted into it: terminal lines, lines of the
        assistant's earlier messages, another agent's report."""
        return strip_relayed(strip_pasted_output(text, self._assistant_texts))

    def typed(self, texts: Sequence[str]) -> Typed:
        """The typed words of one message's text blocks (`.text` "" when none)."""
        return typed_blocks(texts, fingerprints=self._fingerprints, provider=self._provider,
                            assistant_texts=self._assistant_texts)


# ---------------------------------------------------------------- queue-operation


def enqueued_prompt(event: TranscriptEvent) -> tuple[str, datetime | None] | None:
    """(text, at) of a `queue-operation` enqueue: a prompt typed while the agent was busy.

    It is written when the person presses enter, before anything else happens
    to it: it may be folded into the chain later (a queued_command attachment
    or a user line, then this copy is the same text and is merged away), shown
    to the model only inside a tool result ("The user sent a new message while
    you were working"), or cancelled. Task notifications ride the same queue and
    are dropped by the text rules; a queued `/command` is recorded when it runs.
    """
    if not isinstance(event, OtherEvent) or event.type != QUEUE_OPERATION:
        return None
    raw = event.raw
    if raw.get("operation") != "enqueue":
        return None
    text = _content_text(raw.get("content"))
    if not text.strip() or _QUEUED_COMMAND_RE.match(text):
        return None
    return text, _parse_time(raw.get("timestamp"))


def dequeued(events: Sequence[TranscriptEvent], indices: Iterable[int] | None = None) -> set[int]:
    """Indices of the enqueues a later `dequeue` took off the queue, first in first out.

    A dequeued prompt is sent as an ordinary user line on the chain, which is
    the copy to read (the enqueue can hold a paste placeholder where the line
    holds the paste). What a `remove` or `popAll` ends is read from the enqueue:
    it reached the model inside a tool result or an attachment, or was pulled
    back to be edited, and either way it was typed. `indices`: where the
    `queue-operation` lines are, when the caller found them (the rest are not read).
    """
    pending: list[int] = []
    taken: set[int] = set()
    for index in range(len(events)) if indices is None else indices:
        event = events[index]
        if type(event) is not OtherEvent or event.type != QUEUE_OPERATION:
            continue
        operation = event.raw.get("operation")
        if operation == "enqueue":
            pending.append(index)
        elif operation == "dequeue" and pending:
            taken.add(pending.pop(0))
        elif operation == "popAll":
            pending.clear()
        elif operation == "remove" and pending:
            pending.pop(0)
    return taken


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, Mapping) and b.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


# ---------------------------------------------------------------- /btw side questions


def aside_turns(asides: Sequence[Transcript], reader: TypedReader) -> list[HumanTurn]:
    """The side questions asked with `/btw`, from `agent-aside_question-*.jsonl` files.

    Such a file replays the parent conversation (already the parent's evidence)
    and, in newer builds, earlier side questions, then the new question wrapped
    in a `<system-reminder>` that opens with `SIDE_QUESTION_MARKER`. Only that
    wrapped line is the person's: the reminder is dropped, the question kept.
    """
    out: list[HumanTurn] = []
    for transcript in asides:
        for index, event in enumerate(transcript.events):
            if not isinstance(event, UserEvent):
                continue
            texts = [b.text for b in event.blocks if isinstance(b, TextBlock)] or [event.text]
            for raw in texts:
                if SIDE_QUESTION_MARKER not in raw:
                    continue
                typed = reader.typed([raw])
                if typed.text:
                    out.append(HumanTurn(text=typed.text, origin="aside", at=event.meta.timestamp,
                                         event_index=index, uuid=event.meta.uuid or None,
                                         command=typed.command, on_branch=False))
    return out


# ---------------------------------------------------------------- one turn per text


def text_key(text: str) -> str:
    """Whitespace and case aside: what makes two typed turns the same turn."""
    # learn.textfold.fold is this (`\s` and str.split() agree on every code point).
    return fold(text)


def text_ends(text: str) -> tuple[str, str]:
    """The first and last words of `text`, casefolded: two texts of one `text_key` have
    the same ends. `text_key` is the text's words casefolded one by one and joined by a
    space, and no casefold is empty or holds whitespace (tests/test_view_prechecks.py
    checks every code point), so the key's first and last words are these. Read at the
    text's ends, with no fold of the whole text."""
    head = text.split(None, 1)
    if not head:
        return "", ""
    return head[0].casefold(), text.rsplit(None, 1)[-1].casefold()


def one_per_text(turns: Sequence[HumanTurn]) -> list[HumanTurn]:
    """`turns` with each text once: the first copy on the active branch, else the first copy."""
    if len(turns) < 2:
        # Nothing to merge: no text is folded (a memory plugin's observer session is one
        # turn, a generated prompt of ~14 KB).
        return list(turns)
    # Only texts with the same ends can be one text: the others are never folded
    # (callgrind: building the views of the spread and tree bench homes, 250 sessions
    # each, took 0.978x and 0.977x the instructions; a typed turn is often long).
    by_ends: dict[tuple[str, str], list[HumanTurn]] = {}
    for turn in turns:
        ends = text_ends(turn.text)
        alike = by_ends.get(ends)
        if alike is None:
            by_ends[ends] = [turn]
        else:
            alike.append(turn)
    if len(by_ends) == len(turns):
        return list(turns)
    chosen: dict[str, HumanTurn] = {}
    for alike in by_ends.values():
        if len(alike) < 2:
            continue
        for turn in alike:
            key = text_key(turn.text)
            held = chosen.get(key)
            if held is None or (turn.on_branch and not held.on_branch):
                chosen[key] = turn
    dropped = {id(t) for alike in by_ends.values() if len(alike) > 1 for t in alike}
    dropped.difference_update(id(t) for t in chosen.values())
    if not dropped:
        return list(turns)
    return [t for t in turns if id(t) not in dropped]
