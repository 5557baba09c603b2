"""Compositionality on line boundaries, pinned with generated transcripts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn.transcripts import parse, parse_events_from_bytes

SHAPES = Path(__file__).parent / "fixtures" / "shapes" / "claude_shapes.jsonl"
SHAPE_LINES = [ln for ln in SHAPES.read_bytes().split(b"\n") if ln.strip()]

_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


@st.composite
def _user_line(draw: st.DrawFn) -> bytes:
    text = draw(st.one_of(_text, st.sampled_from([
        "[Request interrupted by user]", "<teammate-message>x", "use uv\nnot pip"])))
    content: object = text if draw(st.booleans()) else [{"type": "text", "text": text}]
    return json.dumps({
        "type": "user", "uuid": draw(st.uuids()).hex, "parentUuid": None, "sessionId": "s",
        "timestamp": "2026-01-05T10:00:00Z", "isSidechain": draw(st.booleans()),
        "message": {"role": "user", "content": content},
    }).encode()


@st.composite
def _assistant_line(draw: st.DrawFn) -> bytes:
    return json.dumps({
        "type": "assistant", "uuid": draw(st.uuids()).hex, "sessionId": "s",
        "timestamp": "2026-01-05T10:00:01+02:00",
        "message": {"model": "m", "content": [
            {"type": "text", "text": draw(_text)},
            {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": draw(_text)}},
        ]},
    }).encode()


_garbage = st.binary(max_size=30).map(lambda b: b.replace(b"\n", b""))
_line = st.one_of(
    st.sampled_from(SHAPE_LINES),
    _user_line(),
    _assistant_line(),
    st.sampled_from([b"", b"   ", b"[1,2]", b"null", b'"s"', b"{", b'{"type": 3}']),
    _garbage,
    st.sampled_from(SHAPE_LINES).flatmap(
        lambda ln: st.integers(1, max(1, len(ln) - 1)).map(lambda k: ln[:k])),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=25), data=st.data())
def test_parse_composes_on_any_line_boundary(lines: list[bytes], data: st.DataObject) -> None:
    flip: bool = data.draw(st.booleans())
    whole = b"".join(ln + b"\n" for ln in lines)
    if lines and flip:
        whole = whole[:-1]  # unterminated final line
    cut = data.draw(st.integers(0, len(lines)))
    head = b"".join(ln + b"\n" for ln in lines[:cut])
    tail = whole[len(head):]
    assert parse_events_from_bytes(head) + parse_events_from_bytes(tail) == \
        parse_events_from_bytes(whole)
    # Skip accounting composes too.
    t_all, t_head, t_tail = parse(whole), parse(head), parse(tail)
    if t_all.provider == t_head.provider == t_tail.provider == "claude":
        assert Counter(t_head.skipped) + Counter(t_tail.skipped) == Counter(t_all.skipped)
