"""Decode Claude Code JSONL lines into wire records, tolerating whatever a line holds.

1. The buffer is sliced into lines as memoryviews (no copy of each line) and
   each line decoded by msgspec into the wire union (`wire.py`).
2. A line the typed decode rejects takes the slow path: decode it untyped, then
   either it is an entry type we do not model (-> OtherEvent), or a known type
   carrying an unknown block (rewritten to a marker and converted again), or it
   is skipped and counted by reason. Nothing raises.
   A line that is not valid UTF-8, or holds half a surrogate pair, is decoded
   again mended (`transcripts.mend`): one stray byte in a typed prompt dropped the
   whole prompt, and the session then showed no typed turn at all. A line nested deeper than the
   decoder's recursion limit (msgspec raises RecursionError at about 1,000
   levels, less the caller's stack) is skipped as "too_deep": one such line
   made every command exit with a traceback, on every run.
3. A FilterSpec drops what the caller never reads before anything is built;
   unmodeled types it drops are validated without building a single dict.
4. An entry whose `timestamp` is missing, null, an epoch number or an ISO time
   without an offset is kept (`_mend_time`): a number is read as epoch seconds (or
   milliseconds), an offset-less time as UTC, and one with no time at all takes the
   time of the entry before it (of the one after it, at the head of the file). The
   whole line was dropped as invalid: "we're on bun now" with its time field lost
   went, and its proposal fell below the threshold (crash audit 61 F3). An entry
   with no time in a file where no entry has one is still skipped as invalid.
5. A refused line may hold two records a crash or two writers spliced (format-drift
   audit: anthropics/claude-code #81843, 24 of 30 bad lines in ~10,949 transcripts):
   a record cut mid-content with the next whole record right after it (21), or two
   whole records with no newline between (3). `unspliced` is the one function that
   decides it, for every reader of a line: the file loop here reads both records (the
   cut one counted undecodable), `decode_line` gives the first whole one, and the
   listing's head reader (`files.heads`) takes the cwd and session id from them, so a
   session whose first line was spliced is listed under its project.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

import msgspec

from learn.lazy import lazy_pattern
from learn.transcripts.claude.wire import (
    ASSISTANT_BLOCK_TYPES,
    MODELED_TYPES,
    SKIPPED_BODY_TYPES,
    USER_BLOCK_TYPES,
    WIRE_TYPE_NAMES,
    AssistantW,
    AttachmentW,
    Entry,
    Env,
    SystemW,
    UserW,
)
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.mend import mended
from learn.transcripts.models import OtherEvent

__all__ = [
    "SKIP_INVALID",
    "SKIP_NOT_OBJECT",
    "SKIP_TOO_DEEP",
    "SKIP_UNDECODABLE",
    "decode_claude_lines",
    "decode_line",
    "decode_untyped",
    "unspliced",
]

SKIP_UNDECODABLE = "undecodable"
SKIP_NOT_OBJECT = "not_object"
SKIP_INVALID = "invalid"
# Nested past what the decoder will walk: no transcript record nests more than a
# few dozen levels, so such a line is damage or a trap, never a turn.
SKIP_TOO_DEEP = "too_deep"

# The time an entry with none is decoded with until its neighbours lend theirs
# (`_lend_times`): year 1, which no client writes.
_UNTIMED: Final = datetime(1, 1, 1, tzinfo=UTC)
# Epoch numbers past this are milliseconds (this many seconds is the year 5138).
_MS_EPOCH: Final = 10**11


def _mend_time(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` with a timestamp the typed decode takes (see the module docstring, 4): a
    copy with the time mended, or `obj` itself when its time is usable (a failure lies
    elsewhere). The record a system line keeps (`raw`) stays the line as written."""
    value = obj.get("timestamp")
    at: datetime | None = None
    if isinstance(value, str):
        try:
            at = datetime.fromisoformat(value)
        except ValueError:
            at = None
        if at is not None and at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        elif at is not None:
            return obj
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            at = datetime.fromtimestamp(value / 1000 if abs(value) >= _MS_EPOCH else value, UTC)
        except (OverflowError, OSError, ValueError):
            at = None
    return {**obj, "timestamp": (at or _UNTIMED).isoformat()}


def _lend_times(items: list[object], skipped: dict[str, int]) -> list[object]:
    """Each entry decoded _UNTIMED given the time of the entry before it (at the head
    of the file, of the first one after it with a time); without any, skipped as invalid."""
    last: datetime | None = None
    waiting: list[Env] = []
    for item in items:
        if not isinstance(item, Env):
            continue
        if item.timestamp == _UNTIMED:
            if last is None:
                waiting.append(item)
            else:
                item.timestamp = last
        else:
            last = item.timestamp
            for early in waiting:
                early.timestamp = last
            waiting = []
    if not waiting:
        return items
    skipped[SKIP_INVALID] = skipped.get(SKIP_INVALID, 0) + len(waiting)
    gone = {id(w) for w in waiting}
    return [i for i in items if id(i) not in gone]


def decode_untyped(raw: bytes | memoryview | msgspec.Raw) -> Any:
    """Decode JSON bytes, mending invalid UTF-8 and half surrogate pairs rather than
    failing (`transcripts.mend`).

    msgspec skips ignored fields without validating their UTF-8, so a line the
    typed decode accepted can still fail a strict untyped decode later.
    """
    try:
        try:
            return _ANY_DECODER.decode(raw)
        except msgspec.DecodeError:
            fixed = mended(raw)
            if fixed is None:
                raise
            return _ANY_DECODER.decode(fixed)
    # Outside: the second decode, of a line whose bad byte comes before its deep part,
    # raised it past a handler beside the first.
    except RecursionError:
        return None  # nested too deep to read: nothing of it is used


_DECODER = msgspec.json.Decoder(Entry)
_ANY_DECODER = msgspec.json.Decoder()


# ---------------------------------------------------------------- decoding


def _mark_unknown_blocks(message: object, known: frozenset[str]) -> None:
    """Rewrite unmodeled content blocks to the OtherBlock marker, in place."""
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if not isinstance(content, list):
        return
    for i, block in enumerate(content):
        if isinstance(block, dict):
            kind = block.get("type")
            if isinstance(kind, str) and kind not in known:
                content[i] = {"type": "\x00other", "raw": block}


def _drop_nulls(mapping: dict[str, Any], key: str) -> None:
    value = mapping.get(key)
    if isinstance(value, dict):
        for name in [k for k, v in value.items() if v is None]:
            del value[name]
        for nested in ("cache_creation", "server_tool_use"):
            inner = value.get(nested)
            if isinstance(inner, dict):
                for name in [k for k, v in inner.items() if v is None]:
                    del inner[name]


def _slow_path(line: bytes) -> object:
    """Decode a line the typed decoder refused. Returns a wire struct, an
    OtherEvent, or a skip reason (str)."""
    try:
        obj = _ANY_DECODER.decode(line)
    except msgspec.DecodeError:
        fixed = mended(line)  # see the module docstring
        if fixed is None:
            return SKIP_UNDECODABLE
        try:
            obj = _ANY_DECODER.decode(fixed)
        except msgspec.DecodeError:
            return SKIP_UNDECODABLE
        except RecursionError:
            return SKIP_TOO_DEEP
    except RecursionError:
        return SKIP_TOO_DEEP
    if not isinstance(obj, dict):
        return SKIP_NOT_OBJECT
    kind = obj.get("type")
    if not isinstance(kind, str):
        return SKIP_INVALID
    if kind not in MODELED_TYPES:
        return OtherEvent(type=kind, raw=obj)
    written, obj = obj, _mend_time(obj)
    message = obj.get("message")
    if kind == "user":
        _mark_unknown_blocks(message, USER_BLOCK_TYPES)
    elif kind == "assistant":
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            # SDK-written turns may carry a bare string, as the API allows.
            message["content"] = [{"type": "text", "text": message["content"]}]
        _mark_unknown_blocks(message, ASSISTANT_BLOCK_TYPES)
        if isinstance(message, dict):
            # Some writers emit null token counts; they mean zero, not a bad line.
            _drop_nulls(message, "usage")
    try:
        wire = msgspec.convert(obj, Entry)
    except msgspec.ValidationError:
        return SKIP_INVALID
    except RecursionError:
        return SKIP_TOO_DEEP
    if isinstance(wire, SystemW | AttachmentW):
        # The untyped decode of the untouched line: convert() did not alter it for
        # these types.
        wire.raw = written
    return wire


def decode_line(line: bytes | str) -> object:
    """One line's wire record or skip reason. An entry without a time is invalid here:
    only a whole file has neighbours to lend one (`decode_claude_lines`). A line two
    records were spliced on (module docstring, 5) gives the first whole one: the record
    after a cut one, or the first of two whole ones."""
    wire = _decode_one(line)
    if wire == SKIP_UNDECODABLE:
        spliced = unspliced(line.encode() if isinstance(line, str) else line)
        if spliced is not None:
            head, tail = spliced
            wire = tail if type(head) is str else head
    return SKIP_INVALID if _untimed(wire) else wire


def _decode_one(line: bytes | str) -> object:
    try:
        wire: object = _DECODER.decode(line)
    except msgspec.ValidationError:
        return _slow_path(line.encode() if isinstance(line, str) else line)
    except msgspec.DecodeError:
        return _repaired(line) if isinstance(line, bytes) else SKIP_UNDECODABLE
    except RecursionError:
        return SKIP_TOO_DEEP
    if type(wire) is SystemW or type(wire) is AttachmentW:
        return _with_raw(wire, line)
    if type(wire) in SKIPPED_BODY_TYPES:
        return _slow_path(line.encode() if isinstance(line, str) else line)
    return wire


def _untimed(wire: object) -> bool:
    return isinstance(wire, Env) and wire.timestamp == _UNTIMED


def _repaired(line: bytes) -> object:
    """A line the decoder refused: read again mended (`transcripts.mend`: invalid
    UTF-8, half a surrogate pair), when that was the fault (one bad byte must not lose
    a typed line), else undecodable."""
    fixed = mended(line)
    return SKIP_UNDECODABLE if fixed is None else _decode_one(fixed)


# Where a Claude Code record opens: its entries open with `parentUuid` (user, assistant,
# system, attachment) or `type` (the bookkeeping lines), written first.
_RECORD_OPENING = lazy_pattern(rb'\{"(?:parentUuid|type)":')


def unspliced(line: bytes) -> tuple[object, object] | None:
    """A refused line read as two records spliced together (module docstring, 5): the
    part before the second record's opening (a whole record, or a cut one: its skip
    reason) and that record; None when no whole record closes the line."""
    for match in _RECORD_OPENING.finditer(line, 1):
        start = match.start()
        tail = _decode_one(line[start:])
        if not (isinstance(tail, Env)
                or (type(tail) is OtherEvent and "sessionId" in tail.raw)):
            # An opening inside the record, or the record is cut too; or an object
            # nested in a cut record that happened to close the line: no entry.
            continue
        head = line[:start]
        return (_decode_one(head) if head.strip() else SKIP_UNDECODABLE), tail
    return None


def _with_raw(wire: SystemW | AttachmentW, line: bytes | memoryview | str) -> object:
    # System and attachment details are read from the untyped record (their
    # shapes vary by subtype, and Other* details keep it verbatim); they are a
    # few percent of lines, so the second decode is cheap overall.
    try:
        wire.raw = _ANY_DECODER.decode(line)
    except msgspec.DecodeError:
        fixed = line if isinstance(line, str) else mended(line)
        if fixed is None:
            return SKIP_UNDECODABLE
        try:
            wire.raw = _ANY_DECODER.decode(fixed)
        except msgspec.DecodeError:
            return SKIP_UNDECODABLE
    except RecursionError:
        return SKIP_TOO_DEEP
    return wire


def _skipped_body(line: memoryview, kind: str) -> object:
    """A `progress` or `file-history-snapshot` line kept: its OtherEvent, as `_slow_path`
    makes it, read from the line's one untyped decode without a copy of the line first
    (callgrind: decoding the Claude files of the spread bench home, 250 sessions, 3.7 M
    fewer instructions, 0.996x); any line that decode does not read so goes the slow path."""
    try:
        obj = _ANY_DECODER.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return _slow_path(line.tobytes())
    if type(obj) is dict and obj.get("type") == kind:
        return OtherEvent(kind, obj)
    return _slow_path(line.tobytes())


def _is_dropped(wire: object, spec: FilterSpec) -> bool:
    if type(wire) is OtherEvent:
        return wire.type in spec.types
    if spec.types and WIRE_TYPE_NAMES.get(type(wire)) in spec.types:
        return True
    if isinstance(wire, Env):
        if spec.sidechain and wire.is_sidechain:
            return True
        if spec.meta and wire.is_meta:
            return True
    if spec.system_subtypes and type(wire) is SystemW:
        return wire.subtype in spec.system_subtypes
    if spec.attachment_types and type(wire) is AttachmentW:
        return wire.attachment.type in spec.attachment_types
    return False


_UNMODELED_TAG = lazy_pattern(r"Invalid value '([^'\\]*)' - at `\$\.type`")


class _TypeOnly(msgspec.Struct, gc=False):
    type: str


_TYPE_ONLY = msgspec.json.Decoder(_TypeOnly)


def _drops_unmodeled(
    exc: msgspec.ValidationError, line: bytes | memoryview, types: frozenset[str]
) -> bool:
    """True when the line is a well-formed entry of an unmodeled type `types` drops.

    The typed decoder names the unknown tag in its error; a second decode into
    a one-field struct then validates the JSON without building a single dict.
    Progress and snapshot lines (often carrying whole nested messages) are
    the bulk of a NOISE_SPEC drop, so they are never decoded into objects.
    """
    match = _UNMODELED_TAG.fullmatch(str(exc))
    if match is None or match.group(1) not in types:
        return False
    try:
        _TYPE_ONLY.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False  # let the slow path count it
    return True


def _drop_env(wire: object, drop_kinds: frozenset[type], drop_sidechain: bool,
              drop_meta: bool) -> bool:
    return (type(wire) in drop_kinds
            or (drop_sidechain and bool(getattr(wire, "is_sidechain", False)))
            or (drop_meta and bool(getattr(wire, "is_meta", False))))


def decode_claude_lines(
    buf: bytes, drop: FilterSpec | None = None
) -> tuple[list[object], dict[str, int]]:
    """Decode every line of a Claude Code JSONL buffer into wire records.

    Returns the kept records (materialize each with `materialize`) and the
    skip counts by reason. Blank lines are neither kept nor counted.
    """
    items: list[object] = []
    skipped: dict[str, int] = {}
    append = items.append
    decode = _DECODER.decode
    drop_types = drop.types if drop is not None else frozenset()
    # The user/assistant share of _is_dropped, hoisted: they are ~80% of lines.
    drop_kinds = frozenset(k for k, name in WIRE_TYPE_NAMES.items() if name in drop_types)
    drop_sidechain = drop is not None and drop.sidechain
    drop_meta = drop is not None and drop.meta
    # Nothing drops a user or assistant line (the listing passes no spec): kept without
    # a test (callgrind: decoding the spread bench home's Claude files, 250 sessions,
    # 5.3 M fewer instructions; with the OtherEvent test below, a first listing 0.997x,
    # 0.998x at 1,000 sessions).
    keep_envs = not (drop_kinds or drop_sidechain or drop_meta)
    skipped_body_types = SKIPPED_BODY_TYPES
    # Lines are decoded from memoryview slices of the one buffer: buf.split()
    # copied every line into a new bytes first, 14 ms on the benchmark's 48 MB
    # of Claude Code files against 4 ms for slicing (this loop: 62 -> 51 ms).
    # Only the rare lines that take the slow path are copied.
    view = memoryview(buf)
    find = buf.find
    size = len(buf)
    start = 0
    untimed = False  # an entry decoded _UNTIMED: _lend_times once at the end
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        if end == start:
            start += 1
            continue
        line = view[start:end]
        start = end + 1
        try:
            wire: object = decode(line)
        except msgspec.ValidationError as exc:
            if drop_types and _drops_unmodeled(exc, line, drop_types):
                continue
            wire = _slow_path(line.tobytes())
            untimed = untimed or _untimed(wire)
        except msgspec.DecodeError:
            # A blank line fails as truncated JSON; checking here rather than
            # up front keeps the check off every good line.
            raw = line.tobytes()
            if raw.isspace():
                continue
            wire = _repaired(raw)
            if wire == SKIP_UNDECODABLE:
                spliced = unspliced(raw)
                if spliced is not None:
                    head, wire = spliced
                    untimed = untimed or _untimed(head)
                    if type(head) is str:
                        skipped[head] = skipped.get(head, 0) + 1
                    elif not (_drop_env(head, drop_kinds, drop_sidechain, drop_meta)
                              or (drop is not None and _is_dropped(head, drop))):
                        append(head)
            untimed = untimed or _untimed(wire)
            if type(wire) is UserW or type(wire) is AssistantW:
                if not _drop_env(wire, drop_kinds, drop_sidechain, drop_meta):
                    append(wire)
                continue
        except RecursionError:
            wire = SKIP_TOO_DEEP
        else:
            kind = type(wire)
            if kind is UserW or kind is AssistantW:
                if keep_envs or not (
                    kind in drop_kinds
                    or (drop_sidechain and wire.is_sidechain)  # type: ignore[attr-defined]
                    or (drop_meta and wire.is_meta)  # type: ignore[attr-defined]
                ):
                    append(wire)
                continue
            if kind is SystemW or kind is AttachmentW:
                wire = _with_raw(wire, line)  # type: ignore[arg-type]
            else:
                skipped_body = skipped_body_types.get(kind)
                if skipped_body is not None:
                    if skipped_body in drop_types:
                        continue
                    wire = _skipped_body(line, skipped_body)
                    # Only a line the slow path read can be an untimed entry: asking
                    # _untimed of every OtherEvent cost 4.3 M instructions (callgrind, the
                    # spread bench home's 3,586 progress and snapshot lines, 250 sessions).
                    if type(wire) is not OtherEvent:
                        untimed = untimed or _untimed(wire)
        if type(wire) is str:
            skipped[wire] = skipped.get(wire, 0) + 1
            continue
        if drop is not None and _is_dropped(wire, drop):
            continue
        append(wire)
    return (_lend_times(items, skipped) if untimed else items), skipped

