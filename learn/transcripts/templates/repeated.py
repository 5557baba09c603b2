"""Long prompts repeated verbatim across sessions: what they are, and cutting them out.

`repeated_prompts` finds them among the sessions' own turns (by the digest of
each turn's folded text, `keys`), `with_prompts` makes them fingerprints like
any replayed template, and `without_prompts` cuts them out of a view, so words
the person added around a pasted prompt stay typed. `Machinery` is what the
corpus pass (`scripted.machinery`) gives back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Final

import msgspec
from msgspec.structs import replace

from learn.transcripts.templates.keys import Keys
from learn.transcripts.view.model import HumanTurn, Session, TimelineItem
from learn.transcripts.view.replay import (
    FingerprintIndex,
    Fingerprints,
    replay_fingerprints,
)

# A prompt this long typed identically twice is pasted, not re-typed: the
# longest directives people repeat by hand on the issue-10 corpus were under 200
# characters ("tests must hit the real postgres, no mocks for the db layer").
REPEATED_MIN_CHARS: Final = 300
# Two sessions can be one resumed conversation or a retry; three is a habit.
REPEATED_MIN_SESSIONS: Final = 3
# The person typed something else in at least this share of the sessions a
# prompt opened: they were at the keyboard, so they pasted it.
BY_HAND_SHARE: Final = 0.5


SPOKEN: Final = ("typed", "queued")


def templated(turn: HumanTurn) -> bool:
    """A turn that may be a prompt repeated word for word or a template's instance:
    spoken, and not what the person wrote into a command or prompt body
    (`HumanTurn.filled`: two requests a person wrote into one spec prompt, differing
    by a number, shared a skeleton and both were lost)."""
    return turn.origin in SPOKEN and not turn.filled


class RepeatedPrompt(msgspec.Struct, frozen=True):
    text: str  # as first seen (file order of the views given)
    sessions: int  # distinct sessions holding it
    by_hand: bool  # pasted by a person (other typed turns around it), not a harness


def repeated_prompts(
    views: Iterable[Session],
    *,
    min_chars: int = REPEATED_MIN_CHARS,
    min_sessions: int = REPEATED_MIN_SESSIONS,
    keys: Keys | None = None,
) -> list[RepeatedPrompt]:
    """Typed turns of at least `min_chars` found verbatim (folded) in `min_sessions` sessions.

    Give each session's own turns (`resume.own_turns`): a resumed session's
    copy of the opening prompt is not a second use of it. (`keys`: the pass's
    keys of each text, `keys.Keys`; compared by the digest of the folded text.)
    """
    keys = keys if keys is not None else Keys()
    first: dict[bytes, HumanTurn] = {}
    sessions: list[tuple[str, set[bytes], bool]] = []
    for view in views:
        long: set[bytes] = set()
        other = False
        for turn in view.human_turns:
            got = keys.of(turn) if templated(turn) else None
            if got is None or got.folded_chars < min_chars:
                other = True
                continue
            long.add(got.folded)
            first.setdefault(got.folded, turn)
        sessions.append((view.id, long, other))
    return prompts_repeated(sessions, lambda k: keys.text(first[k]), min_sessions=min_sessions)


def prompts_repeated(sessions: Iterable[tuple[str, Collection[bytes], bool]],
                     first_text: Callable[[bytes], str], *,
                     min_sessions: int = REPEATED_MIN_SESSIONS) -> list[RepeatedPrompt]:
    """`repeated_prompts` from each session's long typed turns' folded digests and
    whether it holds any other turn (`first_text`: the first holder's text of a digest)."""
    out = [RepeatedPrompt(first_text(k), n, by_hand)
           for k, n, by_hand in repeated_keys(sessions, min_sessions=min_sessions)]
    out.sort(key=lambda p: (-p.sessions, p.text))
    return out


def repeated_keys(sessions: Iterable[tuple[str, Collection[bytes], bool]], *,
                  min_sessions: int = REPEATED_MIN_SESSIONS) -> list[tuple[bytes, int, bool]]:
    """`prompts_repeated` as (folded digest, sessions, pasted by hand), texts not read."""
    per_session = list(sessions)
    if len({sid for sid, _, _ in per_session}) < len(per_session):
        return _repeated_by_id(per_session, min_sessions)
    # One entry per session (the corpus pass's own turns): counted, not collected.
    counts: Counter[bytes] = Counter()
    for _, long, _ in per_session:
        counts.update(long)
    repeated = {k for k, n in counts.items() if n >= min_sessions}
    if not repeated:
        return []
    # Sessions with other typed turns, per prompt: the person was at the keyboard.
    others: Counter[bytes] = Counter()
    for _, long, other in per_session:
        if other or any(k not in repeated for k in long):
            others.update(repeated.intersection(long))
    return [(k, counts[k], others[k] >= BY_HAND_SHARE * counts[k]) for k in repeated]


def _repeated_by_id(per_session: list[tuple[str, Collection[bytes], bool]],
                    min_sessions: int) -> list[tuple[bytes, int, bool]]:
    """`repeated_keys` where one session id is given more than once: its sets joined."""
    sessions_of: dict[bytes, set[str]] = {}
    for session_id, long, _ in per_session:
        for k in long:
            sessions_of.setdefault(k, set()).add(session_id)
    repeated = {k for k, ids in sessions_of.items() if len(ids) >= min_sessions}
    others: dict[bytes, set[str]] = {}
    for session_id, long, other in per_session:
        if other or any(k not in repeated for k in long):
            for k in repeated.intersection(long):
                others.setdefault(k, set()).add(session_id)
    return [(k, len(sessions_of[k]), len(others.get(k, ())) >= BY_HAND_SHARE * len(sessions_of[k]))
            for k in repeated]


def with_prompts(fingerprints: Sequence[str], prompts: Sequence[RepeatedPrompt]) -> Fingerprints:
    """`fingerprints` plus those of the repeated prompts, so the renderer and the
    miner drop them like any replayed template."""
    extra = replay_fingerprints(p.text for p in prompts)
    out = Fingerprints(dict.fromkeys([*fingerprints, *extra]))
    scaffold: tuple[str, ...] = getattr(fingerprints, "scaffold", ())
    out.scaffold = tuple(sorted(dict.fromkeys(scaffold + extra.scaffold), key=len, reverse=True))
    return out


def without_prompts(view: Session, fingerprints: Sequence[str], keys: Keys | None = None) -> Session:
    """`view` with the repeated prompts cut out of its typed turns (`with_prompts`
    fingerprints); a turn that was only the prompt is gone. Unchanged views are
    returned as the same object. (`keys`: a pass's, reading a light view's texts.)"""
    keys = keys if keys is not None else Keys()
    prints = FingerprintIndex(fingerprints)
    changed: dict[int, HumanTurn | None] = {}
    for turn in view.human_turns:
        if turn.origin not in ("typed", "queued"):
            continue
        text = keys.text(turn)
        if prints.replays(keys.fold(text)):
            rest = "\n".join(prints.unreplayed_parts(text)).strip()
            changed[id(turn)] = replace(turn, text=rest) if rest else None
    if not changed:
        return view
    return rebuilt(view, changed)


def command_suggestion(prompt: RepeatedPrompt, *, excerpt_chars: int = 160) -> dict[str, object]:
    """The "make this a command" finding for a prompt pasted by hand, JSON-ready."""
    flat = " ".join(prompt.text.split())
    excerpt = flat if len(flat) <= excerpt_chars else flat[: excerpt_chars - 1] + "…"
    return {"excerpt": excerpt, "sessions": prompt.sessions, "chars": len(prompt.text)}


class Machinery(msgspec.Struct, frozen=True):
    """The views of a corpus with every program's words taken out (`machinery`)."""

    views: list[Session]  # same order as given; origin and evidence set on each
    prompts: list[RepeatedPrompt]  # prompts repeated word for word
    fingerprints: Sequence[str]  # the given ones plus the repeated prompts'
    programmatic: int  # sessions judged programmatic
    set_aside: int  # of those, sessions whose typed turns were withheld (all, unless included)


def rebuilt(view: Session, changed: dict[int, HumanTurn | None]) -> Session:
    """`view` with the turns of `changed` (by id) replaced, or dropped where None."""
    def keep(items: Iterable[TimelineItem]) -> tuple[TimelineItem, ...]:
        out: list[TimelineItem] = []
        for item in items:
            new = changed.get(id(item), item) if isinstance(item, HumanTurn) else item
            if new is not None:
                out.append(new)
        return tuple(out)

    human = tuple(t for t in keep(view.human_turns) if isinstance(t, HumanTurn))
    return replace(view, human_turns=human, timeline=keep(view.timeline))
