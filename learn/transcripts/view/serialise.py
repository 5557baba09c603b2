"""The session view as JSON (`learn show --json`, `learn sessions --json`).

`human_turns_detail` is the evidence: every typed turn, in reading order, each
saying whether it is on the active branch. `timeline` is the context: the active
branch only, as before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from learn.transcripts.view.model import HUMAN_ORIGINS, HumanTurn, Session, TimelineItem, ToolCall


def session_counts(session: Session) -> dict[str, Any]:
    """The counts of one view, in display order (`learn show` and `learn sessions`)."""
    by_origin: dict[str, int] = dict.fromkeys(HUMAN_ORIGINS, 0)
    for turn in session.human_turns:
        by_origin[turn.origin] += 1
    return {
        "turns": session.turns,
        "human_turns": len(session.human_turns),
        "human_turns_by_origin": by_origin,
        "off_branch_human_turns": sum(1 for t in session.human_turns if not t.on_branch),
        "tool_calls": len(session.tool_calls),
        "failures": len(session.failures),
        "denials": len(session.denials),
        "interrupts": len(session.interrupts),
    }


def session_to_dict(session: Session, *, timeline: bool = True) -> dict[str, Any]:
    """A JSON-ready dict of the view (`learn show --json`, `learn sessions --json`)."""
    out: dict[str, Any] = {
        "id": session.id,
        "provider": session.provider,
        "path": str(session.path) if session.path else None,
        "project": session.project,
        "started_at": _iso(session.started_at),
        "last_activity": _iso(session.last_activity),
        **session_counts(session),
        "size_bytes": session.size_bytes,
        "skipped_lines": session.skipped_lines,
        "skipped_by_reason": dict(session.skipped),
        "subagent_paths": [str(p) for p in session.subagent_paths],
        "entrypoint": session.entrypoint,
        "origin": session.origin,
        "origin_evidence": list(session.origin_evidence),
        "signals": list(session.signals),
    }
    if timeline:
        out["human_turns_detail"] = [turn_dict(t) for t in session.human_turns]
        out["timeline"] = [_item_dict(item) for item in session.timeline]
        out["denial_details"] = [
            {"tool_use_id": d.tool_use_id, "tool_name": d.tool_name, "kind": d.kind,
             "reason": d.reason, "at": _iso(d.at), "event_index": d.event_index}
            for d in session.denials
        ]
        out["interrupt_details"] = [
            {"at": _iso(i.at), "event_index": i.event_index} for i in session.interrupts
        ]
    return out


def turn_dict(turn: HumanTurn) -> dict[str, Any]:
    return {"type": "human", "origin": turn.origin, "text": turn.text, "at": _iso(turn.at),
            "event_index": turn.event_index, "uuid": turn.uuid, "command": turn.command,
            "on_branch": turn.on_branch}


def _item_dict(item: TimelineItem) -> dict[str, Any]:
    if isinstance(item, HumanTurn):
        return turn_dict(item)
    if isinstance(item, ToolCall):
        return {"type": "tool_call", "id": item.id, "name": item.name, "summary": item.summary,
                "at": _iso(item.at), "event_index": item.event_index}
    return {"type": "tool_failure", "tool_use_id": item.tool_use_id, "tool_name": item.tool_name,
            "excerpt": item.excerpt, "at": _iso(item.at), "event_index": item.event_index}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
