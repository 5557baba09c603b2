"""FeedbackCandidate: a mined signal made durable, with its context window and key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from learn.detect.confidence import NOISE_FLOOR, CandidateSignal
from learn.detect.context import (
    DEFAULT_AFTER,
    DEFAULT_BEFORE,
    DEFAULT_PREVIEW_CHARS,
    ContextWindow,
    EventRef,
    split_turns,
    window_at,
)
from learn.detect.dedup import DedupKey, dedup_key
from learn.detect.signals import REVIEW_COMMENT, MiningSignal, SourceKind
from learn.transcripts.models import TranscriptEvent


@dataclass(frozen=True, slots=True)
class FeedbackCandidate:
    """A single piece of developer pushback extracted from a transcript."""

    dedup_key: DedupKey
    source_kind: SourceKind
    occurred_at: datetime
    text: str
    window: ContextWindow
    ref: EventRef
    signal: CandidateSignal
    session_id: str | None = None
    cc_version: str | None = None
    payload: Mapping[str, Any] | None = None


def signal_key(signal: MiningSignal) -> DedupKey:
    """Session, kind and text (plus the cited location for a review comment).

    Never the entry uuid or the file path: the same pushback written under two
    entries (a resumed or forked session) is one row.
    """
    parts = [signal.session_id, signal.kind, signal.text]
    if signal.kind == REVIEW_COMMENT:
        ev = signal.evidence
        parts += [
            str(ev.get("file") or ""),
            str(ev.get("line_start") or ""),
            str(ev.get("line_end") or ""),
        ]
    return dedup_key(*parts)


def candidates_from_signals(
    signals: Iterable[MiningSignal],
    events: Sequence[TranscriptEvent],
    *,
    min_confidence: float = NOISE_FLOOR,
    before: int = DEFAULT_BEFORE,
    after: int = DEFAULT_AFTER,
    preview_chars: int = DEFAULT_PREVIEW_CHARS,
) -> list[FeedbackCandidate]:
    """One candidate per distinct key among signals at or above `min_confidence`.

    `events` must be the sequence the signals were mined from (their
    event_index addresses it). The first signal of a key wins: detectors run in
    a fixed order, so which one that is does not depend on the input.
    """
    turns = split_turns(events)
    seen: set[str] = set()
    out: list[FeedbackCandidate] = []
    for signal in signals:
        if signal.signal.confidence < min_confidence:
            continue
        key = signal_key(signal)
        if key in seen:
            continue
        seen.add(key)
        window = window_at(
            events,
            turns,
            signal.event_index,
            before=before,
            after=after,
            preview_chars=preview_chars,
        )
        out.append(
            FeedbackCandidate(
                dedup_key=key,
                source_kind=signal.kind,
                occurred_at=signal.occurred_at,
                text=signal.text,
                window=window,
                ref=window.anchor,
                signal=signal.signal,
                session_id=signal.session_id,
                cc_version=signal.cc_version,
                payload={"detector": signal.detector, **signal.evidence},
            )
        )
    return out
