"""Bad input is skipped and counted by reason; nothing raises."""

from __future__ import annotations

import json
import os
import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from learn.transcripts import (
    AssistantEvent,
    OtherEvent,
    UserEvent,
    parse,
    parse_events_from_bytes,
)

SHAPES = Path(__file__).parent / "fixtures" / "shapes" / "claude_shapes.jsonl"
_MID_LINE_OPENING = re.compile(rb'.\{"(?:parentUuid|type)":', re.S)


def _user(uuid: str = "u1", **extra: object) -> dict[str, object]:
    line: dict[str, object] = {
        "type": "user", "uuid": uuid, "parentUuid": None, "sessionId": "s",
        "timestamp": "2026-01-05T10:00:00Z", "message": {"role": "user", "content": "hi"},
    }
    line.update(extra)
    return line


def _jsonl(*objs: object) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def test_blank_lines_are_silent() -> None:
    t = parse(b"\n   \n" + _jsonl(_user()) + b"\r\n\t\n\n")
    assert len(t.events) == 1 and t.skipped == {} and t.skipped_lines == 0


def test_each_skip_reason_is_counted() -> None:
    # An entry whose time is off is read with its time mended (test_entry_times.py).
    bad_ts = _user("u2", timestamp="2026-01-05T10:00:00")  # no offset: read as UTC
    no_uuid = _user()
    del no_uuid["uuid"]
    year0 = _user("u3", timestamp="0000-01-01T00:00:00Z")  # no time: lent u2's
    raw = (
        _jsonl(_user("ok"))
        + b"{not json\n"
        + b"\xff\xfe\xfd\n"
        + b"[1, 2, 3]\n"
        + b'"a string"\n'
        + b"42\n"
        + _jsonl(no_uuid, bad_ts, year0)
        + b'{"no_type": 1}\n'
        + b'{"type": 7}\n'
        + b'{"type": "assistant", "uuid": "a", "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z"}\n'
    )
    t = parse(raw)
    assert [e.meta.uuid for e in t.events] == ["ok", "u2", "u3"]  # type: ignore[union-attr]
    assert t.events[1].meta.timestamp == t.events[2].meta.timestamp == datetime(  # type: ignore[union-attr]
        2026, 1, 5, 10, tzinfo=UTC)
    assert t.skipped == {"undecodable": 2, "not_object": 3, "invalid": 4}
    assert t.skipped_lines == 9


def test_truncated_last_line_of_a_live_session() -> None:
    whole = _jsonl(_user("a"), _user("b"))
    cut = whole[: len(whole) - 15]
    t = parse(cut)
    assert [e.meta.uuid for e in t.events] == ["a"]  # type: ignore[union-attr]
    assert t.skipped == {"undecodable": 1}


def test_unterminated_last_line_parses() -> None:
    assert len(parse(_jsonl(_user("a")).rstrip(b"\n")).events) == 1


def test_zero_byte_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    t = parse(empty)
    assert len(t.events) == 0 and t.skipped_lines == 0 and t.path == empty


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        parse(tmp_path / "gone.jsonl")


def test_huge_line(tmp_path: Path) -> None:
    big = "x" * (12 * 1024 * 1024)
    path = tmp_path / "big.jsonl"
    path.write_bytes(_jsonl(_user("big", message={"role": "user", "content": big}), _user("next")))
    t = parse(path)
    assert len(t.events) == 2
    first = t.events[0]
    assert isinstance(first, UserEvent) and len(first.text) == len(big)


def test_invalid_utf8_inside_a_string_value_is_replaced_and_the_line_kept() -> None:
    line = b'{"type":"user","uuid":"u","sessionId":"s","timestamp":"2026-01-05T10:00:00Z",' \
           b'"message":{"content":"bad \xff byte"}}\n'
    t = parse(line + _jsonl(_user("ok")))
    assert [e.meta.uuid for e in t.events] == ["u", "ok"]  # type: ignore[union-attr]
    first = t.events[0]
    assert isinstance(first, UserEvent) and first.text == "bad \ufffd byte"
    assert t.skipped == {}


def test_a_line_nested_past_the_decoders_limit_is_skipped_as_too_deep() -> None:
    deep = b'{"type":"user","uuid":"d","sessionId":"s","timestamp":"2026-01-05T10:00:00Z",' \
           b'"message":{"content":' + b"[" * 1100 + b"]" * 1100 + b"}}\n"
    other = b'{"type":"brand-new","v":' + b"{\"a\":" * 1100 + b"1" + b"}" * 1100 + b"}\n"
    t = parse(deep + other + _jsonl(_user("ok")))
    assert [e.meta.uuid for e in t.events] == ["ok"]  # type: ignore[union-attr]
    assert t.skipped == {"too_deep": 2}


def test_invalid_utf8_in_a_codex_line_is_replaced_and_the_line_kept() -> None:
    meta = b'{"timestamp":"2026-01-05T10:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/p"}}\n'
    said = b'{"timestamp":"2026-01-05T10:00:01Z","type":"event_msg","payload":' \
           b'{"type":"user_message","message":"caf\xe9 prices in euros"}}\n'
    deep = b'{"timestamp":"2026-01-05T10:00:02Z","type":"event_msg","payload":{"type":"x","v":' \
           + b"[" * 1100 + b"]" * 1100 + b"}}\n"
    t = parse(meta + said + deep)
    users = [e for e in t.events if isinstance(e, UserEvent)]
    assert [u.text for u in users] == ["caf\ufffd prices in euros"]
    assert t.skipped == {"too_deep": 1}


def test_unknown_types_are_kept_not_skipped() -> None:
    raw = _jsonl(
        {"type": "brand-new-entry", "x": 1},
        _user("u", message={"role": "user", "content": [{"type": "video", "url": "v"},
                                                        {"type": "text", "text": "t"}]}),
        {"type": "system", "subtype": "brand_new", "uuid": "s", "sessionId": "s",
         "timestamp": "2026-01-05T10:00:00Z", "content": {"not": "a string"}},
        {"type": "attachment", "uuid": "t", "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z",
         "attachment": {"type": "brand_new", "hookName": {"weird": True}}},
    )
    t = parse(raw)
    assert t.skipped == {}
    kinds = [type(e).__name__ for e in t.events]
    assert kinds == ["OtherEvent", "UserEvent", "SystemEvent", "AttachmentEvent"]
    other = t.events[0]
    assert isinstance(other, OtherEvent) and other.raw == {"type": "brand-new-entry", "x": 1}


def test_null_usage_counts_read_as_zero() -> None:
    line = {
        "type": "assistant", "uuid": "a", "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z",
        "message": {"model": "m", "content": [], "usage": {
            "input_tokens": 3, "output_tokens": None, "cache_read_input_tokens": None,
            "cache_creation_input_tokens": 1}},
    }
    (event,) = parse_events_from_bytes(_jsonl(line))
    assert isinstance(event, AssistantEvent) and event.usage is not None
    assert (event.usage.input_tokens, event.usage.output_tokens) == (3, 0)


def test_empty_parent_and_version_read_as_none() -> None:
    (event,) = parse_events_from_bytes(_jsonl(_user(parentUuid="", version="")))
    assert isinstance(event, UserEvent)
    assert event.meta.parent_uuid is None and event.meta.cc_version is None


def test_never_modifies_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    data = SHAPES.read_bytes() + b"{broken\n"
    path.write_bytes(data)
    os.chmod(path, 0o400)
    parse(path)
    assert path.read_bytes() == data


def _corrupt(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        op = rng.random()
        pos = rng.randrange(len(buf) + 1)
        if op < 0.4 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif op < 0.7:
            buf[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del buf[pos:pos + rng.randint(1, 50)]
    return bytes(buf)


def test_fuzz_corrupted_transcripts_never_raise() -> None:
    rng = random.Random(1417)
    base = SHAPES.read_bytes()
    total_lines = base.count(b"\n")
    for _ in range(300):
        data = _corrupt(rng, base)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data) + 1)]
        t = parse(data)
        events = list(t.events)  # materialize everything
        lines = [ln for ln in data.split(b"\n") if ln.strip()]
        nonblank = len(lines)
        # Every non-blank line is either an event or a counted skip; a line a deleted
        # newline spliced from two records (`claude.decode`, 5) is read as both, the
        # cut one counted: at most one more, only where a record opens mid-line.
        spliced = sum(1 for ln in lines if _MID_LINE_OPENING.search(ln))
        assert nonblank <= len(events) + t.skipped_lines <= nonblank + spliced
        assert set(t.skipped) <= {"undecodable", "not_object", "invalid"}
        assert t.skipped_lines == sum(t.skipped.values())
        assert nonblank <= total_lines + 400


def test_fuzz_random_bytes_never_raise() -> None:
    rng = random.Random(7)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))
        data = data.replace(b"\r", b"\n") if rng.random() < 0.5 else data
        t = parse(data)
        assert len(list(t.events)) + t.skipped_lines == sum(
            1 for ln in data.split(b"\n") if ln.strip())


def test_assistant_string_content_reads_as_one_text_block() -> None:
    line = {
        "type": "assistant", "uuid": "a", "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z",
        "message": {"model": "m", "content": "plain reply"},
    }
    (event,) = parse_events_from_bytes(_jsonl(line))
    assert isinstance(event, AssistantEvent)
    assert event.text == "plain reply"


def test_whitespace_only_lines_of_any_kind_are_silent() -> None:
    ok = _jsonl(_user("a"), _user("b"))
    t = parse(b" \x0b\x0c \n" + ok + b"\r\n\x0c\n \t \r\n")
    assert [e.meta.uuid for e in t.events] == ["a", "b"]  # type: ignore[union-attr]
    assert t.skipped == {}
    # ...but whitespace around a bad line does not hide it.
    assert parse(ok + b"  {nope  \n").skipped == {"undecodable": 1}
