"""A session view whose typed turns are no longer than anything can read.

One pasted 50 MB log made the first `learn sessions` take 60 s: the session
index redacts and stores every turn (a 10 MB turn: 9.0 of 12.9 s, redaction at
~1 MB/s), although no model is ever sent more of one turn than its window holds
(761,280 chars for every model in the catalog, 200k tokens; learn.render.chunk)
and no person reads it. The index keeps such a turn cut in the middle, with
the same marker the miner's cut uses (learn.textcut); `learn show --full`
still reads the transcript itself and prints all of it.
"""

from __future__ import annotations

from typing import Final

from msgspec.structs import replace

from learn.textcut import cut_middle
from learn.transcripts.view.model import HumanTurn, Session

# Above every catalog model's per-chunk limit (761,280 chars), so what a run sends
# is unchanged; only a window configured past ~260k tokens would have taken more.
MAX_TURN_CHARS: Final = 1_000_000


def bounded_turns(session: Session, limit: int = MAX_TURN_CHARS) -> Session:
    """`session` with every typed turn over `limit` chars cut in the middle (the same
    object when none is): the timeline and the evidence keep sharing each turn."""
    if all(len(t.text) <= limit for t in session.human_turns):
        return session
    cut: dict[int, HumanTurn] = {
        id(t): replace(t, text=cut_middle(t.text, limit, "longer than any model's window"))
        for t in session.human_turns if len(t.text) > limit
    }
    return replace(
        session,
        timeline=tuple(cut.get(id(i), i) if isinstance(i, HumanTurn) else i
                       for i in session.timeline),
        human_turns=tuple(cut.get(id(t), t) for t in session.human_turns),
    )
