"""One OpenCode session as canonical JSONL records, the same from either store.

The buffer is what the parser lowers, what the session index keys on and what
the mining cache hashes, so it is deterministic: records in a fixed order
(messages by creation time then id, parts by id, which OpenCode allocates in
ascending order), fields as the store holds them. It lives in memory only.

    {"opencode": "session", "id", "directory", "parentID", "title", "version", "time", "store",
     "permission"}
    {"opencode": "message", "id", "data": <message info>, "parts": [<part>, ...]}
    {"opencode": "entry", "id", "type", "time", "data": <2.x session_message>}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec

__all__ = ["HEAD", "encode_session", "is_export"]

HEAD: Final = b'{"opencode":"session"'
_ENCODE = msgspec.json.Encoder()


def is_export(buf: bytes) -> bool:
    return buf.startswith(HEAD)


def encode_session(
    session: Mapping[str, Any],
    messages: Iterable[tuple[str, Mapping[str, Any], Sequence[Mapping[str, Any]]]],
    entries: Iterable[tuple[str, str, int, Mapping[str, Any]]] = (),
    *,
    unreadable: int = 0,
) -> bytes:
    """The buffer of one session: its head, its messages with their parts, its 2.x entries,
    and how many of its records did not decode (`unreadable`: counted by the lowering as
    skipped, as a bad line of any other client is)."""
    head = {"opencode": "session", **{k: session.get(k) for k in (
        "id", "directory", "parentID", "title", "version", "time", "store", "permission")}}
    lines = [_ENCODE.encode(head)]
    for mid, info, parts in messages:
        lines.append(_ENCODE.encode({"opencode": "message", "id": mid, "data": info,
                                     "parts": parts}))
    for eid, kind, created, data in entries:
        lines.append(_ENCODE.encode({"opencode": "entry", "id": eid, "type": kind,
                                     "time": created, "data": data}))
    if unreadable:
        lines.append(_ENCODE.encode({"opencode": "unreadable", "count": unreadable}))
    return b"\n".join(lines) + b"\n"
