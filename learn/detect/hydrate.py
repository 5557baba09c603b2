"""A stored window recaptured at full fidelity from its transcript, when it still
resolves: a positive window (learn.detect.context) or a sampled negative one
(learn.detect.sampling)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from learn.detect.context import (
    ContextWindow,
    load_events,
    resolve,
    split_turns,
    turn_of,
    window_at,
)
from learn.detect.sampling import negative_window
from learn.transcripts.models import TranscriptEvent


def hydrate(
    window: ContextWindow,
    source: Path | bytes | Sequence[TranscriptEvent] | None,
    *,
    preview_chars: int | None = None,
) -> ContextWindow | None:
    """The window recaptured at full fidelity from the transcript, or None.

    None, never an exception, when the transcript is gone or unreadable, or when
    any ref of the window no longer resolves (compacted away, rewritten): a
    caller then judges from the stored previews at 'summary' fidelity.
    """
    if source is None:
        return None
    try:
        if isinstance(source, Path):
            events = load_events(source.read_bytes())
        else:
            events = load_events(source)
        present = {
            (meta.session_id, meta.uuid)
            for event in events
            if (meta := getattr(event, "meta", None)) is not None
        }
        if any((r.session_id, r.event_uuid) not in present for r in window.refs()):
            return None
        index = resolve(events, window.anchor)
        if index is None:
            return None
        turns = split_turns(events)
        budget = preview_chars if preview_chars is not None else window.preview_chars
        if window.anchor_turn is None:
            t = turn_of(turns, index)
            if t is None:
                return None
            return negative_window(
                events, turns, t, before=window.span[0], after=window.span[1], preview_chars=budget
            )
        return window_at(
            events, turns, index, before=window.span[0], after=window.span[1], preview_chars=budget
        )
    except Exception:
        return None
