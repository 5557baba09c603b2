"""What the model is sent of each session: the one selection every mining path makes
(`learn.mining.miner.mine_sessions`, the Message Batches of `learn.mining.batch`, and
the end-of-session hook's worker through `mine_sessions`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from learn.transcripts.view.model import Session
from learn.transcripts.view.resume import own_turns


class SentViews:
    """What the model is sent of each session: its own turns (`resume.own_turns` over the
    sessions mined together), not what a resumed or forked session copied from one mined
    with it. A `claude --resume` copies the whole earlier conversation into the new file,
    and each resume sent it, and paid for it, again: the resumed session of the e2e home
    (2026-12) rendered 14 items, 605 characters, for the miner, 10 items and 483
    characters of them copied from the session it resumed, which was mined too. What a
    copy yields is dropped after mining anyway (learn.pipeline.candidates: the oldest
    session counts a turn), so leaving it out loses nothing the run counted.

    No note stands where the copies were ("earlier turns were mined with session X"): a
    chunk after a session's first is sent without the turns before it too, and the
    miner reads each turn for what it says on its own; a note would be text the model
    may quote, which verification then drops as typed by no one.

    `older`: sessions not mined here that one mined here may have copied from (the
    hook's worker mines one session, and gives the sessions its copied lines name):
    their turns are taken as seen first where they are older, and nothing of them is sent.

    Worked out at the first session the cache does not hold (a warm run, all answers
    kept, pays nothing for it), from the sessions given: one mined alone with no older
    one given is sent whole, and so is one whose original is not given (outside the
    run's window, or gone: Claude Code prunes old files), where its copies are the only
    record and count. An answer is kept under the file's key as every answer is, so
    `learn plan` finds it; a later run in which the original is gone reuses it, without
    the copies: words typed in a session that has left the window (by age, or pruned by
    the client before the resumed one, being older)."""

    def __init__(self, sessions: Sequence[Session], older: Sequence[Session] = ()) -> None:
        self._sessions = sessions
        self._older = older
        self._own: dict[str, Session] | None = None
        self._lock = threading.Lock()

    def of(self, session: Session) -> Session:
        with self._lock:
            if self._own is None:
                mined = {s.id for s in self._sessions}
                given = [*self._sessions, *(s for s in self._older if s.id not in mined)]
                self._own = own_turns(given)
        return self._own.get(session.id, session)
