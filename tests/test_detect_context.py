"""ContextWindow capture/hydrate and sample_windows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.detect import ContextWindow, EventRef, capture_window, hydrate, sample_windows
from learn.detect.context import SUMMARY_BANNER
from learn.transcripts.models import UserEvent
from learn.transcripts.parser import parse_events_from_bytes

FIXTURES = Path(__file__).parent / "fixtures" / "detect"
LONG = FIXTURES / "long.jsonl"
# long.jsonl: 30 steps of 4 events (user, assistant+Bash, tool result, assistant),
# so event 4k is the user prompt of step k.


def test_capture_window_defaults() -> None:
    window = capture_window(LONG.read_bytes(), 40)
    assert window.fidelity == "full"
    assert window.preview_chars == 200
    assert window.span == (6, 2)
    assert len(window.before) == 6
    assert len(window.after) == 2
    assert window.anchor_turn is not None
    assert window.anchor_turn.preview == "user: step 10: do the next thing"
    assert window.trigger is not None and window.trigger.role == "assistant"
    assert window.trigger.preview == "assistant: Doing step 9. Step 9 done."
    assert window.trigger.tool_digests == ("Bash echo 9",)
    # Turns alternate, and before ends right before the trigger.
    assert [t.role for t in window.turns()] == ["assistant", "user"] * 5
    assert window.before[-1].preview == "user: step 9: do the next thing"
    assert window.after[0].preview == "assistant: Doing step 10. Step 10 done."


def test_capture_window_accepts_events_and_refs() -> None:
    raw = LONG.read_bytes()
    events = parse_events_from_bytes(raw)
    anchor = events[40]
    assert isinstance(anchor, UserEvent)
    ref = EventRef(anchor.meta.session_id, anchor.meta.uuid)
    assert capture_window(events, ref) == capture_window(raw, 40)
    with pytest.raises(LookupError):
        capture_window(events, EventRef("nope", "nope"))
    with pytest.raises(LookupError):
        capture_window(events, 10_000)


def test_preview_is_clipped_with_a_count() -> None:
    window = capture_window(LONG.read_bytes(), 40, preview_chars=10)
    assert window.anchor_turn is not None
    assert window.anchor_turn.preview == "user: step 10: d…(+16ch)"


def test_window_json_round_trip_and_summary_render() -> None:
    window = capture_window(LONG.read_bytes(), 40)
    again = ContextWindow.from_json(json.loads(window.dumps()))
    assert again == window
    summary = window.as_summary()
    assert summary.fidelity == "summary"
    assert summary.render().startswith(SUMMARY_BANNER)
    assert not window.render().startswith(SUMMARY_BANNER)


def test_hydrate(tmp_path: Path) -> None:
    raw = LONG.read_bytes()
    window = capture_window(raw, 40)
    path = tmp_path / "s.jsonl"
    path.write_bytes(raw)
    hydrated = hydrate(window, path, preview_chars=700)
    assert hydrated is not None
    assert hydrated.fidelity == "full" and hydrated.preview_chars == 700
    assert hydrated.anchor == window.anchor
    # Gone, truncated (refs compacted away), or garbage: None, never an exception.
    assert hydrate(window, tmp_path / "pruned.jsonl") is None
    assert hydrate(window, raw[: len(raw) // 3]) is None
    assert hydrate(window, b"\x00\xff not json\n") is None
    assert hydrate(window, None) is None


def _draw(seed: int) -> list[str]:
    return [w.anchor.event_uuid for w in sample_windows(LONG.read_bytes(), n=5, seed=seed)]


def test_sample_windows_shape() -> None:
    windows = sample_windows(LONG.read_bytes(), n=5, seed=3)
    assert len(windows) == 5
    for window in windows:
        assert window.trigger is None and window.anchor_turn is None
        assert window.before[-1].role == "assistant"
        assert len(window.before) <= 6 and len(window.after) <= 2
        # The anchor is the sampled turn's first event.
        assert window.before[-1].refs[0] == window.anchor
    uuids = [w.anchor.event_uuid for w in windows]
    assert uuids == sorted(uuids)  # sorted by turn; uuids here grow with position
    # The final turn is in flight: never sampled.
    last = parse_events_from_bytes(LONG.read_bytes())[-1]
    assert all(w.anchor.event_uuid != last.meta.uuid for w in windows)  # type: ignore[union-attr]
    assert sample_windows(LONG.read_bytes(), n=0) == []


def test_sample_windows_is_deterministic_across_processes() -> None:
    code = (
        "import json,sys;from pathlib import Path;"
        "from learn.detect import sample_windows;"
        f"ws=sample_windows(Path({str(LONG)!r}).read_bytes(),n=5,seed=7);"
        "print(json.dumps([w.anchor.event_uuid for w in ws]))"
    )
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == _draw(7)
    assert _draw(7) != _draw(8)


def test_sample_windows_excludes_the_approach_to_a_positive() -> None:
    raw = LONG.read_bytes()
    events = parse_events_from_bytes(raw)
    positive = events[60]  # the user prompt of step 15
    assert isinstance(positive, UserEvent)
    ref = EventRef(positive.meta.session_id, positive.meta.uuid)
    every = sample_windows(raw, n=1000)
    kept = sample_windows(raw, n=1000, exclude=[ref, EventRef("gone", "gone")])
    index = {e.meta.uuid: i for i, e in enumerate(events) if hasattr(e, "meta")}
    dropped = {index[w.anchor.event_uuid] for w in every} - {
        index[w.anchor.event_uuid] for w in kept
    }
    # Radius 6 = turns 25..30 (the positive is turn 30): the agent turns of steps 12-14.
    assert dropped == {49, 53, 57}
    assert any(index[w.anchor.event_uuid] > 60 for w in kept)


def test_hydrate_a_sampled_window_keeps_its_shape() -> None:
    raw = LONG.read_bytes()
    window = sample_windows(raw, n=1, seed=5)[0]
    again = hydrate(window, raw)
    assert again == window


def test_window_around_a_denial_anchors_on_the_agent_turn() -> None:
    from learn.detect import candidates_from_signals, mine

    events = parse_events_from_bytes((FIXTURES / "denials.jsonl").read_bytes())
    denial = next(s for s in mine(events) if s.detector == "denial")
    window = candidates_from_signals([denial], events)[0].window
    assert window.anchor.event_uuid == denial.event_uuid
    assert window.anchor.tool_use_id == "tu_edit1"
    # A tool result rides in a user entry but belongs to the agent's turn.
    assert window.anchor_turn is not None and window.anchor_turn.role == "assistant"
    assert "Edit src/db.py" in window.anchor_turn.tool_digests
    assert window.before[-1].preview == "user: refactor the storage layer"
