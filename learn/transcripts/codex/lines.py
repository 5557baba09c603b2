"""A rollout line, in any era's shape, decoded into one wrapped record; and the state carried between lines.

The lowering (`rollout`) reads `Line` records: `{timestamp, type, payload}`.
A line the wrapped decode refuses is a bare-era header or item, or a flattened
record (the module docstring of `rollout` has the eras): `slow_line` reads it
as if wrapped, or names the skip reason. `State` is what one line tells the
next (session id, cwd, the parent chain the uuids are synthesized along).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.claude.decode import SKIP_TOO_DEEP, decode_untyped
from learn.transcripts.models import EntryMeta

ANY = msgspec.json.Decoder()


class State:
    """Running context of one rollout: ids and cwd carried between lines."""

    def __init__(self, path: Path | None) -> None:
        self.session_id = ""
        self.cwd: str | None = None
        self.version: str | None = None
        self.entrypoint: str | None = None
        self.model = "codex"
        self.parent: str | None = None
        self.last_assistant_text: str | None = None
        self.path_key = str(path) if path is not None else ""
        # A subagent's lines are all sidechain (see the module docstring).
        self.sidechain = False
        # Bare era: no user_message events, so user-role messages are the prompts.
        self.bare = False
        # The last timestamp seen: bare-era lines carry none of their own.
        self.clock: datetime | None = None

    def meta(self, lineno: int, ts: datetime) -> EntryMeta:
        # "<session id>:<line number>": deterministic and unique within the
        # corpus. A uuid5 of the same key cost 7 us a line (a third of the
        # lowering time on the benchmark corpus) and bought nothing.
        uid = f"{self.session_id or self.path_key}:{lineno}"
        # Positional (cheaper per call): git_branch None, not sidechain, not meta.
        meta = EntryMeta(
            uid, self.session_id, ts, self.parent, self.cwd, None, self.version,
            self.sidechain, False, self.entrypoint,
        )
        self.parent = uid
        return meta


_NO_RAW = msgspec.Raw()


class Payload(msgspec.Struct, gc=False):
    # Bulky or shape-varying fields stay msgspec.Raw (a slice, no decode) until
    # a lowering needs them: most Codex lines are bookkeeping that becomes an
    # OtherEvent, and decoding their payloads up front made lowering ~3x
    # slower than orjson on the same bytes.
    type: Any = None
    role: Any = None
    id: Any = None
    call_id: Any = None
    name: Any = None
    reason: Any = None
    cwd: Any = None
    model: Any = None
    cli_version: Any = None
    originator: Any = None
    source: Any = None
    session_id: Any = None
    thread_source: Any = None
    parent_thread_id: Any = None
    message: msgspec.Raw = _NO_RAW
    content: msgspec.Raw = _NO_RAW
    arguments: msgspec.Raw = _NO_RAW
    input: msgspec.Raw = _NO_RAW
    output: msgspec.Raw = _NO_RAW
    action: msgspec.Raw = _NO_RAW


class Line(msgspec.Struct, gc=False):
    type: str
    payload: Payload
    timestamp: Any = None


class Bare(Payload, gc=False):
    """A line with no payload wrapper: a bare-era header or item, or a flattened record."""

    timestamp: Any = None
    record_type: Any = None
    instructions: Any = None


LINE_DECODER = msgspec.json.Decoder(Line)
_BARE_DECODER = msgspec.json.Decoder(Bare)
# Top-level `type`s of flattened records that are not response items.
_ROLLOUT_KINDS = frozenset({"session_meta", "turn_context", "compacted"})
# Wrapper types that mean nothing without their payload.
_WRAPPERS = frozenset({"event_msg", "response_item"})
_EVENT_TYPES = frozenset({"user_message", "agent_message", "turn_aborted"})


def _unwrap(bare: Bare, lineno: int, st: State) -> Line | str:
    """The wrapped line a bare or flattened record stands for, or the name of a marker."""
    kind = bare.type
    if not isinstance(kind, str):
        if bare.record_type is not None:
            return "state"  # {"record_type": "state"}: bookkeeping between turns
        if isinstance(bare.id, str) and not st.session_id:
            st.bare = True
            return Line("session_meta", bare, bare.timestamp)
        return "invalid"
    if kind in _WRAPPERS:
        return "invalid"
    if kind in _ROLLOUT_KINDS:
        return Line(kind, bare, bare.timestamp)
    if kind in _EVENT_TYPES:
        return Line("event_msg", bare, bare.timestamp)
    return Line("response_item", bare, bare.timestamp)


def decode_raw(value: msgspec.Raw) -> Any:
    if not value:
        return None
    try:
        return ANY.decode(value)
    except msgspec.DecodeError:
        return decode_untyped(value)  # invalid UTF-8 in a skipped field
    except RecursionError:
        return None  # nested too deep to read: nothing of it is used


def bare_line(line: memoryview, lineno: int, st: State) -> Line | str:
    """A line of a bare-era file. Raises ValidationError/DecodeError like the wrapped decode."""
    return _unwrap(_BARE_DECODER.decode(line), lineno, st)


def slow_line(line: memoryview, lineno: int, st: State) -> Line | str:
    """A line the wrapped decode refused: an older or flattened shape, or a skip reason."""
    try:
        bare = _BARE_DECODER.decode(line)
    except msgspec.ValidationError:
        try:
            obj = ANY.decode(line)
        except msgspec.DecodeError:
            return "undecodable"
        except RecursionError:
            return SKIP_TOO_DEEP
        return "invalid" if isinstance(obj, dict) else "not_object"
    except msgspec.DecodeError:
        return "undecodable"
    except RecursionError:
        return SKIP_TOO_DEEP
    return _unwrap(bare, lineno, st)


def repaired_line(raw: bytes, lineno: int, st: State) -> tuple[Line, memoryview] | str:
    """A line the decoder refused, read again with invalid UTF-8 replaced (and the
    repaired bytes, which the lowering keeps); a skip reason when that was not the fault."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        fixed = memoryview(raw.decode("utf-8", "replace").encode())
    else:
        return "undecodable"
    try:
        line: Line | str = LINE_DECODER.decode(fixed) if not st.bare else bare_line(fixed, lineno, st)
    except msgspec.ValidationError:
        line = slow_line(fixed, lineno, st)
    except msgspec.DecodeError:
        return "undecodable"
    except RecursionError:
        return SKIP_TOO_DEEP
    return line if isinstance(line, str) else (line, fixed)
