"""Issue 18 item 7: each quote carries the time it was typed, not its session's last activity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from learn.detect.signals import MiningSignal
from learn.mining.cache import MineCache
from learn.mining.miner import mine_session, session_candidates
from learn.models.base import CallUsage, ModelRequest, ModelResponse
from learn.reduce.counting import build_proposal, occurrences
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

MONDAY, FRIDAY = "2026-11-02T09:15:00Z", "2026-11-06T17:40:00Z"


def _record(kind: str, uuid: str, parent: str | None, sid: str, at: str, content: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": sid,
                       "cwd": "/proj", "timestamp": at,
                       "message": {"role": kind, "content": content,
                                   **({"model": "m"} if kind == "assistant" else {})}})


def write_week(tmp: Path, sid: str = "week-long") -> Path:
    """One session from Monday to Friday; the directive was typed on Monday."""
    path = tmp / f"{sid}.jsonl"
    path.write_text("\n".join([
        _record("user", "u1", None, sid, MONDAY, "always use bun, never npm, in this repo"),
        _record("assistant", "a1", "u1", sid, "2026-11-02T09:16:00Z", [{"type": "text", "text": "ok"}]),
        _record("user", "u2", "a1", sid, "2026-11-04T11:00:00Z", "now add the export button"),
        _record("assistant", "a2", "u2", sid, FRIDAY, [{"type": "text", "text": "done"}]),
    ]) + "\n")
    return path


class Says:
    name = "says"

    def __init__(self, *quotes: str) -> None:
        self.quotes = quotes

    def call(self, request: ModelRequest) -> ModelResponse:
        found = [{"kind": "directive", "text": q} for q in self.quotes]
        return ModelResponse({"candidates": found}, request.model, CallUsage(calls=1))


def _at(iso: str | None) -> str:
    assert iso is not None
    return iso.replace("+00:00", "Z")


def test_a_mined_quote_is_dated_when_it_was_typed(tmp_path: Path) -> None:
    session = build_session(parse(write_week(tmp_path)))
    assert _at(session.last_activity.isoformat() if session.last_activity else None) == FRIDAY
    result = mine_session(session, Says("always use bun, never npm"), model="claude-haiku-4-5")
    (cand,) = result.candidates
    assert _at(cand.at) == MONDAY
    assert result.session is not None and _at(result.session.last_activity) == FRIDAY

    proposal = build_proposal("directive", "use-bun", occurrences([result.session], ["use-bun"]))
    (quote,) = proposal.quotes
    assert _at(quote.at) == MONDAY and _at(proposal.last_seen) == MONDAY


def test_the_time_survives_the_cache_and_old_entries_get_one(tmp_path: Path) -> None:
    session = build_session(parse(write_week(tmp_path)))
    result = mine_session(session, Says("now add the export button"), model="claude-haiku-4-5")
    assert result.session is not None
    cache = MineCache(tmp_path / "cache")
    cache.put("k", result.session, dropped_unverified=0, chunks=1)
    entry = cache.get("k")
    assert entry is not None and _at(entry.candidates.candidates[0].at) == "2026-11-04T11:00:00Z"
    # An entry cached before quotes had times: dated from the session as read now.
    undated = [c.__class__(kind=c.kind, text=c.text) for c in entry.candidates.candidates]
    assert _at(session_candidates(session, undated).candidates[0].at) == "2026-11-04T11:00:00Z"


def test_a_detector_candidate_carries_its_events_time() -> None:
    from datetime import UTC, datetime

    from learn.detect.confidence import CandidateSignal
    from learn.detect.to_candidates import signals_to_candidates

    at = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
    signal = MiningSignal(
        kind="denial", detector="denial", session_id="s", event_index=3, event_uuid="e",
        occurred_at=at, text="do not touch the migrations", cc_version=None, trigger_index=None,
        signal=CandidateSignal(0.9, ("embedded_text",)),
    )
    (cand,) = signals_to_candidates([signal], min_confidence=0.75)
    assert cand.at == at.isoformat()
