"""An entry whose time is off is read, not dropped (crash audit 61 F3).

A Claude Code line whose `timestamp` was missing, null, an epoch number or written
without an offset was skipped whole as "invalid": "we're on bun now" with its time
field lost went, and the proposal it made third fell below the threshold. Now its
time is mended (a number as epoch seconds or milliseconds, an offset-less time as
UTC) or lent by the entry before it (after it, at the head of the file); only a file
where no entry has a time still skips them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from learn.transcripts import parse, parse_event
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session

_MISSING = object()


def _line(uuid: str, parent: str | None, when: object, text: str,
          role: str = "user") -> dict[str, object]:
    if role == "user":
        message: dict[str, object] = {"role": "user", "content": text}
    else:
        message = {"id": f"m{uuid}", "type": "message", "role": "assistant", "model": "m",
                   "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 1, "output_tokens": 1}}
    line: dict[str, object] = {"type": role, "uuid": uuid, "parentUuid": parent,
                               "sessionId": "s", "cwd": "/p", "message": message}
    if when is not _MISSING:
        line["timestamp"] = when
    return line


def _jsonl(*lines: dict[str, object]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _times(raw: bytes) -> dict[str, datetime]:
    t = parse(raw)
    return {e.meta.uuid: e.meta.timestamp for e in t.events}  # type: ignore[union-attr]


T0 = datetime(2026, 1, 5, 10, tzinfo=UTC)


@pytest.mark.parametrize(("when", "expected"), [
    (_MISSING, T0), (None, T0), ("not a time", T0), ([], T0),
    (1767607200, datetime(2026, 1, 5, 10, tzinfo=UTC)),  # epoch seconds
    (1767607200500, datetime(2026, 1, 5, 10, 0, 0, 500000, tzinfo=UTC)),  # milliseconds
    ("2026-01-05T11:30:00", datetime(2026, 1, 5, 11, 30, tzinfo=UTC)),  # no offset: UTC
    ("2026-01-05T12:00:00+02:00", datetime(2026, 1, 5, 10, tzinfo=UTC)),
])
def test_a_typed_line_with_its_time_off_is_kept(when: object, expected: datetime) -> None:
    raw = _jsonl(_line("a", None, "2026-01-05T10:00:00Z", "run the tests", "assistant"),
                 _line("b", "a", when, "we're on bun now, not npm"))
    t = parse(raw)
    assert [e.meta.uuid for e in t.events] == ["a", "b"]  # type: ignore[union-attr]
    assert t.skipped == {}
    assert t.events[1].meta.timestamp == expected  # type: ignore[union-attr]


def test_the_head_of_a_file_borrows_the_first_time_after_it() -> None:
    raw = _jsonl(_line("a", None, None, "first"), _line("b", "a", _MISSING, "second"),
                 _line("c", "b", "2026-01-05T10:00:00Z", "ok", "assistant"),
                 _line("d", "c", None, "later"),
                 _line("e", "d", "2026-01-05T10:07:00Z", "done", "assistant"))
    assert _times(raw) == {"a": T0, "b": T0, "c": T0, "d": T0,
                           "e": datetime(2026, 1, 5, 10, 7, tzinfo=UTC)}


def test_a_file_with_no_time_at_all_still_skips_its_entries() -> None:
    t = parse(_jsonl(_line("a", None, None, "one"), _line("b", "a", _MISSING, "two")))
    assert list(t.events) == [] and t.skipped == {"invalid": 2}


def test_one_line_alone_has_no_neighbour_to_lend_a_time() -> None:
    with pytest.raises(ValueError, match="invalid"):
        parse_event(_line("a", None, None, "alone"))
    assert parse_event(_line("a", None, 1767607200, "epoch")).meta.timestamp == T0  # type: ignore[union-attr]


def test_the_correction_is_a_typed_turn_of_the_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_jsonl(
        _line("a", None, "2026-01-05T10:00:00Z", "add a lint step"),
        _line("b", "a", "2026-01-05T10:00:05Z", "I'll run npm install first.", "assistant"),
        _line("c", "b", None, "we're on bun now, not npm"),
        _line("d", "c", "2026-01-05T10:01:00Z", "Switching to bun.", "assistant")))
    session = build_session(parse_buffer(path.read_bytes(), path=path, mtime=0.0))
    assert [t.text for t in session.human_turns] == ["add a lint step",
                                                     "we're on bun now, not npm"]
    assert session.human_turns[1].at == datetime(2026, 1, 5, 10, 0, 5, tzinfo=UTC)


def test_a_system_line_keeps_its_record_as_written() -> None:
    system: dict[str, object] = {"type": "system", "subtype": "informational", "uuid": "s1",
                                 "parentUuid": "a", "sessionId": "s", "content": "note",
                                 "level": "info"}
    t = parse(_jsonl(_line("a", None, "2026-01-05T10:00:00Z", "hi"), system))
    got = [e for e in t.events if getattr(getattr(e, "meta", None), "uuid", None) == "s1"]
    assert got and got[0].meta.timestamp == T0  # type: ignore[union-attr]
    assert "timestamp" not in got[0].detail.raw  # type: ignore[union-attr]
