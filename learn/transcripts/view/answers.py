"""AskUserQuestion: what the person wrote in answer, beyond picking an option.

An answer is a human turn only when it was typed: a picked label is the agent's
words chosen from a menu. Both the structured `toolUseResult` and the banner
(`Your questions have been answered: "q"="a", ...`) older builds wrote only are
read here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from learn.lazy import lazy_pattern
from learn.secret_answers import redact_answer
from learn.transcripts.blocks import (
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.claude.literals import (
    ANSWER_NO_OPTION,
    ANSWER_NOTES_SEPARATOR,
    ANSWER_PREVIEW_SEPARATOR,
    ANSWERED_PREFIX,
    ANSWERED_TRAILER,
)


def has_answers(result: ToolResultBlock) -> bool:
    payload = result.tool_use_result
    # None, str and dict (what the decoder gives) by exact type first: asked of every
    # tool result, and an ABC isinstance (Mapping) costs a Python-level call each.
    if payload is not None and type(payload) is not str and (
            type(payload) is dict or isinstance(payload, Mapping)):
        answers = payload.get("answers")
        if answers is not None and (type(answers) is dict or isinstance(answers, Mapping)):
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
                # The question says what a bare answer is ("What is the DB password?").
                out.append(redact_answer(question, answer.strip()))
        annotations = payload.get("annotations")
        if type(annotations) is dict or isinstance(annotations, Mapping):
            for note in annotations.values():
                if type(note) is dict or isinstance(note, Mapping):
                    text = note.get("notes")
                    if isinstance(text, str) and text.strip():
                        out.append(text.strip())
        return out
    for question, answer, notes in parse_answer_banner(result.content):
        if not _is_option_pick(answer, labels.get(question)):
            out.append(redact_answer(question, answer.strip()))
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
    # dict (what the decoder gives) by exact type first: an ABC isinstance is a call.
    if (type(payload) is dict or isinstance(payload, Mapping)) and isinstance(
            payload.get("questions"), list):
        for item in payload["questions"]:
            if not (type(item) is dict or isinstance(item, Mapping)) or not isinstance(
                    item.get("question"), str):
                continue
            options = item.get("options")
            if isinstance(options, list):
                found: list[str] = []
                for option in options:
                    if isinstance(option, str):
                        found.append(option)
                    elif (type(option) is dict or isinstance(option, Mapping)) and isinstance(
                            option.get("label"), str):
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


_PAIR_START_RE: Final = lazy_pattern(r'(?:\A|, )"([^"]*)"="')
_ANSWER_TAIL_RE: Final = lazy_pattern(
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


