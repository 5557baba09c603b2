"""Turns a resumed session copied from an earlier one.

`claude --resume` writes a new session file that starts with a copy of the old
conversation (seen upstream: resuming a 1 kB session produced a 2 kB new file).
Counted naively, everything said before the resume is said again in a second
session, and a one-afternoon remark clears the two-session bar by itself. So a
human turn belongs to the earliest session in which it appears; later copies,
recognised by the entry's uuid or by its timestamp and text (in case a client
rewrites uuids), are not that session's own words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from learn.transcripts.view import HumanTurn, Session

_WS = re.compile(r"\s+")


def _keys(turn: HumanTurn) -> list[str]:
    keys = []
    if turn.uuid:
        # A denial reason and an answer share their entry's uuid with nothing
        # else typed, but one entry can hold several answers: key on the text too.
        keys.append(f"uuid:{turn.uuid}:{turn.origin}:{_WS.sub(' ', turn.text).strip()}")
    if turn.at is not None:
        keys.append(f"at:{turn.at.isoformat()}:{_WS.sub(' ', turn.text).strip().casefold()}")
    return keys


def own_turns(sessions: Sequence[Session]) -> dict[str, Session]:
    """Each session with only the human turns first typed in it (oldest session wins).

    Sessions with no copied turns are returned unchanged (the same object).
    """
    order = sorted(
        sessions,
        key=lambda s: (s.started_at or datetime.max.replace(tzinfo=UTC), s.id),
    )
    seen: set[str] = set()
    out: dict[str, Session] = {}
    for session in order:
        own: list[HumanTurn] = []
        for turn in session.human_turns:
            keys = _keys(turn)
            if keys and any(k in seen for k in keys):
                continue
            own.append(turn)
        for turn in session.human_turns:
            seen.update(_keys(turn))
        if len(own) == len(session.human_turns):
            out[session.id] = session
        else:
            kept = {id(t) for t in own}
            timeline = tuple(
                item for item in session.timeline
                if not isinstance(item, HumanTurn) or id(item) in kept
            )
            out[session.id] = replace(session, human_turns=tuple(own), timeline=timeline)
    return out
