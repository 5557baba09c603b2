"""Stage 3, candidates: one list per session from the miner and the detectors,
without doubles, and without what a resumed session copied from the one it
resumed (that one counts it already)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from learn.pipeline.mine import Mined
from learn.pipeline.read import Read
from learn.pipeline.types import iso
from learn.projects import spellings
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.textfold import fold


@dataclass
class Candidates:
    per_session: list[SessionCandidates]
    copied: int  # candidates dropped as copied from a resumed session
    # Each project's name for people: the spelling most sessions used of its own
    # folder (`C:\x` and `c:\x` are one project, named `C:\x`).
    spelled: dict[str, str]


def merge_candidates(*groups: Sequence[MinedCandidate]) -> tuple[MinedCandidate, ...]:
    """One session's candidates from the miner and the detectors, without doubles.

    A denial reason is rendered for the model and also read by the denial
    detector; counted twice it would be one afternoon claiming two occurrences.
    The first source wins (the miner's, which carries a rationale).
    """
    seen: set[tuple[str, str]] = set()
    out: list[MinedCandidate] = []
    for group in groups:
        for c in group:
            key = (c.kind, fold(c.command or c.text) if c.kind == "fix" else fold(c.text))
            if key in seen:
                continue
            seen.add(key)
            out.append(c)
    return tuple(out)


def session_candidates(read: Read, mined: Mined) -> Candidates:
    from learn.mining.commands import command_ran
    from learn.mining.verify import quote_found, session_commands
    from learn.render.spoken import spoken_turns
    from learn.transcripts.view.resume import own_turns

    sessions = read.sessions
    out: list[SessionCandidates] = []
    projects = read.projects
    spelled = spellings((s.project, projects.get(s.id)) for s in sessions)
    own = own_turns(sessions)
    copied = 0
    for s in sessions:
        got = mined.results.get(s.id)
        from_model = got.candidates if got is not None and not got.failed else ()
        merged = merge_candidates(from_model, read.detected.get(s.id, ()))
        if own[s.id] is not s:
            # A resumed session: keep what was said and run in it, not what it
            # copied from the session it resumed (that one counts it already).
            spoken = spoken_turns(own[s.id], read.fingerprints)
            ran = session_commands(own[s.id])
            kept = tuple(
                c for c in merged
                if (command_ran(c.command or "", ran) if c.kind == "fix" else quote_found(c.text, spoken))
            )
            copied += len(merged) - len(kept)
            merged = kept
        out.append(
            SessionCandidates(s.id, s.provider, projects.get(s.id) or s.project,
                              iso(s.last_activity), merged)
        )
    return Candidates(out, copied, dict(spelled))


def keep_stored(
    session_cands: Sequence[SessionCandidates], stored: Mapping[str, Sequence[MinedCandidate]]
) -> list[SessionCandidates]:
    """Carry forward what earlier runs verified for sessions the model failed on this run.

    Recording the scan replaces a session's stored candidates; for a session
    whose mining failed (a 529 storm, a chunk that stayed malformed) that
    would delete what an earlier run had verified, and with it the session's
    share of every count. What was stored stays, this run's finds are added.
    """
    out: list[SessionCandidates] = []
    for sc in session_cands:
        earlier = stored.get(sc.session_id, ())
        out.append(replace(sc, candidates=merge_candidates(sc.candidates, earlier)) if earlier else sc)
    return out
