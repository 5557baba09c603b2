"""Turns and tool calls a resumed session copied from an earlier one.

`claude --resume` writes a new session file that starts with a copy of the old
conversation (seen upstream: resuming a 1 kB session produced a 2 kB new file).
Counted naively, everything said before the resume is said again in a second
session, and a one-afternoon remark clears the two-session bar by itself. So a
human turn belongs to the earliest session in which it appears; later copies,
recognised by the entry's uuid or by its timestamp and text (in case a client
rewrites uuids), are not that session's own words.

The same holds for what ran: a copied tool call (the same tool_use id) and its
failure belong to the first session, so a fix copied by a resume is not a fix
seen in a second session.

A fork (`/branch`) copies the same way, each entry naming its origin in
`forkedFrom`: the fork's view starts at its first entry of its own, after the
session it came from, and a copied turn keeps its original's uuid, so the
session it was typed in keeps it (learn.transcripts.view.session). With that
session gone (pruned), the copy is the only record left and counts where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure


def _keys(turn: HumanTurn) -> list[str]:
    keys = []
    # str.split() breaks on the whitespace `\s+` matches; joining is ~3x faster
    # than the regex, and this runs for every turn of every session each run.
    flat = " ".join(turn.text.split())
    if turn.uuid:
        # A denial reason and an answer share their entry's uuid with nothing
        # else typed, but one entry can hold several answers: key on the text too.
        keys.append(f"uuid:{turn.uuid}:{turn.origin}:{flat}")
    if turn.at is not None:
        keys.append(f"at:{turn.at.isoformat()}:{flat.casefold()}")
    return keys


def own_turns(sessions: Sequence[Session]) -> dict[str, Session]:
    """Each session with only the human turns and tool calls first seen in it
    (oldest session wins).

    Sessions with nothing copied are returned unchanged (the same object).
    """
    order = sorted(
        sessions,
        key=lambda s: (s.started_at or datetime.max.replace(tzinfo=UTC), s.id),
    )
    seen: set[str] = set()
    seen_calls: set[str] = set()
    out: dict[str, Session] = {}
    for session in order:
        own: list[HumanTurn] = []
        turn_keys = [_keys(turn) for turn in session.human_turns]
        for turn, keys in zip(session.human_turns, turn_keys, strict=True):
            if keys and any(k in seen for k in keys):
                continue
            own.append(turn)
        for keys in turn_keys:
            seen.update(keys)
        calls = [c for c in session.tool_calls if c.id not in seen_calls]
        failures = [f for f in session.failures if f.tool_use_id not in seen_calls]
        seen_calls.update(c.id for c in session.tool_calls)
        seen_calls.update(f.tool_use_id for f in session.failures)
        if (len(own), len(calls), len(failures)) == (
            len(session.human_turns), len(session.tool_calls), len(session.failures)
        ):
            out[session.id] = session
            continue
        kept = {id(t) for t in (*own, *calls, *failures)}
        timeline = tuple(
            item for item in session.timeline
            if not isinstance(item, HumanTurn | ToolCall | ToolFailure) or id(item) in kept
        )
        out[session.id] = replace(session, human_turns=tuple(own), timeline=timeline,
                                  tool_calls=tuple(calls), failures=tuple(failures))
    return out
