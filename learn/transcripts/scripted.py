"""Long prompts repeated verbatim across sessions: machinery, and a finding of their own.

A harness or SDK that drives Claude Code or Codex opens every session with the
same long prompt ("You are X, an autonomous development agent…"). Each copy is
a user turn, and mined as speech its every sentence became a "directive" with a
session count equal to the number of runs: on the issue-10 corpus a single
scripted prompt produced more candidates than everything the person typed.
The same shape comes from a person pasting their own long prompt by hand into
session after session; that is not a rule to learn either, but it is worth
saying once: it should be a command.

This is a corpus-level pass over the session views (one session cannot know
its opening prompt is repeated): `repeated_prompts` finds them, and
`without_prompts` removes them from a view through the template machinery
(`replay`), so words the person added around a pasted prompt stay typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from learn.textfold import fold
from learn.transcripts.replay import (
    Fingerprints,
    is_replayed_turn,
    replay_fingerprints,
    unreplayed_parts,
)
from learn.transcripts.view import HumanTurn, Session, TimelineItem

# A prompt this long typed identically twice is pasted, not re-typed: the
# longest directives people repeat by hand on the issue-10 corpus were under 200
# characters ("tests must hit the real postgres, no mocks for the db layer").
REPEATED_MIN_CHARS: Final = 300
# Two sessions can be one resumed conversation or a retry; three is a habit.
REPEATED_MIN_SESSIONS: Final = 3
# The person typed something else in at least this share of the sessions a
# prompt opened: they were at the keyboard, so they pasted it.
BY_HAND_SHARE: Final = 0.5


@dataclass(frozen=True, slots=True)
class RepeatedPrompt:
    text: str  # as first seen (file order of the views given)
    sessions: int  # distinct sessions holding it
    by_hand: bool  # pasted by a person (other typed turns around it), not a harness


def repeated_prompts(
    views: Iterable[Session],
    *,
    min_chars: int = REPEATED_MIN_CHARS,
    min_sessions: int = REPEATED_MIN_SESSIONS,
) -> list[RepeatedPrompt]:
    """Typed turns of at least `min_chars` found verbatim (folded) in `min_sessions` sessions.

    Give each session's own turns (`resume.own_turns`): a resumed session's
    copy of the opening prompt is not a second use of it.
    """
    first_text: dict[str, str] = {}
    sessions_of: dict[str, set[str]] = {}
    others: dict[str, set[str]] = {}  # sessions with other typed turns, per prompt key
    per_session: list[tuple[str, list[str]]] = []
    for view in views:
        keys: list[str] = []
        for turn in view.human_turns:
            if turn.origin not in ("typed", "queued"):
                keys.append("")
                continue
            key = fold(turn.text)
            keys.append(key if len(key) >= min_chars else "")
            if len(key) >= min_chars:
                first_text.setdefault(key, turn.text)
                sessions_of.setdefault(key, set()).add(view.id)
        per_session.append((view.id, keys))
    repeated = {k for k, ids in sessions_of.items() if len(ids) >= min_sessions}
    if not repeated:
        return []
    for session_id, keys in per_session:
        mine = {k for k in keys if k in repeated}
        if any(k not in repeated for k in keys):
            for k in mine:
                others.setdefault(k, set()).add(session_id)
    out = [
        RepeatedPrompt(
            text=first_text[k],
            sessions=len(sessions_of[k]),
            by_hand=len(others.get(k, ())) >= BY_HAND_SHARE * len(sessions_of[k]),
        )
        for k in repeated
    ]
    out.sort(key=lambda p: (-p.sessions, p.text))
    return out


def with_prompts(fingerprints: Sequence[str], prompts: Sequence[RepeatedPrompt]) -> Fingerprints:
    """`fingerprints` plus those of the repeated prompts, so the renderer and the
    miner drop them like any replayed template."""
    extra = replay_fingerprints(p.text for p in prompts)
    out = Fingerprints(dict.fromkeys([*fingerprints, *extra]))
    scaffold: tuple[str, ...] = getattr(fingerprints, "scaffold", ())
    out.scaffold = tuple(sorted(dict.fromkeys(scaffold + extra.scaffold), key=len, reverse=True))
    return out


def without_prompts(view: Session, fingerprints: Sequence[str]) -> Session:
    """`view` with the repeated prompts cut out of its typed turns (`with_prompts`
    fingerprints); a turn that was only the prompt is gone. Unchanged views are
    returned as the same object."""
    changed: dict[int, HumanTurn | None] = {}
    for turn in view.human_turns:
        if turn.origin in ("typed", "queued") and is_replayed_turn(turn.text, fingerprints):
            rest = "\n".join(unreplayed_parts(turn.text, fingerprints)).strip()
            changed[id(turn)] = replace(turn, text=rest) if rest else None
    if not changed:
        return view

    def keep(items: Iterable[TimelineItem]) -> tuple[TimelineItem, ...]:
        out: list[TimelineItem] = []
        for item in items:
            new = changed.get(id(item), item) if isinstance(item, HumanTurn) else item
            if new is not None:
                out.append(new)
        return tuple(out)

    human = tuple(t for t in keep(view.human_turns) if isinstance(t, HumanTurn))
    return replace(view, human_turns=human, timeline=keep(view.timeline))


def command_suggestion(prompt: RepeatedPrompt, *, excerpt_chars: int = 160) -> dict[str, object]:
    """The "make this a command" finding for a prompt pasted by hand, JSON-ready."""
    flat = " ".join(prompt.text.split())
    excerpt = flat if len(flat) <= excerpt_chars else flat[: excerpt_chars - 1] + "…"
    return {"excerpt": excerpt, "sessions": prompt.sessions, "chars": len(prompt.text)}


# A scripted prompt opens its session, so the head of each file is enough to
# find it when only one session is being shown (`learn show`); the full views
# are used where the pipeline has them anyway.
HEAD_BYTES: Final = 64 * 1024
# `learn show` is interactive: the newest sessions of the project are enough to
# see a prompt that opens many of them (64 kB x 300 is ~20 MB of reading).
HEAD_SESSIONS: Final = 300


def project_prompts(project: str | None, fingerprints: Sequence[str] = ()) -> list[RepeatedPrompt]:
    """The repeated prompts among the sessions of `project`, read from each file's head."""
    from pathlib import Path

    from learn.transcripts.discover import scan
    from learn.transcripts.parser import parse
    from learn.transcripts.resume import own_turns
    from learn.transcripts.session import build_session

    if not project:
        return []
    views: list[Session] = []
    for file in scan(project=Path(project)).files[:HEAD_SESSIONS]:
        try:
            with file.path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        except OSError:
            continue
        head = head[: head.rfind(b"\n") + 1]
        if head:
            views.append(build_session(parse(head), fingerprints=fingerprints))
    return repeated_prompts(own_turns(views).values())


def without_project_prompts(view: Session, fingerprints: Sequence[str] = ()) -> Session:
    """`view` without the prompts repeated across its project's sessions (`learn show`)."""
    prompts = project_prompts(view.project, fingerprints)
    return without_prompts(view, with_prompts(fingerprints, prompts)) if prompts else view
