"""Turn a miner answer into candidates, forgiving of everything but emptiness.

Backends that return text (a local model without tool calling, the `claude`
CLI) fence JSON even when told not to, and occasionally prepend a sentence, so
the object is taken between the outermost braces. A truncated answer keeps the
candidates that arrived whole. A chunk whose answer cannot be parsed at all is
reported as malformed (None) so the miner can count and skip it: one bad chunk
must not lose a whole run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from learn.models.call import AnswerInvalid
from learn.records.candidate import KINDS, CandidateKind, MinedCandidate

MAX_CANDIDATES_PER_CHUNK: Final = 40
MAX_TEXT_CHARS: Final = 4000
MAX_FIELD_CHARS: Final = 400
MAX_LIST_ITEMS: Final = 12
MAX_LIST_ITEM_CHARS: Final = 300

# Models trained on camelCase answer in it; the contract is snake_case.
_ALIASES: Final = {
    "errorExcerpt": "error_excerpt",
    "interveningCommands": "intervening_commands",
    "editedFiles": "edited_files",
}


def _object_from_text(text: str) -> Any:
    square = text.find("[")
    if square != -1 and (text.find("{") == -1 or square < text.find("{")):
        # A bare array of candidates, as some local models answer.
        try:
            return json.loads(text[square : text.rfind("]") + 1])
        except (ValueError, RecursionError):  # RecursionError: nested past ~1,000 levels
            pass
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        try:
            return json.loads(text[start : end + 1])
        except (ValueError, RecursionError):
            pass
    return _salvage(text)


def _salvage(text: str) -> Any:
    """The whole candidate objects before a cut: `{"candidates":[{...},{...},{"ki`."""
    key = text.find('"candidates"')
    if key == -1:
        return None
    bracket = text.find("[", key)
    if bracket == -1:
        return None
    decoder = json.JSONDecoder()
    items: list[Any] = []
    pos = bracket + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            break
        try:
            item, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            break
        items.append(item)
    return {"candidates": items}


def _text(value: Any, limit: int | None = None) -> str | None:
    if not isinstance(value, str):
        return None
    text: str = value.strip()
    if not text:
        return None
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + "…"
    return text


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence):
        return ()
    out = [s for s in (_text(v, MAX_LIST_ITEM_CHARS) for v in value) if s]
    return tuple(out[:MAX_LIST_ITEMS])


def _candidate(raw: Any) -> MinedCandidate | None:
    if not isinstance(raw, Mapping):
        return None
    row = {_ALIASES.get(str(k), str(k)): v for k, v in raw.items()}
    kind = row.get("kind")
    kind = kind.strip().casefold() if isinstance(kind, str) else None
    text = _text(row.get("text"), MAX_TEXT_CHARS)
    if kind not in KINDS or text is None:
        return None
    kind_: CandidateKind = kind
    # Any `label` the model adds is ignored: naming is global, never per session.
    return MinedCandidate(
        kind=kind_,
        text=text,
        rationale=_text(row.get("rationale"), MAX_FIELD_CHARS),
        command=_text(row.get("command"), MAX_FIELD_CHARS),
        error_excerpt=_text(row.get("error_excerpt"), MAX_FIELD_CHARS),
        intervening_commands=_strings(row.get("intervening_commands")),
        edited_files=_strings(row.get("edited_files")),
    )


def parse_answer(tool_input: Mapping[str, Any] | str) -> list[MinedCandidate] | None:
    """Candidates in an answer, or None when the answer has no candidate list at all."""
    data: Any = _object_from_text(tool_input) if isinstance(tool_input, str) else tool_input
    if isinstance(data, Sequence) and not isinstance(data, str):
        data = {"candidates": data}
    if not isinstance(data, Mapping):
        return None
    rows = data.get("candidates")
    # Some models stringify nested arrays inside tool input.
    if isinstance(rows, str):
        rows = _object_from_text('{"candidates": ' + rows + "}")
        rows = rows.get("candidates") if isinstance(rows, Mapping) else None
    if not isinstance(rows, Sequence) or isinstance(rows, str):
        return None
    out: list[MinedCandidate] = []
    for raw in rows:
        candidate = _candidate(raw)
        if candidate is not None:
            out.append(candidate)
        if len(out) >= MAX_CANDIDATES_PER_CHUNK:
            break
    return out


def check_answer(tool_input: Mapping[str, Any]) -> list[MinedCandidate]:
    """The candidates of a whole, valid answer; `AnswerInvalid` says what is wrong.

    The check `learn.models.call` retries against: an answer without a
    candidate list, or with an item that is not a candidate, goes back to the
    model with this message instead of silently losing the item.
    """
    found = parse_answer(tool_input)
    if found is None:
        raise AnswerInvalid(
            "candidates: required, a list of objects with kind (directive|fix|request) and text"
        )
    rows = tool_input.get("candidates")
    if isinstance(rows, Sequence) and not isinstance(rows, str):
        bad = [i for i, row in enumerate(rows[:MAX_CANDIDATES_PER_CHUNK]) if _candidate(row) is None]
        if bad:
            where = ", ".join(f"candidates.{i}" for i in bad[:5])
            raise AnswerInvalid(
                f"{where}: each candidate needs kind (one of directive, fix, request) and a "
                "non-empty text"
            )
    return found


def parse_candidates(tool_input: Mapping[str, Any] | str) -> list[MinedCandidate]:
    """Tolerant parse (the seed's contract): an unparseable answer is no candidates."""
    return parse_answer(tool_input) or []
