"""Negative windows: places where the agent acted and the person did not steer.

A judge calibrated only on pushback learns that everything is pushback. These
windows are the counterweight: completed agent turns, away from any known
positive, drawn reproducibly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from learn.detect.context import (
    DEFAULT_AFTER,
    DEFAULT_BEFORE,
    DEFAULT_PREVIEW_CHARS,
    ContextWindow,
    EventRef,
    Turn,
    _ref,
    load_events,
    resolve,
    split_turns,
    turn_of,
    turn_ref,
)
from learn.transcripts.models import TranscriptEvent


def negative_window(
    events: Sequence[TranscriptEvent],
    turns: Sequence[Turn],
    t: int,
    *,
    before: int,
    after: int,
    preview_chars: int,
) -> ContextWindow:
    """The window of sampled turn `t`: no trigger, `before` ends at the sampled turn."""
    anchor = next(r for i in turns[t].indices if (r := _ref(events[i])) is not None)
    start = max(0, t + 1 - before)
    return ContextWindow(
        anchor=anchor,
        anchor_turn=None,
        trigger=None,
        before=tuple(turn_ref(events, x, preview_chars) for x in turns[start : t + 1]),
        after=tuple(turn_ref(events, x, preview_chars) for x in turns[t + 1 : t + 1 + after]),
        fidelity="full",
        preview_chars=preview_chars,
        span=(before, after),
    )


def _session_id(events: Sequence[TranscriptEvent]) -> str:
    for event in events:
        meta = getattr(event, "meta", None)
        if meta is not None:
            return str(meta.session_id)
        session = getattr(event, "session_id", None)
        if isinstance(session, str):
            return session
    return ""


def sample_windows(
    raw: bytes | Sequence[TranscriptEvent],
    *,
    n: int,
    exclude: Iterable[EventRef] = (),
    exclusion_radius: int = 6,
    seed: int = 0,
    before: int = DEFAULT_BEFORE,
    after: int = DEFAULT_AFTER,
    preview_chars: int = DEFAULT_PREVIEW_CHARS,
) -> list[ContextWindow]:
    """Up to `n` triggerless windows over completed agent turns, sorted by turn.

    The session's final turn is never a candidate (it may still be in flight).
    For each `exclude` ref that resolves, the `exclusion_radius` turns ending at
    its turn are dropped: that is the approach a positive window rewinds over,
    so labelling it negative would contradict the positive. Turns after it stay
    eligible: once steered, the agent running on is a genuine negative.

    The draw uses random.Random(f"{seed}:{session_id}"): string seeds are hashed
    with SHA-512, not hash(), so the draw is the same in every process whatever
    PYTHONHASHSEED says.
    """
    if n <= 0:
        return []
    events = load_events(raw)
    turns = split_turns(events)
    last = len(turns) - 1
    candidates = [
        t
        for t, turn in enumerate(turns)
        if t < last
        and turn.role == "assistant"
        and any(_ref(events[i]) is not None for i in turn.indices)
    ]
    dropped: set[int] = set()
    for ref in exclude:
        index = resolve(events, ref)
        if index is None:
            continue  # refs that no longer resolve are ignored
        t = turn_of(turns, index)
        if t is None:
            continue
        dropped.update(range(max(0, t - exclusion_radius + 1), t + 1))
    eligible = [t for t in candidates if t not in dropped]
    rng = random.Random(f"{seed}:{_session_id(events)}")
    chosen = sorted(rng.sample(eligible, min(n, len(eligible))))
    return [
        negative_window(events, turns, t, before=before, after=after, preview_chars=preview_chars)
        for t in chosen
    ]
