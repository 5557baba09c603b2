"""A rollout line, in any era's shape, read as one wrapped record; and the state carried between lines.

The lowering (`rollout`) reads `Line`s: `{timestamp, type, payload}`. A line
that is not so wrapped is a bare-era header or item, or a flattened record (the
module docstring of `rollout` has the eras): `read_line` reads it as if wrapped,
or names the skip reason. `State` is what one line tells the
next (session id, cwd, the parent chain the uuids are synthesized along).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from learn.transcripts.claude.decode import SKIP_TOO_DEEP
from learn.transcripts.mend import mended
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
        # The prompt just read, until anything but bookkeeping follows: a second
        # record of it (`user_message` beside the `item_completed` 0.171 writes) is no new turn.
        self.last_typed_text: str | None = None
        self.last_typed_record: str | None = None  # "user_message" or "item_completed"
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


# What one rollout line is read as: its wrapped type, its payload (a flattened or
# bare-era record is its own payload) and its timestamp.
Line = tuple[str, dict[str, Any], Any]

# Top-level `type`s of flattened records that are not response items.
_ROLLOUT_KINDS = frozenset({"session_meta", "turn_context", "compacted"})
# Wrapper types that mean nothing without their payload.
_WRAPPERS = frozenset({"event_msg", "response_item"})
_EVENT_TYPES = frozenset({
    "user_message", "agent_message", "turn_aborted", "item_completed", "task_started",
    "turn_started"})


def read_line(obj: object, st: State) -> Line | str:
    """The wrapped line a decoded rollout line stands for, or the name of a marker
    ("state") or of a skip reason.

    Lines are decoded once, untyped, and read from that dict: the typed decode
    they had before (a Struct with `msgspec.Raw` fields) was followed by a second,
    untyped decode of every bookkeeping line (most of a rollout) when its
    OtherEvent was read, and the session view reads them all (parse and read of
    the bench home's rollouts, `benchmarks/homes.py` spread at 250 sessions: 0.87x
    the instructions, startup left out). The one difference:
    a line that repeats a top-level key is read by the key's last value, as any
    dict is, where the typed decode refused a wrongly typed first `type` or
    `payload` (skipped as "invalid"; tests/test_transcripts_parse_codex.py).
    """
    if type(obj) is not dict:
        return "not_object"
    if not st.bare:
        kind = obj.get("type")
        payload = obj.get("payload")
        if type(kind) is str and type(payload) is dict:
            return kind, payload, obj.get("timestamp")
    return _unwrap(obj, st)


def _unwrap(bare: dict[str, Any], st: State) -> Line | str:
    """The wrapped line a bare or flattened record stands for, or the name of a marker."""
    kind = bare.get("type")
    if not isinstance(kind, str):
        if bare.get("record_type") is not None:
            return "state"  # {"record_type": "state"}: bookkeeping between turns
        if isinstance(bare.get("id"), str) and not st.session_id:
            st.bare = True
            return "session_meta", bare, bare.get("timestamp")
        return "invalid"
    if kind in _WRAPPERS:
        return "invalid"
    if kind in _ROLLOUT_KINDS:
        return kind, bare, bare.get("timestamp")
    if kind in _EVENT_TYPES:
        return "event_msg", bare, bare.get("timestamp")
    return "response_item", bare, bare.get("timestamp")


def repaired(raw: bytes) -> tuple[str | None, object]:
    """A line the decoder refused, decoded again mended (`transcripts.mend`: invalid
    UTF-8, half a surrogate pair): (None, what it decoded to), or (the skip reason,
    None) when that was not the fault."""
    fixed = mended(raw)
    if fixed is None:
        return "undecodable", None
    try:
        obj = ANY.decode(fixed)
    except msgspec.DecodeError:
        return "undecodable", None
    except RecursionError:
        return SKIP_TOO_DEEP, None
    # Only an object was ever read again (the typed decode refused anything else
    # before it met the bad bytes): any other line with them is undecodable.
    return (None, obj) if type(obj) is dict else ("undecodable", None)
