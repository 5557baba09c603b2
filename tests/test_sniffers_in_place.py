"""The format sniffers every file a listing reads is asked (Codex, Gemini CLI, Copilot
CLI) search the buffer in place rather than a copy of its first line: the same answer
as the copying tests they replaced, on buffers made of the markers they look for."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from learn.transcripts.codex.meta import is_codex
from learn.transcripts.copilot.events import _LINE, _SNIFF_LINES, is_copilot
from learn.transcripts.gemini.record import _SNIFF_BYTES, is_gemini

_ANY = msgspec.json.Decoder()


def _codex_by_copy(buf: bytes) -> bool:
    start = 0
    while True:
        end = buf.find(b"\n", start)
        line = buf[start:] if end < 0 else buf[start:end]
        if line.strip():
            break
        if end < 0:
            return False
        start = end + 1
    if b'"session_meta"' not in line and b'"instructions"' not in line:
        return False
    try:
        first = _ANY.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False
    if not isinstance(first, dict):
        return False
    if first.get("type") == "session_meta":
        return True
    return "type" not in first and isinstance(first.get("id"), str) and "instructions" in first


def _gemini_by_copy(buf: bytes) -> bool:
    head = buf[:_SNIFF_BYTES]
    if b'"projectHash"' not in head or b'"sessionId"' not in head:
        return False
    return head.lstrip()[:1] == b"{"


def _copilot_line_by_copy(raw: bytes) -> bool | None:
    if not (raw.startswith(b"{") and raw.endswith(b"}")) or b'"type"' not in raw:
        return None
    if b'"data"' not in raw:
        return False
    try:
        line = _LINE.decode(raw)
    except msgspec.ValidationError:
        return False
    except (msgspec.DecodeError, RecursionError):
        return None
    return "." in line.type and isinstance(line.data, dict) and line.timestamp is not None


def _copilot_by_copy(buf: bytes) -> bool:
    at = 0
    for _ in range(_SNIFF_LINES):
        end = buf.find(b"\n", at)
        line = (buf[at:] if end < 0 else buf[at:end]).strip()
        if line:
            verdict = _copilot_line_by_copy(line)
            if verdict is not None:
                return verdict
        if end < 0:
            return False
        at = end + 1
    return False


_PIECES = [
    b"\n", b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c", b"{", b"}", b",", b":", b"x",
    b'"type"', b'"data"', b'"session_meta"', b'"instructions"', b'"id"', b'"a.b"', b'"s"',
    b'"projectHash"', b'"sessionId"', b'"timestamp"', b"{}", b"[]", b"null",
    b'{"type":"session_meta","payload":{}}', b'{"id":"r1","instructions":"be brief"}',
    b'{"type":"session.start","data":{},"timestamp":"2026-01-01T00:00:00Z"}',
    b'{"type":"user","data":[]}', b'{"projectHash":"h","sessionId":"s"}',
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_each_sniffer_answers_as_its_copying_form(pieces: list[bytes]) -> None:
    buf = b"".join(pieces)
    assert is_codex(buf) == _codex_by_copy(buf)
    assert is_gemini(buf) == _gemini_by_copy(buf)
    assert is_copilot(buf) == _copilot_by_copy(buf)


def test_a_marker_past_the_sniffed_head_is_not_read() -> None:
    # Gemini's head is the first _SNIFF_BYTES bytes, as before: a marker across its end
    # is not in it.
    pad = b" " * (_SNIFF_BYTES - len(b'{"projectHash":"h",'))
    buf = b'{"projectHash":"h",' + pad + b'"sessionId":"s"}'
    assert is_gemini(buf) is False and _gemini_by_copy(buf) is False
    assert is_gemini(b'{"projectHash":"h","sessionId":"s"}') is True
