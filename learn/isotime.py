"""Timestamps as stored and as transcripts write them: ISO 8601, `Z` or an offset."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_iso(value: str | None) -> datetime | None:
    """An aware datetime (UTC when the text names no zone); None for empty or bad text."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def now_iso() -> str:
    """Now, in UTC to the second: how the store and the caches date what they write."""
    return datetime.now(UTC).isoformat(timespec="seconds")
