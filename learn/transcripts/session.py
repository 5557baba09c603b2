"""Build the session view: the active branch, what the person typed, what ran.

A transcript file is not a conversation. It is a DAG of entries (rewinds leave
dead branches in the file, compaction starts new roots), and its user slot holds
harness echoes, hook output and other agents' words next to what the person
typed. `build_session` reduces it to the shape everything downstream reads
(`learn.transcripts.view.Session`): the active branch only, human turns decided
by `exclusions`, tool calls, failures, denials with the reason the user typed,
and interrupts.

Human turns also come from places that are not prompts, because that is where
corrections live: the reason typed when rejecting a tool call, a free-form
answer to AskUserQuestion, and a prompt queued while the agent was busy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from learn.transcripts.exclusions import entry_exclusion
from learn.transcripts.literals import (
    ANSWER_NO_OPTION,
    ANSWER_NOTES_SEPARATOR,
    ANSWER_PREVIEW_SEPARATOR,
    ANSWERED_PREFIX,
    ANSWERED_TRAILER,
    ASK_USER_QUESTION,
    CLARIFY_QUESTIONS_TEXT,
    DENIAL_KIND_USER_REJECTED,
    denial_reason,
    is_interrupt_text,
)
from learn.transcripts.models import (
    AssistantEvent,
    AttachmentEvent,
    CompactBoundary,
    ModeEvent,
    OtherEvent,
    QueuedCommand,
    SystemEvent,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Transcript,
    TranscriptEvent,
    UserEvent,
)
from learn.transcripts.typed import AssistantText, Typed, typed_blocks
from learn.transcripts.view import (
    Denial,
    HumanOrigin,
    HumanTurn,
    Interrupt,
    Session,
    TimelineItem,
    ToolCall,
    ToolFailure,
)

if TYPE_CHECKING:
    from learn.transcripts.discover import SessionFile
    from learn.transcripts.replay import FingerprintCache

# Failed tool output is evidence for a fix, but a stack trace is mostly noise
# after the first screen; hoocode's TOOL_ERROR_CHARS.
FAILURE_EXCERPT_CHARS: Final = 1500
_SUMMARY_CHARS: Final = 200
_SUMMARY_VALUE_CHARS: Final = 60
_SHELLS: Final = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})
_WS_RE: Final = re.compile(r"\s+")


def build_session(
    transcript: Transcript,
    *,
    fingerprints: Sequence[str] = (),
    size_bytes: int = 0,
    subagent_paths: Sequence[Path] = (),
) -> Session:
    """The session view of one parsed transcript (Claude Code or Codex)."""
    events: list[TranscriptEvent] = list(transcript.events)
    branch = active_branch(events, flat=transcript.provider == "codex")

    # Tool names and AskUserQuestion options come from every event, not just the
    # branch: a result on the branch can answer a call the walk reached first.
    calls: dict[str, ToolUseBlock] = {}
    for event in events:
        if isinstance(event, AssistantEvent):
            for block in event.blocks:
                if isinstance(block, ToolUseBlock):
                    calls[block.id] = block

    builder = _Builder(calls, fingerprints, transcript.provider)
    for index in branch:
        builder.add(index, events[index])

    stamps = [t for t in (_timestamp(events[i]) for i in branch) if t is not None]
    return Session(
        id=_session_id(events, transcript.path),
        provider=transcript.provider,
        path=transcript.path,
        project=_project(events, branch),
        started_at=min(stamps) if stamps else None,
        last_activity=max(stamps) if stamps else None,
        timeline=tuple(builder.timeline),
        human_turns=tuple(builder.human),
        tool_calls=tuple(builder.calls),
        failures=tuple(builder.failures),
        denials=tuple(builder.denials),
        interrupts=tuple(builder.interrupts),
        turns=builder.turns,
        size_bytes=size_bytes or transcript.size_bytes,
        skipped_lines=transcript.skipped_lines,
        subagent_paths=tuple(subagent_paths),
    )


# ---------------------------------------------------------------- active branch


def _links(event: TranscriptEvent) -> tuple[str | None, str | None]:
    """(uuid, parent_uuid). `progress` and other untyped lines carry them in raw and
    sit inside the chain on 2.x builds; skipping them would break the walk."""
    if isinstance(event, ModeEvent):
        return None, None
    if isinstance(event, OtherEvent):
        uuid = event.raw.get("uuid")
        parent = event.raw.get("parentUuid")
        return (
            uuid if isinstance(uuid, str) and uuid else None,
            parent if isinstance(parent, str) and parent else None,
        )
    return event.meta.uuid or None, event.meta.parent_uuid or None


def _is_sidechain(event: TranscriptEvent) -> bool:
    if isinstance(event, ModeEvent | OtherEvent):
        return False
    return event.meta.is_sidechain


def active_branch(events: Sequence[TranscriptEvent], *, flat: bool = False) -> list[int]:
    """Indices of the entries on the active branch, in file order.

    Follow parent_uuid back from the last (non-sidechain) entry that has a uuid.
    A rewind appends a new branch that shares a parent with the abandoned one, so
    the abandoned turns are simply never reached. Compaction writes a
    compact_boundary with no parent; its logical_parent_uuid continues the walk so
    the turns before the compaction still count. A parent that is not in the file
    (a line the parser had to skip) falls back to the previous entry in file
    order rather than silently losing everything before it. Files with no links
    at all (legacy, and Codex, whose rollouts never branch) read flat.
    """
    links = [_links(e) for e in events]
    by_uuid: dict[str, int] = {}
    for i, (uuid, _) in enumerate(links):
        if uuid is not None:
            by_uuid[uuid] = i
    if flat or not by_uuid or not any(parent for _, parent in links):
        return list(range(len(events)))

    start = next(
        (i for i in range(len(events) - 1, -1, -1) if links[i][0] and not _is_sidechain(events[i])),
        None,
    )
    if start is None:
        start = max(by_uuid.values())

    visited: set[int] = set()
    current: int | None = start
    while current is not None and current not in visited:
        visited.add(current)
        parent = links[current][1]
        if parent is None:
            parent = _logical_parent(events[current])
            if parent is None:
                break
        nxt = by_uuid.get(parent)
        if nxt is None:
            nxt = next(
                (
                    j
                    for j in range(current - 1, -1, -1)
                    if links[j][0] and j not in visited and not _is_sidechain(events[j])
                ),
                None,
            )
        current = nxt
    return sorted(visited)


def _logical_parent(event: TranscriptEvent) -> str | None:
    if isinstance(event, SystemEvent) and isinstance(event.detail, CompactBoundary):
        return event.detail.logical_parent_uuid
    if isinstance(event, SystemEvent | OtherEvent):
        raw = getattr(event.detail, "raw", None) if isinstance(event, SystemEvent) else event.raw
        if isinstance(raw, Mapping):
            value = raw.get("logicalParentUuid")
            if isinstance(value, str) and value:
                return value
    return None


# ---------------------------------------------------------------- turns


class _Builder:
    def __init__(
        self, calls: Mapping[str, ToolUseBlock], fingerprints: Sequence[str], provider: str = "claude"
    ) -> None:
        self._tool_calls = calls
        self._fingerprints = fingerprints
        self._provider = provider
        # Assistant text so far: lines of it pasted back into a turn are not typed.
        self._assistant_texts = AssistantText()
        # The arguments of the last slash command: builds that wrote the
        # expanded body as a plain line replay them once more inside it.
        self._command_args: str | None = None
        self.timeline: list[TimelineItem] = []
        self.human: list[HumanTurn] = []
        self.calls: list[ToolCall] = []
        self.failures: list[ToolFailure] = []
        self.denials: list[Denial] = []
        self.interrupts: list[Interrupt] = []
        self.turns = 0

    def add(self, index: int, event: TranscriptEvent) -> None:
        if isinstance(event, UserEvent):
            self.turns += 1
            self._user(index, event)
        elif isinstance(event, AssistantEvent):
            self.turns += 1
            if event.meta.is_sidechain:
                return  # a subagent's calls belong to its own transcript
            said = [b.text for b in event.blocks if isinstance(b, TextBlock)]
            for text in said or ([event.text] if event.text else []):
                self._assistant_texts.add(text)
            for block in event.blocks:
                if isinstance(block, ToolUseBlock):
                    call = ToolCall(
                        id=block.id,
                        name=block.name,
                        summary=summarize_call(block.name, block.input),
                        input=block.input,
                        at=event.meta.timestamp,
                        event_index=index,
                    )
                    self.calls.append(call)
                    self.timeline.append(call)
        elif isinstance(event, AttachmentEvent) and isinstance(event.detail, QueuedCommand):
            self._queued(index, event, event.detail)

    def _turn(self, text: str, origin: HumanOrigin, at: datetime | None, index: int,
              uuid: str | None, command: str | None = None) -> None:
        turn = HumanTurn(text=text, origin=origin, at=at, event_index=index, uuid=uuid,
                         command=command)
        self.human.append(turn)
        self.timeline.append(turn)

    def _user(self, index: int, event: UserEvent) -> None:
        meta = event.meta
        if meta.is_sidechain:
            # A subagent's whole exchange: neither its prompt nor its tool
            # results are this person's.
            return
        at = meta.timestamp
        texts = [b.text for b in event.blocks if isinstance(b, TextBlock)]
        results = [b for b in event.blocks if isinstance(b, ToolResultBlock)]
        if not texts and not results and event.text:
            texts = [event.text]

        if event.interrupted or any(is_interrupt_text(t) for t in texts):
            self.interrupts.append(Interrupt(at=at, event_index=index))

        for result in results:
            self._result(index, at, meta.uuid, result)

        excluded = entry_exclusion(
            meta, is_agent_injected=event.is_agent_injected, origin_kind=event.origin_kind
        )
        if excluded is not None:
            return
        typed = self._typed(texts)
        if typed.reason == "replayed-command" and typed.text == self._command_args:
            return
        self._command_args = typed.text if typed.command else None
        if typed.text:
            self._turn(typed.text, "typed", at, index, meta.uuid, typed.command)

    def _typed(self, texts: Sequence[str]) -> Typed:
        return typed_blocks(texts, fingerprints=self._fingerprints, provider=self._provider,
                            assistant_texts=self._assistant_texts)

    def _result(
        self, index: int, at: datetime | None, uuid: str | None, result: ToolResultBlock
    ) -> None:
        call = self._tool_calls.get(result.tool_use_id)
        name = call.name if call is not None else None
        if result.denial_kind is not None:
            reason: str | None = None
            if result.denial_kind == DENIAL_KIND_USER_REJECTED:
                reason = denial_reason(result.content)
                # AskUserQuestion's "Chat about this" reuses the denial banner
                # with synthetic text in the reason slot.
                if reason is not None and reason.startswith(CLARIFY_QUESTIONS_TEXT):
                    reason = None
            # A permission-rule denial is a hook or guard: whatever text it
            # carries was written by a program, never kept as a reason.
            self.denials.append(
                Denial(
                    tool_use_id=result.tool_use_id,
                    tool_name=name,
                    kind=result.denial_kind,
                    reason=reason,
                    at=at,
                    event_index=index,
                )
            )
            if reason is not None:
                self._turn(reason, "denial", at, index, uuid)
            return
        if not result.is_error and (name == ASK_USER_QUESTION or _has_answers(result)):
            for text in free_form_answers(result, call):
                self._turn(text, "answer", at, index, uuid)
            return
        if result.is_error and not is_interrupt_text(result.content):
            # An interrupt mid-tool is recorded by its marker line, not a failure.
            failure = ToolFailure(
                tool_use_id=result.tool_use_id,
                tool_name=name,
                excerpt=_excerpt(result.content),
                at=at,
                event_index=index,
            )
            self.failures.append(failure)
            self.timeline.append(failure)

    def _queued(self, index: int, event: AttachmentEvent, detail: QueuedCommand) -> None:
        # Only a plain prompt the person queued: task notifications and peer or
        # channel messages ride the same attachment.
        if detail.prompt is None or detail.command_mode not in (None, "prompt"):
            return
        if detail.origin not in (None, "human"):
            return
        if entry_exclusion(event.meta) is not None:
            return
        typed = self._typed([detail.prompt])
        if typed.text:
            self._turn(typed.text, "queued", event.meta.timestamp, index, event.meta.uuid,
                       typed.command)


# ---------------------------------------------------------------- AskUserQuestion


def _has_answers(result: ToolResultBlock) -> bool:
    payload = result.tool_use_result
    if isinstance(payload, Mapping) and isinstance(payload.get("answers"), Mapping):
        return True
    return result.content.startswith(ANSWERED_PREFIX)


def free_form_answers(result: ToolResultBlock, call: ToolUseBlock | None) -> list[str]:
    """What the person wrote in answer to AskUserQuestion, beyond picking an option.

    A picked label is the agent's words chosen from a menu, so it is not a turn;
    an answer that is not one of the offered labels, and any notes, were typed.
    The structured toolUseResult is preferred; the banner in the content is the
    fallback for builds that wrote only that.
    """
    labels = _labels_by_question(result, call)
    out: list[str] = []
    payload = result.tool_use_result
    if isinstance(payload, Mapping) and isinstance(payload.get("answers"), Mapping):
        answers: Mapping[str, Any] = payload["answers"]
        for question, answer in answers.items():
            if isinstance(answer, str) and not _is_option_pick(answer, labels.get(question)):
                out.append(answer.strip())
        annotations = payload.get("annotations")
        if isinstance(annotations, Mapping):
            for note in annotations.values():
                if isinstance(note, Mapping):
                    text = note.get("notes")
                    if isinstance(text, str) and text.strip():
                        out.append(text.strip())
        return out
    for question, answer, notes in parse_answer_banner(result.content):
        if not _is_option_pick(answer, labels.get(question)):
            out.append(answer.strip())
        if notes and notes.strip():
            out.append(notes.strip())
    return out


def _labels_by_question(
    result: ToolResultBlock, call: ToolUseBlock | None
) -> dict[str, tuple[str, ...]]:
    labels: dict[str, tuple[str, ...]] = {}
    if call is not None:
        for q in call.questions or ():
            labels[q.question] = q.labels
    payload = result.tool_use_result
    if isinstance(payload, Mapping) and isinstance(payload.get("questions"), list):
        for item in payload["questions"]:
            if not isinstance(item, Mapping) or not isinstance(item.get("question"), str):
                continue
            options = item.get("options")
            if isinstance(options, list):
                found: list[str] = []
                for option in options:
                    if isinstance(option, str):
                        found.append(option)
                    elif isinstance(option, Mapping) and isinstance(option.get("label"), str):
                        found.append(option["label"])
                labels.setdefault(item["question"], tuple(found))
    return labels


def _is_option_pick(answer: str, labels: tuple[str, ...] | None) -> bool:
    text = answer.strip()
    if not text or text == ANSWER_NO_OPTION:
        return True
    if not labels:
        # The options are unknown (the call is not in this file): keep it. A
        # wrongly kept label fails nothing downstream; a lost note is lost.
        return False
    if text in labels:
        return True
    # Multi-select answers are the picked labels joined with ", ".
    parts = [p.strip() for p in text.split(", ")]
    return len(parts) > 1 and all(p in labels for p in parts)


_PAIR_START_RE: Final = re.compile(r'(?:\A|, )"([^"]*)"="')
_ANSWER_TAIL_RE: Final = re.compile(
    r'(?P<answer>.*?)"(?:'
    + re.escape(ANSWER_PREVIEW_SEPARATOR)
    + r"(?P<preview>.*?))?(?:"
    + re.escape(ANSWER_NOTES_SEPARATOR)
    + r"(?P<notes>.*))?\Z",
    re.S,
)


def parse_answer_banner(content: str) -> list[tuple[str, str, str | None]]:
    """(question, answer, notes) from `Your questions have been answered: "q"="a", ...`."""
    if not content.startswith(ANSWERED_PREFIX):
        return []
    body = content[len(ANSWERED_PREFIX) :]
    end = body.rfind(ANSWERED_TRAILER)
    if end >= 0:
        body = body[:end]
    starts = list(_PAIR_START_RE.finditer(body))
    out: list[tuple[str, str, str | None]] = []
    for n, match in enumerate(starts):
        stop = starts[n + 1].start() if n + 1 < len(starts) else len(body)
        segment = body[match.end() : stop]
        tail = _ANSWER_TAIL_RE.match(segment)
        if tail is None:
            out.append((match.group(1), segment.rstrip('"'), None))
        else:
            out.append((match.group(1), tail.group("answer"), tail.group("notes")))
    return out


# ---------------------------------------------------------------- tool calls


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
        return _one_line(command, _SUMMARY_CHARS)
    for key in ("file_path", "notebook_path", "path"):
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
    for key, value in tool_input.items():
        if isinstance(value, bool | int | float):
            parts.append(f"{key}={value}")
        elif isinstance(value, str):
            parts.append(f"{key}={_one_line(value, _SUMMARY_VALUE_CHARS)}")
        # Objects and arrays are dropped: they are payloads, not a description.
    return _one_line(" ".join(parts), _SUMMARY_CHARS)


def _one_line(text: str, limit: int) -> str:
    flat = _WS_RE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _excerpt(text: str) -> str:
    text = text.strip()
    if len(text) <= FAILURE_EXCERPT_CHARS:
        return text
    return text[: FAILURE_EXCERPT_CHARS - 1] + "…"


# ---------------------------------------------------------------- identity


def _timestamp(event: TranscriptEvent) -> datetime | None:
    if isinstance(event, ModeEvent | OtherEvent):
        return None
    return event.meta.timestamp


def _metas(events: Sequence[TranscriptEvent], indices: Sequence[int]) -> Iterator[Any]:
    for i in indices:
        event = events[i]
        if not isinstance(event, ModeEvent | OtherEvent):
            yield event.meta


def _session_id(events: Sequence[TranscriptEvent], path: Path | None) -> str:
    for event in events:
        if isinstance(event, ModeEvent):
            return event.session_id
        if not isinstance(event, OtherEvent) and event.meta.session_id:
            return event.meta.session_id
    return path.stem if path is not None else ""


def _project(events: Sequence[TranscriptEvent], branch: Sequence[int]) -> str | None:
    for meta in _metas(events, branch):
        if meta.cwd:
            return str(meta.cwd)
    for meta in _metas(events, range(len(events))):
        if meta.cwd:
            return str(meta.cwd)
    return None


# ---------------------------------------------------------------- JSON


def session_counts(session: Session) -> dict[str, Any]:
    """The counts of one view, in display order (`learn show` and `learn sessions`)."""
    by_origin: dict[str, int] = {"typed": 0, "denial": 0, "answer": 0, "queued": 0}
    for turn in session.human_turns:
        by_origin[turn.origin] += 1
    return {
        "turns": session.turns,
        "human_turns": len(session.human_turns),
        "human_turns_by_origin": by_origin,
        "tool_calls": len(session.tool_calls),
        "failures": len(session.failures),
        "denials": len(session.denials),
        "interrupts": len(session.interrupts),
    }


def session_to_dict(session: Session, *, timeline: bool = True) -> dict[str, Any]:
    """A JSON-ready dict of the view (`learn show --json`, `learn sessions --json`)."""
    out: dict[str, Any] = {
        "id": session.id,
        "provider": session.provider,
        "path": str(session.path) if session.path else None,
        "project": session.project,
        "started_at": _iso(session.started_at),
        "last_activity": _iso(session.last_activity),
        **session_counts(session),
        "size_bytes": session.size_bytes,
        "skipped_lines": session.skipped_lines,
        "subagent_paths": [str(p) for p in session.subagent_paths],
    }
    if timeline:
        out["timeline"] = [_item_dict(item) for item in session.timeline]
        out["denial_details"] = [
            {"tool_use_id": d.tool_use_id, "tool_name": d.tool_name, "kind": d.kind,
             "reason": d.reason, "at": _iso(d.at), "event_index": d.event_index}
            for d in session.denials
        ]
        out["interrupt_details"] = [
            {"at": _iso(i.at), "event_index": i.event_index} for i in session.interrupts
        ]
    return out


def _item_dict(item: TimelineItem) -> dict[str, Any]:
    if isinstance(item, HumanTurn):
        return {"type": "human", "origin": item.origin, "text": item.text, "at": _iso(item.at),
                "event_index": item.event_index, "uuid": item.uuid, "command": item.command}
    if isinstance(item, ToolCall):
        return {"type": "tool_call", "id": item.id, "name": item.name, "summary": item.summary,
                "at": _iso(item.at), "event_index": item.event_index}
    return {"type": "tool_failure", "tool_use_id": item.tool_use_id, "tool_name": item.tool_name,
            "excerpt": item.excerpt, "at": _iso(item.at), "event_index": item.event_index}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


# ---------------------------------------------------------------- many files


def view_files(
    files: Sequence[SessionFile], *, fingerprints: FingerprintCache | None = None
) -> list[tuple[SessionFile, Session]]:
    """Parse (in parallel, via `parser.stream`) and view `files`, in the order given.

    Fingerprints are per project, because project slash commands differ. A file
    that cannot be read (pruned between discovery and now) is left out.
    """
    from learn.transcripts.parser import stream
    from learn.transcripts.replay import FingerprintCache

    cache = fingerprints if fingerprints is not None else FingerprintCache()
    by_path = {f.path: f for f in files}
    views: dict[Path, Session] = {}
    for transcript in stream(f.path for f in files):
        file = by_path.get(transcript.path) if transcript.path is not None else None
        if file is None:
            continue
        views[file.path] = build_session(
            transcript,
            fingerprints=cache.for_project(file.project),
            size_bytes=file.size,
            subagent_paths=file.subagent_paths,
        )
    return [(f, views[f.path]) for f in files if f.path in views]
