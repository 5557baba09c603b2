"""Build the session view: evidence (what the person typed) and context (the active branch).

A transcript file is not a conversation. It is a DAG of entries (rewinds leave
dead branches in the file, compaction starts new roots, lines are appended late
that point back into the middle), and its user slot holds harness echoes, hook
output and other agents' words next to what the person typed. `build_session`
reduces it to the shape everything downstream reads
(`learn.transcripts.view.model.Session`), answering two questions apart:

- evidence (`human_turns`): every turn the person typed anywhere in the file —
  the active branch, a rewound branch, before a compaction, a message queued
  while a tool ran, a `/btw` side question from its own file — one turn per
  text (`evidence`);
- context (`timeline`, tool calls, failures, denials, interrupts): the active
  branch only (`branch.active_branch`).

Human turns also come from places that are not prompts, because that is where
corrections live: the reason typed when rejecting a tool call, a free-form
answer to AskUserQuestion (`answers`), and a prompt queued while the agent was
busy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from itertools import compress
from pathlib import Path
from typing import Any, Final

from msgspec.structs import replace

from learn.secret_answers import redact_answer
from learn.textfold import fold
from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.claude.literals import (
    ASK_USER_QUESTION,
    CLARIFY_QUESTIONS_TEXT,
    DENIAL_KIND_USER_REJECTED,
    denial_reason,
    is_interrupt_text,
)
from learn.transcripts.details import QueuedCommand
from learn.transcripts.models import (
    AssistantEvent,
    AttachmentEvent,
    EventList,
    OtherEvent,
    Transcript,
    TranscriptEvent,
    UserEvent,
)
from learn.transcripts.view.answers import free_form_answers, has_answers
from learn.transcripts.view.branch import branch_marks, links
from learn.transcripts.view.calls import excerpt, summarize_call
from learn.transcripts.view.evidence import (
    QUEUE_OPERATION,
    TypedReader,
    aside_turns,
    dequeued,
    enqueued_prompt,
    one_per_text,
)
from learn.transcripts.view.exclusions import entry_exclusion, program_envelope_head
from learn.transcripts.view.identity import cwd_of, entrypoint_of, event_time, session_id_of
from learn.transcripts.view.machine_signals import (
    GENERATED_OPENING,
    QUEUED_OPENING,
    SCRIPTED_BODY,
    queued_opening,
    scripted_body,
)
from learn.transcripts.view.model import (
    Denial,
    HumanOrigin,
    HumanTurn,
    Interrupt,
    Session,
    TimelineItem,
    ToolCall,
    ToolFailure,
    reading_order,
)
from learn.transcripts.view.origin import GENERATED_PROMPT_CHARS, is_headless
from learn.transcripts.view.relayed import is_generated_findings

__all__ = ["build_session"]

# A command's body written with no arguments in it is at least this long; a line a
# person typed cannot sit between a record and its body.
EXPANSION_MIN_CHARS: Final = 80


def build_session(
    transcript: Transcript,
    *,
    fingerprints: Sequence[str] = (),
    size_bytes: int = 0,
    subagent_paths: Sequence[Path] = (),
    asides: Sequence[Transcript] = (),
    detail: bool = True,
) -> Session:
    """The session view of one parsed transcript (any agent's: they lower to one event model).

    `asides` are the session's parsed `agent-aside_question-*.jsonl` files
    (`read_asides`): their side questions are typed turns of this session.
    `detail=False` leaves each tool call's summary and each failure's excerpt
    empty: a listing counts them and reads neither (summarising every call was
    8% of building a view, issue 21).
    """
    source = transcript.events
    events: list[TranscriptEvent] = (
        source.materialized() if type(source) is EventList else list(source))
    # Codex, Copilot CLI and OpenCode records never branch; Claude Code's and
    # Gemini CLI's (rewinds) do.
    flat = transcript.provider not in ("claude", "gemini")

    # Tool names and AskUserQuestion options come from every event, not just the
    # branch: a result on the branch can answer a call the walk reached first.
    calls: dict[str, ToolUseBlock] = {}
    # The times of the user and assistant entries not a fork copied (below), in this
    # one pass: exact type tests (no class derives from these:
    # tests/test_transcripts_view_dispatch.py fails if one does).
    own: list[datetime] = []
    copied = False
    # The entries the builder reads, found in the same pass: user and assistant
    # entries, queued-prompt attachments and queue-operation lines. The rest (hook
    # attachments, system lines, progress, snapshots: a third of a Claude Code file)
    # add nothing to the view, and dispatching each cost a call and four type tests.
    read: list[int] = []
    queue: list[int] = []
    besides: list[int] = []  # those of `read` that are neither user nor assistant entries
    # Each entry's links (`branch.links`), read for the branch in this same pass, and its
    # `event_time`: the branch's are kept once the branch is known (a loop of their own
    # for the links, `branch.active_branch`: callgrind, building the views of the spread
    # and tree bench homes, 250 sessions each, took 0.989x and 0.984x the instructions
    # without it).
    uuids: list[str | None] = []
    parents: list[str | None] = []
    times: list[datetime | None] = []
    uuid = uuids.append
    parent = parents.append
    time = times.append
    for index, event in enumerate(events):
        kind = type(event)
        if kind is UserEvent or kind is AssistantEvent:
            meta = event.meta  # type: ignore[union-attr]
            uuid(meta.uuid or None)
            parent(meta.parent_uuid or None)
            at = meta.timestamp
            time(at)
            if kind is AssistantEvent:
                for block in event.blocks:  # type: ignore[union-attr]
                    if type(block) is ToolUseBlock:
                        calls[block.id] = block
            read.append(index)
            if meta.copied_from is None:
                own.append(at)
            else:
                copied = True
            continue
        if not flat:  # a flat file's links are never read (a Codex rollout's raw lines)
            up, down = links(event)
            uuid(up)
            parent(down)
        if kind is OtherEvent:
            time(None)  # no time (event_time)
            if event.type == QUEUE_OPERATION:  # type: ignore[union-attr]
                queue.append(index)
                read.append(index)
                besides.append(index)
            continue
        time(event_time(event))  # None for a mode line
        if kind is AttachmentEvent and type(event.detail) is QueuedCommand:  # type: ignore[union-attr]
            read.append(index)
            besides.append(index)
    on_branch = [True] * len(events) if flat else branch_marks(events, uuids, parents)
    branch = list(compress(range(len(events)), on_branch))
    # `event_time` of every entry on the branch that has one, in file order (the
    # branch's order).
    stamps = [at for at in compress(times, on_branch) if at is not None]

    reader = TypedReader(fingerprints, transcript.provider)
    builder = _Builder(calls, reader, dequeued(events, queue), detail=detail)
    handlers = builder.handlers
    for index in read:
        event = events[index]
        handlers[type(event)](index, event, on_branch[index])
    read_turns = [*builder.human, *aside_turns(asides, reader)]
    human = one_per_text(read_turns)
    if len(human) == len(read_turns):
        # No turn merged away (most sessions): the timeline keeps every item, and the
        # pass over it (its tool calls too) is skipped. This, the reading order below
        # and `_is_expansion` asked only after a command record: building the views of
        # the spread and tree bench homes, 250 sessions each, took 0.985x and 0.984x
        # the instructions (callgrind).
        timeline = tuple(builder.timeline)
    else:
        kept = {id(t) for t in human}
        timeline = tuple(
            item for item in builder.timeline if type(item) is not HumanTurn or id(item) in kept
        )
    # The timeline's turns are the turns on the branch, in the same order (`_turn`):
    # read from the turns, not the timeline's every call and failure.
    on_turns = [t for t in human if t.on_branch]
    off_branch = sorted((t for t in human if not t.on_branch), key=_turn_order)

    stamps += [t.at for t in off_branch if t.at is not None]
    # A fork (`/branch`) opens with the earlier session's entries under their own
    # times: it starts at its first entry of its own, after the session it came from,
    # which keeps the turns typed there (learn.transcripts.view.resume: oldest wins).
    forked = copied
    started = min(own) if forked and own else (min(stamps) if stamps else None)
    session = Session(
        id=session_id_of(events, transcript.path),
        provider=transcript.provider,
        path=transcript.path,
        project=cwd_of(events, branch),
        started_at=started,
        last_activity=max(stamps) if stamps else None,
        timeline=timeline,
        human_turns=(*on_turns, *off_branch),
        tool_calls=tuple(builder.calls),
        failures=tuple(builder.failures),
        denials=tuple(builder.denials),
        interrupts=tuple(builder.interrupts),
        # User and assistant entries on the branch, counted in C from the flags, not by
        # each entry's reader (callgrind: building the views of the spread and tree
        # bench homes, 250 sessions each, took 0.996x and 0.993x the instructions).
        turns=sum(map(on_branch.__getitem__, read)) - sum(map(on_branch.__getitem__, besides)),
        size_bytes=size_bytes or transcript.size_bytes,
        skipped_lines=transcript.skipped_lines,
        skipped=dict(transcript.skipped),
        subagent_paths=tuple(subagent_paths),
        entrypoint=entrypoint_of(events),
        signals=builder.signals(events),
    )
    if not off_branch:
        # Every turn is on the branch, in the timeline's order: that is reading order.
        return session
    # Evidence in reading order: the branch's turns with the others where they were typed.
    ordered = tuple(t for t in reading_order(session) if type(t) is HumanTurn)
    return replace(session, human_turns=ordered)


def _may_interrupt(text: str) -> bool:
    """Whether `text` can open with the interrupt marker (`is_interrupt_text`: spaces,
    then "["): most texts open with neither, and are not matched (callgrind: building
    the views of the spread and tree bench homes, 250 sessions each, took 0.995x and
    0.988x the instructions)."""
    first = text[:1]
    return first == "[" or first.isspace()


def _turn_order(turn: HumanTurn) -> tuple[float, int]:
    return (turn.at.timestamp() if turn.at is not None else 0.0, turn.event_index)


# ---------------------------------------------------------------- turns


class _Builder:
    """One pass over the file: evidence from every entry, context from the branch."""

    def __init__(self, calls: Mapping[str, ToolUseBlock], reader: TypedReader,
                 dequeued: set[int], *, detail: bool = True) -> None:
        self._tool_calls = calls
        self._detail = detail
        self._reader = reader
        self._dequeued = dequeued
        # The arguments of the last slash command: builds that wrote the
        # expanded body as a plain line replay them once more inside it.
        self._command_args: str | None = None
        self._record_uuid: str | None = None  # the last command record's entry
        self._seen_calls: set[str] = set()
        self._seen_failures: set[str] = set()
        # The agent's last words before a typed turn: a bare value typed in answer
        # to "What is the database password?" is a secret only the question names.
        self._asked = ""
        self.timeline: list[TimelineItem] = []
        self.human: list[HumanTurn] = []
        self.calls: list[ToolCall] = []
        self.failures: list[ToolFailure] = []
        self.denials: list[Denial] = []
        self.interrupts: list[Interrupt] = []
        # The opening: the first user text read (a generated prompt?), and the body of
        # the command the first typed turn ran (does it say a script runs it?).
        self._first_text: str | None = None
        self._first_typed: str | None = None
        self._opening_body: str | None = None
        self._await_body = False
        # Whether that first text is as long as a generated prompt; by entrypoint,
        # whether it names a headless client (`is_headless`); and the head of the last
        # program envelope read (`exclusions.program_envelope_head`): a later text
        # opening with it is one too. A memory plugin's observer session is hundreds of
        # envelopes under one head, each matched by the regex, and the entrypoint
        # casefolded each time (callgrind: building the views of the tree bench home,
        # 250 sessions, took 0.892x the instructions; the spread home's 0.997x).
        self._generated_opening = False
        self._headless: dict[str | None, bool] = {}
        self._envelope: str | None = None

    def signals(self, events: Sequence[TranscriptEvent]) -> tuple[str, ...]:
        """`Session.signals` (machine_signals) of the file read."""
        out: list[str] = []
        if queued_opening(events):
            out.append(QUEUED_OPENING)
        if self._first_text and not self._first_typed and is_generated_findings(self._first_text):
            out.append(GENERATED_OPENING)
        said = scripted_body(self._opening_body) if self._opening_body else None
        if said:
            out.append(f"{SCRIPTED_BODY}: {said}")
        return tuple(out)

    @property
    def handlers(self) -> dict[type, Callable[[int, Any, bool], None]]:
        """The reader of each kind of entry the view reads, by its exact type (no class
        derives from an event type; `build_session` passes only these kinds)."""
        return {
            UserEvent: self._user,
            AssistantEvent: self._assistant_entry,
            AttachmentEvent: self._attachment,
            OtherEvent: self._other,
        }

    def _assistant_entry(self, index: int, event: AssistantEvent, on: bool) -> None:
        if event.meta.is_sidechain:
            # A subagent's message: not the agent this person talks to (`TypedReader.saw`
            # takes none), and its calls belong to its own transcript.
            return
        # One loop over the blocks for the texts and, on the branch, the calls (a second
        # one, and a call for it, per message: callgrind, building the views of the
        # spread and tree bench homes, 250 sessions each, took 0.990x and 0.977x the
        # instructions without it).
        texts = []
        for block in event.blocks:
            kind = type(block)
            if kind is TextBlock:
                texts.append(block.text)  # type: ignore[union-attr]
            elif on and kind is ToolUseBlock:
                self._call(index, event, block)  # type: ignore[arg-type]
        self._reader.saw(event, texts)
        said = "\n".join(texts) or event.text
        if said and not said.isspace():  # said.strip(), with no copy
            self._asked = said

    def _attachment(self, index: int, event: AttachmentEvent, on: bool) -> None:
        detail = event.detail
        if type(detail) is QueuedCommand:
            self._queued(index, event, detail, on)

    def _other(self, index: int, event: OtherEvent, on: bool) -> None:
        if index in self._dequeued:
            return
        enqueued = enqueued_prompt(event)
        if enqueued is not None:
            typed = self._reader.typed([enqueued[0]])
            if typed.text:
                self._turn(typed.text, "queued", enqueued[1], index, None, on=False,
                           command=typed.command)

    def _call(self, index: int, event: AssistantEvent, block: ToolUseBlock) -> None:
        if block.id in self._seen_calls:
            # The same call twice (a conversation rewritten under new uuids) ran once.
            return
        self._seen_calls.add(block.id)
        call = ToolCall(
            id=block.id,
            name=block.name,
            summary=summarize_call(block.name, block.input) if self._detail else "",
            input=block.input,
            at=event.meta.timestamp,
            event_index=index,
        )
        self.calls.append(call)
        self.timeline.append(call)

    def _turn(self, text: str, origin: HumanOrigin, at: datetime | None, index: int,
              uuid: str | None, *, on: bool, command: str | None = None,
              filled: bool = False) -> None:
        if origin in ("typed", "queued") and self._asked:
            text = redact_answer(self._asked, text)
            self._asked = ""
        turn = HumanTurn(text=text, origin=origin, at=at, event_index=index, uuid=uuid,
                         command=command, on_branch=on, filled=filled)
        self.human.append(turn)
        if on:
            self.timeline.append(turn)

    def _user(self, index: int, event: UserEvent, on: bool) -> None:
        meta = event.meta
        if meta.is_sidechain:
            # A subagent's whole exchange: neither its prompt nor its tool
            # results are this person's.
            return
        at = meta.timestamp
        # One loop, not two comprehensions: this runs for every user entry.
        texts: list[str] = []
        results: list[ToolResultBlock] = []
        for block in event.blocks:
            kind = type(block)
            if kind is TextBlock:
                texts.append(block.text)  # type: ignore[union-attr]
            elif kind is ToolResultBlock:
                results.append(block)  # type: ignore[arg-type]
        if not texts and not results and event.text:
            texts = [event.text]

        if on:
            interrupted = event.interrupted
            if not interrupted:
                for text in texts:  # a loop, not any() over a generator: asked of most entries
                    if _may_interrupt(text) and is_interrupt_text(text):
                        interrupted = True
                        break
            if interrupted:
                self.interrupts.append(Interrupt(at=at, event_index=index))

        if results:
            uuid = meta.copied_uuid or meta.uuid
            for result in results:
                self._result(index, at, uuid, result, on)
            if not texts and self._command_args is None:
                # Tool results only, no command's arguments held: whatever the entry
                # rules say, nothing below changes (most user entries end here).
                return

        excluded = entry_exclusion(
            meta, is_agent_injected=event.is_agent_injected, origin_kind=event.origin_kind,
            prompt_source=event.prompt_source,
        )
        if excluded is not None:
            if excluded == "meta" and self._await_body and texts:
                self._opening_body = "\n".join(texts)  # the opening command's expansion
                self._await_body = False
            return
        if not texts:  # tool results only: nothing typed, and no command replayed next
            self._command_args = None
            return
        if self._record_uuid is not None and self._is_expansion(meta.parent_uuid, texts):
            # Older builds write a command's body as a plain line right after its
            # record; the arguments in it were typed in the record and count there.
            # Known by where it sits, the body is machinery on its first use too,
            # with no template on disk.
            if self._await_body:
                self._opening_body = "\n".join(texts)
                self._await_body = False
            self._record_uuid = self._command_args = None
            return
        if self._generated_opening and len(texts) == 1 and self._is_envelope(
                meta.entrypoint, texts[0]):
            # A later message in an envelope of no client's tag, in a headless session a
            # long generated prompt opened (a plugin's, not an app relaying a person's
            # short first request): a program's, left unread (exclusions.is_program_envelope).
            self._record_uuid = self._command_args = None
            return
        typed = self._reader.typed(texts)
        if self._first_text is None:
            self._first_text = "\n".join(texts)
            self._generated_opening = len(self._first_text) >= GENERATED_PROMPT_CHARS
            self._first_typed = typed.text
            self._await_body = typed.command is not None
        if typed.reason == "replayed-command" and typed.text == self._command_args:
            return
        self._command_args = typed.text if typed.command else None
        self._record_uuid = meta.uuid if typed.command else None
        if typed.text:
            # A turn a fork copied keeps the uuid it was typed under (its original's),
            # so the session it was typed in claims it (learn.transcripts.view.resume).
            self._turn(typed.text, "typed", at, index, meta.copied_uuid or meta.uuid, on=on,
                       command=typed.command, filled=typed.filled)

    def _is_envelope(self, entrypoint: str | None, text: str) -> bool:
        """`is_headless(entrypoint) and is_program_envelope(text)`, each worked out once
        a session where it can be (see `__init__`)."""
        headless = self._headless.get(entrypoint)
        if headless is None:
            headless = self._headless[entrypoint] = is_headless(entrypoint)
        if not headless:
            return False
        if self._envelope is not None and text.startswith(self._envelope):
            return True
        head = program_envelope_head(text)
        if head is None:
            return False
        self._envelope = head
        return True

    def _is_expansion(self, parent: str | None, texts: Sequence[str]) -> bool:
        """A plain user line written right after a command record (its child entry):
        the command's body, when it holds the arguments or is a body's length."""
        if self._record_uuid is None or parent != self._record_uuid:
            return False
        body = fold("\n".join(texts))
        args = fold(self._command_args or "")
        return bool(args and args in body) or len(body) >= EXPANSION_MIN_CHARS

    def _result(
        self, index: int, at: datetime | None, uuid: str | None, result: ToolResultBlock, on: bool
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
                # Another agent's review or terminal output pasted as the reason is
                # not the person's.
                if reason is not None:
                    reason = self._reader.without_agent_text(reason) or None
            # A permission-rule denial is a hook or guard: whatever text it
            # carries was written by a program, never kept as a reason.
            if on:
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
                self._turn(reason, "denial", at, index, uuid, on=on)
            return
        if not result.is_error and (name == ASK_USER_QUESTION or has_answers(result)):
            for text in free_form_answers(result, call):
                text = self._reader.without_agent_text(text)
                if text:
                    self._turn(text, "answer", at, index, uuid, on=on)
            return
        if on and result.is_error and not (
                _may_interrupt(result.content) and is_interrupt_text(result.content)):
            # An interrupt mid-tool is recorded by its marker line, not a failure.
            if result.tool_use_id in self._seen_failures:
                return  # the same result twice (a conversation rewritten under new uuids)
            self._seen_failures.add(result.tool_use_id)
            failure = ToolFailure(
                tool_use_id=result.tool_use_id,
                tool_name=name,
                excerpt=excerpt(result.content) if self._detail else "",
                at=at,
                event_index=index,
            )
            self.failures.append(failure)
            self.timeline.append(failure)

    def _queued(self, index: int, event: AttachmentEvent, detail: QueuedCommand, on: bool) -> None:
        # Only a plain prompt the person queued: task notifications and peer or
        # channel messages ride the same attachment.
        if detail.prompt is None or detail.command_mode not in (None, "prompt"):
            return
        if detail.origin not in (None, "human"):
            return
        if entry_exclusion(event.meta) is not None:
            return
        typed = self._reader.typed([detail.prompt])
        if typed.text:
            self._turn(typed.text, "queued", event.meta.timestamp, index, event.meta.uuid, on=on,
                       command=typed.command)
