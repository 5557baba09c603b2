"""Content-derived keys that make ingestion idempotent.

Keyed on session, kind and the feedback text (plus the code location for review
comments), never on the transcript entry's uuid or the file's path: Claude Code
rewrites the same pushback under a new uuid when a session is resumed or forked,
and a moved ~/.claude must not duplicate every row.
"""

from __future__ import annotations

import hashlib
from typing import NewType

DedupKey = NewType("DedupKey", str)


def dedup_key(*parts: str) -> DedupKey:
    """SHA-256 hex digest of `parts` joined by NUL (a byte no part can contain ambiguously)."""
    return DedupKey(hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest())
