"""The feedback ledger's row shapes: what a candidate and a verdict must offer
(the seed's CandidateLike / VerdictLike), the ledger's stats, and one candidate
as the values of a feedback_events row.

A leaf below learn.store.feedback (FeedbackStore re-exports these names).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from learn.isotime import now_iso

# A verdict on a proposal (not a mined event) is kept under this source kind.
PROPOSAL_SOURCE_KIND = "proposal"
EVENT_COLUMNS = (
    "id",
    "dedup_key",
    "source_kind",
    "session_id",
    "event_uuid",
    "occurred_at",
    "text",
    "payload_json",
    "context_json",
    "cc_version",
)


class CandidateLike(Protocol):
    """What insert_candidates accepts: learn.detect's FeedbackCandidate, or anything shaped like it."""

    @property
    def dedup_key(self) -> str: ...
    @property
    def source_kind(self) -> str: ...
    @property
    def occurred_at(self) -> datetime | str: ...
    @property
    def text(self) -> str: ...
    @property
    def window(self) -> Any: ...  # has .to_json(), or None
    @property
    def ref(self) -> Any: ...  # has .uuid / .event_uuid, or is the uuid string
    @property
    def signal(self) -> Any: ...  # .confidence, .reasons, .durable
    @property
    def session_id(self) -> str | None: ...
    @property
    def cc_version(self) -> str | None: ...
    @property
    def payload(self) -> Mapping[str, Any] | None: ...


class VerdictLike(Protocol):
    """learn.records.proposal.Verdict satisfies this."""

    @property
    def accepted(self) -> bool: ...
    @property
    def summary(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def rationale(self) -> str: ...
    @property
    def canonical_key(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Stats:
    total: int
    files: int
    by_source: Mapping[str, int] = field(default_factory=dict)



def _iso(value: datetime | str | None) -> str:
    if value is None:
        return now_iso()
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _jsonable(obj: Any) -> Any:
    to_json = getattr(obj, "to_json", None)
    return to_json() if callable(to_json) else obj


def _event_uuid(ref: Any) -> str | None:
    if ref is None or isinstance(ref, str):
        return ref
    for attr in ("uuid", "event_uuid"):
        value = getattr(ref, attr, None)
        if isinstance(value, str):
            return value
    return None


def candidate_row(c: CandidateLike) -> tuple[Any, ...]:
    """The feedback_events values of one candidate (without app extras)."""
    payload: dict[str, Any] = dict(c.payload or {})
    sig = c.signal
    if sig is not None:
        payload["signal"] = {
            "confidence": float(getattr(sig, "confidence", 0.0)),
            "reasons": list(getattr(sig, "reasons", ())),
            "durable": bool(getattr(sig, "durable", True)),
        }
    if c.ref is not None and not isinstance(c.ref, str) and callable(getattr(c.ref, "to_json", None)):
        payload["ref"] = c.ref.to_json()
    window = None if c.window is None else json.dumps(_jsonable(c.window), default=str)
    return (
        c.dedup_key,
        c.source_kind,
        c.session_id,
        _event_uuid(c.ref),
        _iso(c.occurred_at),
        c.text,
        json.dumps(payload, default=str) if payload else None,
        window,
        c.cc_version,
    )
