"""The ask_user_question detector: what the person answered beyond picking an option.

AskUserQuestion results carry the answers twice over the client versions: a
structured `toolUseResult` (answers, annotations with notes and previews) and,
on older builds, only the `Your questions have been answered: "q"="a"` banner.
When the person dismisses the options and types instead, the result reuses
the tool-denial banner, and that text is an answer, not a rejection.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from learn.detect.confidence import CandidateSignal, weak
from learn.detect.emit import calibrated, emit
from learn.detect.signals import QUESTION_ANSWER, MiningSignal
from learn.detect.spec import MiningSpec
from learn.detect.usertext import SessionIndex, ToolUse
from learn.secret_answers import redact_answer
from learn.transcripts.claude.literals import (
    ANSWER_NO_OPTION,
    ANSWER_NOTES_SEPARATOR,
    ANSWER_PREVIEW_SEPARATOR,
    ANSWERED_PREFIX,
    ANSWERED_TRAILER,
    ASK_USER_QUESTION,
    DENIAL_KIND_USER_REJECTED,
    embedded_reason,
)
from learn.transcripts.models import TranscriptEvent

RECOMMENDED_MARK = "(Recommended)"

# One `"<question>"="<answer>"` pair of the AskUserQuestion banner. The answer
# runs lazily up to the next `", "<next question>"=` or the end, because answers
# (free text) may themselves contain quotes and commas.
_ANSWER_PAIR_RE = re.compile(r'"(?P<q>.*?)"="(?P<a>.*?)"(?=, "|\Z)', re.DOTALL)


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
    question: str, structured: Sequence[Any], use: ToolUse | None
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


def _structured_answers(result: Mapping[str, Any], use: ToolUse | None) -> list[_Answer]:
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


def _banner_answers(content: str, use: ToolUse | None) -> list[_Answer]:
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
    # A bare value typed in answer to "What is the DB password?" is a secret the
    # question names; the option check below still sees the picked labels as typed.
    typed = answer.answer.strip()
    if typed not in answer.labels:
        typed = redact_answer(answer.question, typed)
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
    return text, calibrated(spec.calibrated, "freeform_answer", text), evidence


def detect_question_answers(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
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
            yield emit(
                event,
                i,
                kind=QUESTION_ANSWER,
                detector="ask_user_question",
                text=text,
                trigger_index=use.index if use is not None else index.prev_assistant[i],
                signal=signal,
                evidence=evidence,
            )


