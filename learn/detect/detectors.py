"""The seven detectors, and `mine()` which runs them.

Each detector is a pure function over the already-parsed events of one session:
it reads, never re-parses, and every signal's `event_index` addresses the same
list, so a caller can look the originating event up without a second pass.

The traps each detector steps around are facts about Claude Code's output:
- a `permission-rule` denial is a hook or guard blocking the call, not a person;
- an AskUserQuestion result reuses the denial banner when the person types
  instead of picking, so it is an answer, not a tool denial;
- "[Request interrupted by user]" only counts at the head of a text: a person
  quoting it mid-message is talking about it, not doing it;
- teammate/relay messages arrive in the user slot but nobody typed them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from learn.detect.confidence import (
    CandidateSignal,
    ConfidenceSpec,
    firm,
    noise,
    score,
    weak,
)
from learn.detect.provenance import classify
from learn.detect.review import extract_comments
from learn.detect.signals import (
    INTERRUPT_REJECTION,
    PLAN_REVIEW,
    QUESTION_ANSWER,
    REVIEW_COMMENT,
    TRANSCRIPT_MESSAGE,
    MiningSignal,
    SourceKind,
)
from learn.detect.spec import DETECTOR_ORDER, DetectorName, MiningSpec
from learn.detect.structural import is_scaffolding, is_structural
from learn.transcripts.literals import (
    ANSWER_NO_OPTION,
    ANSWER_NOTES_SEPARATOR,
    ANSWER_PREVIEW_SEPARATOR,
    ANSWERED_PREFIX,
    ANSWERED_TRAILER,
    ASK_USER_QUESTION,
    CLARIFY_QUESTIONS_TEXT,
    DENIAL_KIND_USER_REJECTED,
    embedded_reason,
    is_bare_interrupt,
    is_interrupt_text,
)
from learn.transcripts.models import (
    AssistantEvent,
    ModeEvent,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    TranscriptEvent,
    UserEvent,
)

RECOMMENDED_MARK = "(Recommended)"

# One `"<question>"="<answer>"` pair of the AskUserQuestion banner. The answer
# runs lazily up to the next `", "<next question>"=` or the end, because answers
# (free text) may themselves contain quotes and commas.
_ANSWER_PAIR_RE = re.compile(r'"(?P<q>.*?)"="(?P<a>.*?)"(?=, "|\Z)', re.DOTALL)


@dataclass(frozen=True, slots=True)
class _ToolUse:
    index: int
    block: ToolUseBlock


class _Index:
    """What the detectors need, gathered in one pass per session.

    Seven detectors each walking every event cost 2.3x the parse on the 50 MB
    benchmark corpus; most events are assistant turns no detector reads, so the
    user events and tool results are listed once here and walked from there.
    """

    def __init__(self, events: Sequence[TranscriptEvent]) -> None:
        self.events = events
        self.tool_uses: dict[str, _ToolUse] = {}
        # prev_assistant[i]: index of the nearest assistant event strictly before i.
        self.prev_assistant: list[int | None] = []
        self.users: list[tuple[int, UserEvent]] = []
        self.results: list[tuple[int, UserEvent, ToolResultBlock]] = []
        last: int | None = None
        for i, event in enumerate(events):
            self.prev_assistant.append(last)
            if isinstance(event, AssistantEvent):
                last = i
                for block in event.blocks:
                    if isinstance(block, ToolUseBlock):
                        self.tool_uses[block.id] = _ToolUse(i, block)
            elif isinstance(event, UserEvent):
                self.users.append((i, event))
                for block in event.blocks:
                    if isinstance(block, ToolResultBlock):
                        self.results.append((i, event, block))

    def tool(self, tool_use_id: str) -> _ToolUse | None:
        return self.tool_uses.get(tool_use_id)

    def tool_name(self, tool_use_id: str) -> str | None:
        use = self.tool_uses.get(tool_use_id)
        return use.block.name if use is not None else None


def is_human_message(event: TranscriptEvent) -> bool:
    """A user turn with text a person typed (not a bare marker, not scaffolding)."""
    return (
        isinstance(event, UserEvent)
        and bool(event.text.strip())
        and not is_bare_interrupt(event.text)
        and not is_scaffolding(event)
    )


def _signal(
    event: UserEvent,
    index: int,
    *,
    kind: SourceKind,
    detector: DetectorName,
    text: str,
    trigger_index: int | None,
    signal: CandidateSignal,
    lower_bound: int | None = None,
    evidence: Mapping[str, Any] | None = None,
) -> MiningSignal:
    meta = event.meta
    return MiningSignal(
        kind=kind,
        detector=detector,
        session_id=meta.session_id,
        event_index=index,
        event_uuid=meta.uuid,
        occurred_at=meta.timestamp,
        text=text,
        cc_version=meta.cc_version,
        trigger_index=trigger_index,
        signal=signal,
        lower_bound=lower_bound,
        evidence=dict(evidence or {}),
    )


def _calibrated(spec: ConfidenceSpec, seed: str, text: str) -> CandidateSignal:
    return score(spec, text, start=firm(seed), is_structural=is_structural)


# --------------------------------------------------------------- transcript_message


def _constant(value: bool) -> Callable[[str], bool]:
    def predicate(_text: str) -> bool:
        return value

    return predicate


def detect_transcript_messages(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event in index.users:
        text = event.text
        if not text.strip() or is_bare_interrupt(text):
            continue
        # Scaffolding is judged on the event (meta, sidechain, relay flags), not
        # only on the text, so the stage's predicate answers for this event.
        scaffolding = is_scaffolding(event)
        trigger = index.prev_assistant[i]
        signal = score(
            spec.user_message,
            text,
            index=i,
            trigger_index=trigger,
            is_structural=_constant(scaffolding),
        )
        yield _signal(
            event,
            i,
            kind=TRANSCRIPT_MESSAGE,
            detector="transcript_message",
            text=text,
            trigger_index=trigger,
            signal=signal,
            evidence={"provenance": classify(event, None, spec.provenance, from_tool=False)},
        )


# --------------------------------------------------------------- exit_plan_rejection


def detect_exit_plan_rejections(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event, block in index.results:
        if block.denial_kind != DENIAL_KIND_USER_REJECTED:
            continue
        use = index.tool(block.tool_use_id)
        if use is None or use.block.name not in spec.plan_tools:
            continue
        reason = embedded_reason(block.content)
        if reason is None:
            continue
        yield _signal(
            event,
            i,
            kind=PLAN_REVIEW,
            detector="exit_plan_rejection",
            text=reason,
            trigger_index=use.index,
            signal=_calibrated(spec.calibrated, "embedded_text", reason),
            evidence={"tool": use.block.name, "tool_use_id": block.tool_use_id},
        )


# --------------------------------------------------------------- plan_reentry


def _edit_before(
    events: Sequence[TranscriptEvent], at: int, spec: MiningSpec
) -> tuple[int, str] | None:
    """The nearest edit-tool use in the `reentry_lookback` events before `at`."""
    for j in range(at - 1, max(-1, at - 1 - spec.reentry_lookback), -1):
        event = events[j]
        if isinstance(event, AssistantEvent):
            for block in event.blocks:
                if isinstance(block, ToolUseBlock) and block.name in spec.edit_tools:
                    return j, block.name
    return None


def _next_human(events: Sequence[TranscriptEvent], start: int) -> int | None:
    for j in range(start, len(events)):
        if is_human_message(events[j]):
            return j
    return None


def detect_plan_reentries(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    # Going back into plan mode right after the agent edited files is the person
    # saying "stop, that was not the plan". Only a transition counts: Claude Code
    # repeats the mode on every entry while it holds, and a repeat is not a return.
    seen_users: set[str] = set()
    last_mode: str | None = None
    last_user_mode: str | None = None
    for i, event in enumerate(events):
        entered = False
        if isinstance(event, ModeEvent):
            entered = event.value == "plan" and last_mode != "plan"
            last_mode = event.value
            target = _next_human(events, i + 1) if entered else None
        elif isinstance(event, UserEvent) and event.permission_mode is not None:
            entered = event.permission_mode == "plan" and last_user_mode not in (None, "plan")
            last_user_mode = event.permission_mode
            target = i if entered and is_human_message(event) else None
        else:
            continue
        if not entered or target is None:
            continue
        edit = _edit_before(events, i, spec)
        if edit is None:
            continue
        user = events[target]
        assert isinstance(user, UserEvent)
        if user.meta.uuid in seen_users:
            continue
        seen_users.add(user.meta.uuid)
        yield _signal(
            user,
            target,
            kind=PLAN_REVIEW,
            detector="plan_reentry",
            text=user.text,
            trigger_index=index.prev_assistant[target],
            signal=_calibrated(spec.calibrated, "reentry_after_edit", user.text),
            lower_bound=edit[0],
            evidence={"mode_index": i, "edit_tool": edit[1]},
        )


# --------------------------------------------------------------- denial / interrupt


def _follow_up(events: Sequence[TranscriptEvent], start: int) -> tuple[int, CandidateSignal] | None:
    """What the person typed after a bare denial or interrupt.

    The window closes at the next assistant event: once the agent has moved on,
    a later message is about something else.
    """
    first_structural: int | None = None
    for j in range(start + 1, len(events)):
        event = events[j]
        if isinstance(event, AssistantEvent):
            break
        if not isinstance(event, UserEvent) or not event.text.strip():
            continue
        if is_bare_interrupt(event.text):
            continue
        if not is_scaffolding(event):
            return j, weak("bare_marker")
        if first_structural is None:
            first_structural = j
    if first_structural is not None:
        return first_structural, noise("structural_only")
    return None


def _follow_up_signal(
    events: Sequence[TranscriptEvent],
    marker: int,
    detector: DetectorName,
    trigger_index: int | None,
    evidence: Mapping[str, Any],
) -> MiningSignal | None:
    """The reply typed after the denial or interrupt at `marker`, as a signal."""
    follow = _follow_up(events, marker)
    if follow is None:
        return None
    j, signal = follow
    user = events[j]
    assert isinstance(user, UserEvent)
    return _signal(
        user,
        j,
        kind=INTERRUPT_REJECTION,
        detector=detector,
        text=user.text,
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
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
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
        reason = embedded_reason(block.content)
        if reason is not None:
            yield _signal(
                event,
                i,
                kind=INTERRUPT_REJECTION,
                detector="denial",
                text=reason,
                trigger_index=trigger,
                signal=_calibrated(spec.calibrated, "embedded_text", reason),
                evidence=evidence,
            )
            continue
        followed = _follow_up_signal(events, i, "denial", trigger, evidence)
        if followed is not None:
            yield followed


def _interrupt_anchors(
    events: Sequence[TranscriptEvent], index: _Index
) -> Iterator[tuple[int, str | None]]:
    """(event index, interrupted tool name) of every interrupt, one per agent turn.

    Claude Code writes an interrupt twice when it lands during a tool call: as the
    tool_result content and again as a user text right after. A user-text marker
    is only its own interrupt when no tool-result marker or denial since the last
    assistant event already stands for it.
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
        if not found and not anchored and is_bare_interrupt(event.text):
            anchored = True
            yield i, None


def detect_interrupts(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, tool in _interrupt_anchors(events, index):
        followed = _follow_up_signal(
            events, i, "interrupt", index.prev_assistant[i], {"tool": tool}
        )
        if followed is not None:
            yield followed


# --------------------------------------------------------------- review_comment


def detect_review_comments(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
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
                texts.append((block.text, None, False))
            elif isinstance(block, ToolResultBlock):
                texts.append((block.content, index.tool_name(block.tool_use_id), True))
        if not texts and event.text:
            texts.append((event.text, None, False))
        for text, tool, from_tool in texts:
            provenance = classify(event, tool, spec.provenance, from_tool=from_tool)
            if provenance not in surfaces:
                continue
            for fmt, pattern in compiled:
                for comment in extract_comments(fmt, text, pattern):
                    yield _signal(
                        event,
                        i,
                        kind=REVIEW_COMMENT,
                        detector="review_comment",
                        text=comment.comment,
                        trigger_index=index.prev_assistant[i],
                        signal=_calibrated(spec.calibrated, "format_match", comment.comment),
                        evidence={
                            "format": fmt.name,
                            "file": comment.file,
                            "line_start": comment.line_start,
                            "line_end": comment.line_end,
                            "provenance": provenance,
                            "tool": tool,
                        },
                    )


# --------------------------------------------------------------- ask_user_question


@dataclass(frozen=True, slots=True)
class _Answer:
    question: str
    answer: str
    header: str | None = None
    multi_select: bool = False
    labels: tuple[str, ...] = ()
    preview: str | None = None
    notes: str | None = None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _question_meta(
    question: str, structured: Sequence[Any], use: _ToolUse | None
) -> tuple[str | None, bool, tuple[str, ...]]:
    """(header, multi_select, option labels) for `question`, from the result or the call."""
    for item in structured:
        if isinstance(item, Mapping) and item.get("question") == question:
            options = item.get("options")
            labels = tuple(
                o["label"]
                for o in (options if isinstance(options, list) else ())
                if isinstance(o, Mapping) and isinstance(o.get("label"), str)
            )
            return _str(item.get("header")), item.get("multiSelect") is True, labels
    if use is not None:
        for q in use.block.questions or ():
            if q.question == question:
                return q.header, q.multi_select, q.labels
    return None, False, ()


def _structured_answers(result: Mapping[str, Any], use: _ToolUse | None) -> list[_Answer]:
    answers = result.get("answers")
    if not isinstance(answers, Mapping):
        return []
    raw_questions = result.get("questions")
    questions: Sequence[Any] = raw_questions if isinstance(raw_questions, list) else ()
    raw_annotations = result.get("annotations")
    annotations: Mapping[str, Any] = raw_annotations if isinstance(raw_annotations, Mapping) else {}
    out: list[_Answer] = []
    for question, answer in answers.items():
        if not isinstance(question, str):
            continue
        if isinstance(answer, list):
            answer = ", ".join(a for a in answer if isinstance(a, str))
        if not isinstance(answer, str):
            continue
        note = annotations.get(question)
        preview = _str(note.get("preview")) if isinstance(note, Mapping) else None
        notes = _str(note.get("notes")) if isinstance(note, Mapping) else None
        header, multi, labels = _question_meta(question, questions, use)
        out.append(_Answer(question, answer, header, multi, labels, preview, notes))
    return out


def _banner_answers(content: str, use: _ToolUse | None) -> list[_Answer]:
    """Parse the older `Your questions have been answered: "q"="a", ...` banner."""
    start = content.find(ANSWERED_PREFIX)
    if start < 0:
        return []
    body = content[start + len(ANSWERED_PREFIX) :]
    end = body.rfind(ANSWERED_TRAILER)
    if end >= 0:
        body = body[:end]
    out: list[_Answer] = []
    for match in _ANSWER_PAIR_RE.finditer(body.strip()):
        question, answer = match.group("q"), match.group("a")
        notes: str | None = None
        preview: str | None = None
        if ANSWER_NOTES_SEPARATOR in answer:
            answer, notes = answer.split(ANSWER_NOTES_SEPARATOR, 1)
        if ANSWER_PREVIEW_SEPARATOR in answer:
            answer, preview = answer.split(ANSWER_PREVIEW_SEPARATOR, 1)
        header, multi, labels = _question_meta(question, (), use)
        out.append(_Answer(question, answer, header, multi, labels, preview, notes))
    return out


def _answer_signal(
    answer: _Answer, spec: MiningSpec
) -> tuple[str, CandidateSignal, dict[str, Any]] | None:
    typed = answer.answer.strip()
    notes = (answer.notes or "").strip() or None
    if typed == ANSWER_NO_OPTION:
        typed = ""
    picked: tuple[str, ...] = ()
    option_pick = False
    if typed and answer.labels:
        parts = tuple(p.strip() for p in typed.split(", ")) if answer.multi_select else (typed,)
        if all(p in answer.labels for p in parts):
            picked, option_pick = parts, True
    evidence: dict[str, Any] = {
        "question": answer.question,
        "header": answer.header,
        "multi_select": answer.multi_select,
        "option_pick": option_pick,
        "picked_labels": list(picked),
        "recommended_pick": any(RECOMMENDED_MARK in p for p in picked),
    }
    if answer.preview is not None:
        evidence["preview"] = answer.preview
    if notes is not None:
        evidence["notes"] = notes
    if option_pick and notes is None:
        # Choosing one of the agent's own options says little about the person.
        return typed, weak("option_pick"), evidence
    text = notes if option_pick or not typed else typed
    if not text:
        return None
    return text, _calibrated(spec.calibrated, "freeform_answer", text), evidence


def detect_question_answers(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event, block in index.results:
        use = index.tool(block.tool_use_id)
        name = use.block.name if use is not None else None
        result = block.tool_use_result
        answers: list[_Answer] = []
        if isinstance(result, Mapping) and "answers" in result:
            answers = _structured_answers(result, use)
        elif ANSWERED_PREFIX in block.content:
            answers = _banner_answers(block.content, use)
        elif name == ASK_USER_QUESTION and block.denial_kind == DENIAL_KIND_USER_REJECTED:
            # The person dismissed the options and typed instead: the denial
            # banner on this tool carries an answer, not a rejection.
            reason = embedded_reason(block.content)
            questions = (use.block.questions or ()) if use is not None else ()
            if reason is not None:
                first = questions[0] if questions else None
                answers = [
                    _Answer(
                        first.question if first else "",
                        reason,
                        first.header if first else None,
                        first.multi_select if first else False,
                        (),
                    )
                ]
        for answer in answers:
            scored = _answer_signal(answer, spec)
            if scored is None:
                continue
            text, signal, evidence = scored
            yield _signal(
                event,
                i,
                kind=QUESTION_ANSWER,
                detector="ask_user_question",
                text=text,
                trigger_index=use.index if use is not None else index.prev_assistant[i],
                signal=signal,
                evidence=evidence,
            )


# --------------------------------------------------------------- mine

Detector = Callable[[Sequence[TranscriptEvent], _Index, MiningSpec], Iterator[MiningSignal]]

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
    events: Iterable[TranscriptEvent], spec: MiningSpec | None = None
) -> Iterator[MiningSignal]:
    """Every MiningSignal in `events`, detector by detector in DETECTOR_ORDER.

    The events are materialized first (a lazy EventList is read once per
    position), so each signal's `event_index` addresses the sequence as given.
    """
    spec = spec if spec is not None else MiningSpec()
    materialized: Sequence[TranscriptEvent] = (
        events if isinstance(events, list | tuple) else list(events)
    )
    index = _Index(materialized)
    return _run(materialized, index, spec)


def _run(
    events: Sequence[TranscriptEvent], index: _Index, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for name in DETECTOR_ORDER:
        if name in spec.detectors:
            yield from DETECTORS[name](events, index, spec)
