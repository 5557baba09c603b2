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

from collections.abc import Callable, Collection, Hashable, Sequence
from datetime import UTC, datetime

from msgspec.structs import replace

from learn.textfold import flatten
from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure


def _keys(turn: HumanTurn) -> list[Hashable]:
    keys: list[Hashable] = []
    # This runs for every turn of every session each run (`flatten`: the split
    # and join only where a text has whitespace other than single spaces).
    flat = flatten(turn.text)
    if turn.uuid:
        # A denial reason and an answer share their entry's uuid with nothing
        # else typed, but one entry can hold several answers: key on the text too.
        keys.append(f"uuid:{turn.uuid}:{turn.origin}:{flat}")
    if turn.at is not None:
        keys.append(f"at:{turn.at.isoformat()}:{flat.casefold()}")
    return keys


def own_turns(sessions: Sequence[Session],
              keys: Callable[[HumanTurn], list[Hashable]] = _keys) -> dict[str, Session]:
    """Each session with only the human turns and tool calls first seen in it
    (oldest session wins).

    Sessions with nothing copied are returned unchanged (the same object).
    `keys`: a turn's keys (`_keys`, or the same keys with its text as a digest).
    """
    first = OwnTurns()
    out: dict[str, Session] = {}
    order = sorted(sessions, key=lambda s: oldest_first(s.started_at, s.last_activity, s.id))
    for session in order:
        out[session.id] = first.add(session, [keys(turn) for turn in session.human_turns])
    return out


def oldest_first(started_at: datetime | None, last_activity: datetime | None,
                 session_id: str) -> tuple[datetime, datetime, str]:
    """The order sessions are given to `OwnTurns` in (a session not dated goes last).

    A resume copies the earlier entries with their times, so the resumed session
    usually starts at the very moment the one it resumed did. Told apart by id, the
    resumed one came first for about half of all id pairs, and kept the turns typed
    before the resume: `learn show` marked the original's own turns "copied", and the
    miner sent them with the resumed session. Of two sessions starting together, the
    one that went on later is the resumed one: a resume writes past everything it
    copied (the copies name their own session's id too, `sessionId`, but the view does
    not keep it per entry). The id decides only what is still tied."""
    never = datetime.max.replace(tzinfo=UTC)
    return started_at or never, last_activity or never, session_id


class OwnTurns:
    """`own_turns` one session at a time, oldest first (`oldest_first`)."""

    def __init__(self) -> None:
        self._seen: set[Hashable] = set()
        self._seen_calls: set[str] = set()

    def unseen(self, keys: Collection[Hashable]) -> bool:
        """For a session with no tool call: True (and its turns' `keys` taken) when none
        was seen, so all its turns are its own without reading them; else False, and
        the session is to be given to `add`."""
        if not self._seen.isdisjoint(keys):
            return False
        self._seen.update(keys)
        return True

    def add(self, session: Session, turn_keys: Sequence[Sequence[Hashable]]) -> Session:
        """`session` with only what was first seen in it (the same object when all was)."""
        seen, seen_calls = self._seen, self._seen_calls
        own: list[HumanTurn] = []
        for turn, found in zip(session.human_turns, turn_keys, strict=True):
            if found and any(k in seen for k in found):
                continue
            own.append(turn)
        for found in turn_keys:
            seen.update(found)
        calls = [c for c in session.tool_calls if c.id not in seen_calls]
        failures = [f for f in session.failures if f.tool_use_id not in seen_calls]
        seen_calls.update(c.id for c in session.tool_calls)
        seen_calls.update(f.tool_use_id for f in session.failures)
        if (len(own), len(calls), len(failures)) == (
            len(session.human_turns), len(session.tool_calls), len(session.failures)
        ):
            return session
        kept = {id(t) for t in (*own, *calls, *failures)}
        timeline = tuple(
            item for item in session.timeline
            if not isinstance(item, HumanTurn | ToolCall | ToolFailure) or id(item) in kept
        )
        return replace(session, human_turns=tuple(own), timeline=timeline,
                       tool_calls=tuple(calls), failures=tuple(failures))
