"""`progress` and `file-history-snapshot` lines decode with their bodies skipped
(`claude/wire.py`): kept, they are the same OtherEvents as any unmodeled line;
dropped, they cost nothing more; broken, they are counted as before."""

from __future__ import annotations

import msgspec
import pytest

from learn.transcripts import NOISE_SPEC, OtherEvent, UserEvent, parse
from learn.transcripts.parser import parse_event

PROGRESS = (b'{"parentUuid":"u1","type":"progress","data":{"type":"hook_progress",'
            b'"message":{"content":[{"type":"text","text":"nested"}]}},'
            b'"uuid":"p1","timestamp":"2026-01-09T05:23:33.867Z","sessionId":"s"}')
SNAPSHOT = (b'{"type":"file-history-snapshot","messageId":"m1","snapshot":'
            b'{"trackedFileBackups":{},"timestamp":"2026-01-09T05:18:46.511Z"},'
            b'"isSnapshotUpdate":false}')
USER = (b'{"type":"user","uuid":"u2","parentUuid":"p1","sessionId":"s",'
        b'"timestamp":"2026-01-09T05:23:34Z","message":{"role":"user","content":"hi"}}')


def test_progress_and_snapshot_lines_are_other_events_holding_the_whole_line() -> None:
    events = list(parse(b"\n".join([PROGRESS, SNAPSHOT, USER]) + b"\n").events)
    assert [type(e) for e in events] == [OtherEvent, OtherEvent, UserEvent]
    assert events[0] == OtherEvent(type="progress", raw=msgspec.json.decode(PROGRESS))
    assert events[1] == OtherEvent(type="file-history-snapshot",
                                   raw=msgspec.json.decode(SNAPSHOT))
    # The branch walk reads a progress line's links from its raw record.
    assert events[0].raw["uuid"] == "p1" and events[0].raw["parentUuid"] == "u1"
    assert parse_event(msgspec.json.decode(PROGRESS)) == events[0]


def test_a_filter_drops_them_and_keeps_the_rest() -> None:
    t = parse(b"\n".join([PROGRESS, SNAPSHOT, USER]), drop=NOISE_SPEC)
    assert [type(e) for e in t.events] == [UserEvent]
    assert t.skipped == {}


@pytest.mark.parametrize("drop", [None, NOISE_SPEC])
def test_broken_progress_lines_are_still_skipped_and_counted(drop: object) -> None:
    truncated = PROGRESS[:60]
    t = parse(b"\n".join([truncated, PROGRESS + b"]", USER]), drop=drop)  # type: ignore[arg-type]
    assert t.skipped == {"undecodable": 2}
    assert [type(e) for e in t.events] == [UserEvent]


def test_invalid_utf8_in_a_progress_body_is_replaced_not_lost() -> None:
    line = PROGRESS.replace(b"nested", b"nest\xffed")
    (event,) = parse(line).events
    assert isinstance(event, OtherEvent) and event.type == "progress"
    assert event.raw["data"]["message"]["content"][0]["text"] == "nest\ufffded"


def test_a_repeated_type_key_is_read_as_any_unmodeled_line() -> None:
    # The typed decode tags on the first "type"; the untyped record keeps the last,
    # and the line is read by that, as before the bodies were skipped.
    line = b'{"type":"progress","uuid":"p","type":"ai-title","aiTitle":"t"}'
    (event,) = parse(line).events
    assert event == OtherEvent(type="ai-title", raw={"type": "ai-title", "uuid": "p",
                                                     "aiTitle": "t"})
