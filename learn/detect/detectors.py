"""The seven detectors (the two plan ones in plans.py, question answers in answers.py),
and `mine()` which runs them.

Each detector is a pure function over the already-parsed events of one session:
it reads, never re-parses, and every signal's `event_index` addresses the same
list, so a caller can look the originating event up without a second pass.

The traps each detector steps around are facts about Claude Code's output:
- a `permission-rule` denial is a hook or guard blocking the call, not a person;
- an AskUserQuestion result reuses the denial banner when the person types
  instead of picking, so it is an answer, not a tool denial;
- "[Request interrupted by user]" only counts at the head of a text: a person
  quoting it mid-message is talking about it, not doing it;
- teammate/relay messages arrive in the user slot but nobody typed them;
- a user text is read as the session view reads it (`usertext.SessionIndex`):
  IDE context, plan hand-offs and pasted agent output are not the person's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from learn.detect.answers import detect_question_answers
from learn.detect.confidence import CandidateSignal, noise, score, weak
from learn.detect.emit import calibrated, emit
from learn.detect.plans import detect_exit_plan_rejections, detect_plan_reentries
from learn.detect.provenance import classify
from learn.detect.review import extract_comments
from learn.detect.signals import (
    INTERRUPT_REJECTION,
    REVIEW_COMMENT,
    TRANSCRIPT_MESSAGE,
    MiningSignal,
)
from learn.detect.spec import DETECTOR_ORDER, DetectorName, MiningSpec
from learn.detect.structural import is_scaffolding
from learn.detect.usertext import SessionIndex, is_human_message
from learn.detect.wording import has_rejecting_words
from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
)
from learn.transcripts.claude.literals import (
    ANSWERED_PREFIX,
    ASK_USER_QUESTION,
    CLARIFY_QUESTIONS_TEXT,
    DENIAL_KIND_USER_REJECTED,
    embedded_reason,
    is_bare_interrupt,
    is_interrupt_text,
)
from learn.transcripts.models import (
    AssistantEvent,
    TranscriptEvent,
    UserEvent,
)

__all__ = ["DETECTORS", "has_rejecting_words", "is_human_message", "mine"]


# --------------------------------------------------------------- transcript_message


def _constant(value: bool) -> Callable[[str], bool]:
    def predicate(_text: str) -> bool:
        return value

    return predicate


def detect_transcript_messages(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event in index.users:
        if not event.text.strip() or is_bare_interrupt(event.text):
            continue
        # Scaffolding is judged on the event (meta, sidechain, relay flags), not
        # only on the text, so the stage's predicate answers for this event; it
        # scores as noise and keeps its raw text so `learn signals` shows it.
        scaffolding = is_scaffolding(event)
        text = event.text if scaffolding else index.text(i)
        if not text:
            continue  # IDE context, reminders, pasted output only: nothing typed
        trigger = index.prev_assistant[i]
        signal = score(
            spec.user_message,
            text,
            index=i,
            trigger_index=trigger,
            is_structural=_constant(scaffolding),
        )
        yield emit(
            event,
            i,
            kind=TRANSCRIPT_MESSAGE,
            detector="transcript_message",
            text=text,
            trigger_index=trigger,
            signal=signal,
            evidence={"provenance": classify(event, None, spec.provenance, from_tool=False)},
        )


# --------------------------------------------------------------- denial / interrupt


def _follow_up(index: SessionIndex, start: int) -> tuple[int, CandidateSignal] | None:
    """What the person typed after a bare denial or interrupt.

    The window closes at the next assistant event: once the agent has moved on,
    a later message is about something else.
    """
    first_structural: int | None = None
    for j in range(start + 1, len(index.events)):
        event = index.events[j]
        if isinstance(event, AssistantEvent):
            break
        if not isinstance(event, UserEvent) or not event.text.strip():
            continue
        if is_bare_interrupt(event.text):
            continue
        if index.is_human(j):
            return j, weak("bare_marker")
        if first_structural is None:
            first_structural = j
    if first_structural is not None:
        return first_structural, noise("structural_only")
    return None


def _follow_up_signal(
    index: SessionIndex,
    marker: int,
    detector: DetectorName,
    trigger_index: int | None,
    evidence: Mapping[str, Any],
) -> MiningSignal | None:
    """The reply typed after the denial or interrupt at `marker`, as a signal."""
    follow = _follow_up(index, marker)
    if follow is None:
        return None
    j, signal = follow
    user = index.events[j]
    assert isinstance(user, UserEvent)
    return emit(
        user,
        j,
        kind=INTERRUPT_REJECTION,
        detector=detector,
        # A structural-only follow-up (noise, never a candidate) keeps the raw
        # text so `learn signals` shows what came instead of a reply.
        text=index.text(j) or user.text,
        trigger_index=trigger_index,
        signal=signal,
        lower_bound=marker,
        evidence={**evidence, "marker_index": marker},
    )


def _is_question_result(block: ToolResultBlock, tool_name: str | None) -> bool:
    # AskUserQuestion's "the user typed instead" result starts with the denial
    # banner; when the tool_use is out of reach (compacted) the payload still tells.
    if tool_name == ASK_USER_QUESTION:
        return True
    result = block.tool_use_result
    if isinstance(result, Mapping) and "answers" in result:
        return True
    return ANSWERED_PREFIX in block.content or CLARIFY_QUESTIONS_TEXT in block.content


def detect_denials(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event, block in index.results:
        # permission-rule: a hook or guard said no. Only a person's "no" counts.
        if block.denial_kind != DENIAL_KIND_USER_REJECTED:
            continue
        use = index.tool(block.tool_use_id)
        name = use.block.name if use is not None else None
        if name is not None and name in spec.denial_excluded_tools:
            continue
        if _is_question_result(block, name):
            continue
        evidence = {
            "tool": name,
            "file_path": use.block.file_path if use is not None else None,
            "tool_use_id": block.tool_use_id,
        }
        trigger = use.index if use is not None else index.prev_assistant[i]
        reason = index.clean(embedded_reason(block.content) or "")
        if reason:
            yield emit(
                event,
                i,
                kind=INTERRUPT_REJECTION,
                detector="denial",
                text=reason,
                trigger_index=trigger,
                signal=calibrated(spec.calibrated, "embedded_text", reason),
                evidence=evidence,
            )
            continue
        followed = _follow_up_signal(index, i, "denial", trigger, evidence)
        if followed is not None:
            yield followed


def _interrupt_anchors(
    events: Sequence[TranscriptEvent], index: SessionIndex
) -> Iterator[tuple[int, str | None]]:
    """(event index, interrupted tool name) of every interrupt, one per agent turn.

    Claude Code writes an interrupt twice when it lands during a tool call: as the
    tool_result content and again as a user text right after. A user-text marker (or
    an entry marked interrupted) is only its own interrupt when no tool-result marker
    or denial since the last assistant event already stands for it.
    """
    anchored = False
    turn: int | None = -1  # the assistant event the current anchor belongs after
    for i, event in index.users:
        if index.prev_assistant[i] != turn:
            turn, anchored = index.prev_assistant[i], False
        found = False
        for block in event.blocks:
            if not isinstance(block, ToolResultBlock):
                continue
            if block.denial_kind is not None:
                anchored = True
            elif is_interrupt_text(block.content):
                if not found:
                    yield i, index.tool_name(block.tool_use_id)
                found = anchored = True
        # An agent whose interrupt is no text (Codex's `turn_aborted`, Copilot's, OpenCode's)
        # marks the entry `interrupted`: Claude Code's marker text is only its own.
        if not found and not anchored and (event.interrupted or is_bare_interrupt(event.text)):
            anchored = True
            yield i, None


def detect_interrupts(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, tool in _interrupt_anchors(events, index):
        followed = _follow_up_signal(
            index, i, "interrupt", index.prev_assistant[i], {"tool": tool}
        )
        if followed is not None:
            yield followed


# --------------------------------------------------------------- review_comment


def detect_review_comments(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    formats = spec.review.formats
    if not formats:
        return
    compiled = [(fmt, fmt.compile()) for fmt in formats]
    surfaces = spec.review.surfaces
    for i, event in index.users:
        texts: list[tuple[str, str | None, bool]] = []
        for block in event.blocks:
            if isinstance(block, TextBlock):
                texts.append((index.clean(block.text), None, False))
            elif isinstance(block, ToolResultBlock):
                texts.append((block.content, index.tool_name(block.tool_use_id), True))
        if not texts and index.text(i):
            texts.append((index.text(i), None, False))
        for text, tool, from_tool in texts:
            provenance = classify(event, tool, spec.provenance, from_tool=from_tool)
            if provenance not in surfaces:
                continue
            for fmt, pattern in compiled:
                for comment in extract_comments(fmt, text, pattern):
                    yield emit(
                        event,
                        i,
                        kind=REVIEW_COMMENT,
                        detector="review_comment",
                        text=comment.comment,
                        trigger_index=index.prev_assistant[i],
                        signal=calibrated(spec.calibrated, "format_match", comment.comment),
                        evidence={
                            "format": fmt.name,
                            "file": comment.file,
                            "line_start": comment.line_start,
                            "line_end": comment.line_end,
                            "provenance": provenance,
                            "tool": tool,
                        },
                    )


# --------------------------------------------------------------- mine

Detector = Callable[[Sequence[TranscriptEvent], SessionIndex, MiningSpec], Iterator[MiningSignal]]

DETECTORS: dict[DetectorName, Detector] = {
    "transcript_message": detect_transcript_messages,
    "exit_plan_rejection": detect_exit_plan_rejections,
    "plan_reentry": detect_plan_reentries,
    "denial": detect_denials,
    "interrupt": detect_interrupts,
    "review_comment": detect_review_comments,
    "ask_user_question": detect_question_answers,
}


def mine(
    events: Iterable[TranscriptEvent],
    spec: MiningSpec | None = None,
    *,
    provider: str = "claude",
    fingerprints: Sequence[str] = (),
) -> Iterator[MiningSignal]:
    """Every MiningSignal in `events`, detector by detector in DETECTOR_ORDER.

    The events are materialized first (a lazy EventList is read once per
    position), so each signal's `event_index` addresses the sequence as given.
    `provider` and `fingerprints` are the session view's, so the detectors read
    each user text exactly as the view does.
    """
    spec = spec if spec is not None else MiningSpec()
    materialized: Sequence[TranscriptEvent] = (
        events if isinstance(events, list | tuple) else list(events)
    )
    index = SessionIndex(materialized, provider=provider, fingerprints=fingerprints)
    return _run(materialized, index, spec)


def _run(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for name in DETECTOR_ORDER:
        if name in spec.detectors:
            yield from DETECTORS[name](events, index, spec)
