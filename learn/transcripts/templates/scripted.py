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

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from learn.textfold import fold
from learn.transcripts.templates.keys import Keys
from learn.transcripts.templates.quoted import QuotedIn
from learn.transcripts.templates.skeleton import Skeleton, is_prose, learn_skeleton, strip_affixes
from learn.transcripts.view.model import HumanTurn, Session, TimelineItem
from learn.transcripts.view.origin import LOOP_MIN_SESSIONS, OriginFacts, is_headless, judge_origins
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
    keys: Keys | None = None,
) -> list[RepeatedPrompt]:
    """Typed turns of at least `min_chars` found verbatim (folded) in `min_sessions` sessions.

    Give each session's own turns (`resume.own_turns`): a resumed session's
    copy of the opening prompt is not a second use of it. (`keys`: the pass's
    keys of each text, `keys.Keys`; compared by the digest of the folded text.)
    """
    keys = keys if keys is not None else Keys()
    none = keys("").folded  # what a turn that is not a candidate counts as (the empty text's key)
    first_text: dict[bytes, str] = {}
    sessions_of: dict[bytes, set[str]] = {}
    others: dict[bytes, set[str]] = {}  # sessions with other typed turns, per prompt key
    per_session: list[tuple[str, list[bytes]]] = []
    for view in views:
        found: list[bytes] = []
        for turn in view.human_turns:
            if turn.origin not in ("typed", "queued"):
                found.append(none)
                continue
            got = keys(turn.text)
            if got.folded_chars < min_chars:
                found.append(none)
                continue
            found.append(got.folded)
            first_text.setdefault(got.folded, turn.text)
            sessions_of.setdefault(got.folded, set()).add(view.id)
        per_session.append((view.id, found))
    repeated = {k for k, ids in sessions_of.items() if len(ids) >= min_sessions}
    if not repeated:
        return []
    for session_id, found in per_session:
        mine = {k for k in found if k in repeated}
        if any(k not in repeated for k in found):
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
    return _without_prompts(view, FingerprintIndex(fingerprints), fold)


def _without_prompts(view: Session, prints: FingerprintIndex, fold: Callable[[str], str]) -> Session:
    changed: dict[int, HumanTurn | None] = {}
    for turn in view.human_turns:
        if turn.origin in ("typed", "queued") and prints.replays(fold(turn.text)):
            rest = "\n".join(prints.unreplayed_parts(turn.text)).strip()
            changed[id(turn)] = replace(turn, text=rest) if rest else None
    if not changed:
        return view
    return _rebuilt(view, changed)


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


def head_view(path: Path, fingerprints: Sequence[str] = ()) -> Session | None:
    """The view of the first HEAD_BYTES of `path` (whole lines), None when unreadable or empty."""
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    try:
        with path.open("rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        return None
    head = head[: head.rfind(b"\n") + 1]
    return build_session(parse(head), fingerprints=fingerprints) if head else None


def project_views(project: str | None, fingerprints: Sequence[str] = (),
                  skip: Path | None = None) -> list[Session]:
    """The views of the sessions of `project` (but `skip`), read from each file's head."""
    from learn.transcripts.files.discover import scan

    if not project:
        return []
    views: list[Session] = []
    for file in scan(project=Path(project)).files[:HEAD_SESSIONS]:
        if skip is not None and file.path == skip:
            continue
        view = head_view(file.path, fingerprints)
        if view is not None:
            views.append(view)
    return views


def project_prompts(project: str | None, fingerprints: Sequence[str] = ()) -> list[RepeatedPrompt]:
    """The repeated prompts among the sessions of `project`, read from each file's head."""
    from learn.transcripts.view.resume import own_turns

    return repeated_prompts(own_turns(project_views(project, fingerprints)).values())


def without_project_prompts(view: Session, fingerprints: Sequence[str] = (), *,
                            include_programmatic: bool = False,
                            others: Sequence[Session] | None = None) -> Session:
    """`view` as a run reads it (`learn show`): judged with the other sessions of
    its project, without the prompts and templates repeated across them.

    `others`: those sessions' views when the caller has them (from the session
    index, `project_turns.project_turn_views`); else each file's head is read.
    """
    if others is None:
        others = project_views(view.project, fingerprints, skip=view.path)
    return machinery([view, *others], fingerprints,
                     include_programmatic=include_programmatic).views[0]


# ---------------------------------------------------------------- the corpus pass


@dataclass(frozen=True, slots=True)
class Machinery:
    """The views of a corpus with every program's words taken out (`machinery`)."""

    views: list[Session]  # same order as given; origin and evidence set on each
    prompts: list[RepeatedPrompt]  # prompts repeated word for word
    fingerprints: Sequence[str]  # the given ones plus the repeated prompts'
    programmatic: int  # sessions judged programmatic
    set_aside: int  # of those, sessions whose typed turns were withheld (all, unless included)


_SPOKEN: Final = ("typed", "queued")


# Varying parts each part is compared with (`skeleton.strip_affixes`), taken in
# corpus order from the other sessions.
PEER_PARTS: Final = 400


def machinery(
    views: Sequence[Session],
    fingerprints: Sequence[str] = (),
    *,
    include_programmatic: bool = False,
    keys: Keys | None = None,
) -> Machinery:
    """Cut what programs wrote from `views`, judged across all of them.

    Prompts repeated word for word (`repeated_prompts`) and template instances
    (`skeleton`) lose everything but the parts a person supplied; each session
    gets an origin (`origin.judge_origins`), and a programmatic one keeps no
    typed turns unless `include_programmatic`.

    Linear in the sessions and their text. Sessions are compared through
    dictionaries of each turn's keys (`keys.Keys`: digests of its folded text
    and of its pieces' shapes, worked out once per text or stored by the
    session index), never session against session; who started each session
    is judged from those alone, first, so the text of a session set aside is
    read only as far as another session needs its template's varying parts.
    """
    from learn.transcripts.view.resume import own_turns

    keys = keys if keys is not None else Keys()
    own = own_turns(views, lambda t: _resume_keys(t, keys))
    prompts = repeated_prompts(own.values(), keys=keys)
    fp: Sequence[str] = with_prompts(fingerprints, prompts) if prompts else fingerprints
    prints = FingerprintIndex(fp)
    sessions_of_prompt = {keys(p.text).folded: p.sessions for p in prompts}
    skeleton = learn_skeleton(
        ((v.id, t.text) for v in own.values() for t in v.human_turns if t.origin in _SPOKEN),
        keys.shaped)

    # What each session typed outside templates: a varying part found there is
    # a quote, and a short text typed in many sessions is a script's, not a reply.
    plain: dict[str, list[str]] = {}
    short_sessions: dict[bytes, set[str]] = {}
    for v in own.values():
        for t in v.human_turns:
            if t.origin in _SPOKEN and skeleton.is_instance(t.text):
                continue
            plain.setdefault(v.id, []).append(t.text)
            short_sessions.setdefault(keys(t.text).folded, set()).add(v.id)

    facts = [_facts(v, skeleton, prints if fp else None, keys, sessions_of_prompt, short_sessions)
             for v in views]
    origins = judge_origins(facts)
    parts = _Parts(views, lambda v: _without_prompts(v, prints, keys.fold) if prompts else v,
                   skeleton)
    elsewhere: list[QuotedIn] = []  # built on the first headless question
    words_of: dict[str, list[str]] = {}

    def split(text: str) -> list[str]:
        got = words_of.get(text)
        if got is None:
            got = words_of[text] = text.split()
        return got

    def quoted(part: str, session_id: str, headless: bool) -> bool:
        # In this session, typed outside the template or holding what was (a
        # command's arguments, typed in its record, filled into its body behind
        # a label): it counts once. A headless session's template quoting what
        # was typed in another session is a program quoting the person; in a
        # person's own session, saying it again in another is a repeat of theirs.
        key = keys.fold(part)
        if len(key) < 12:
            return False
        mine = [keys.fold(text) for text in plain.get(session_id, ())]
        if any(key in text or (len(text) >= 12 and text in key) for text in mine):
            return True
        if not headless:
            return False
        if not elsewhere:
            elsewhere.append(QuotedIn(keys.fold(t) for texts in plain.values() for t in texts))
        return key in elsewhere[0]

    def residual(turn: HumanTurn, view: Session) -> str:
        kept = []
        headless = is_headless(view.entrypoint)
        for part in parts.varying[id(turn)]:
            part = strip_affixes(part, parts.peers(view.id), split)
            if is_prose(part) and not quoted(part, view.id, headless):
                kept.append(part)
        return "\n".join(kept)

    out: list[Session] = []
    programmatic = set_aside = 0
    for i, original in enumerate(views):
        origin, evidence = origins[original.id]
        programmatic += origin == "programmatic"
        if origin == "programmatic" and not include_programmatic:
            # None of its turns is kept, whatever the templates would have left.
            set_aside += 1
            v = replace(original, origin=origin, origin_evidence=evidence)
            out.append(_rebuilt(v, {id(t): None for t in v.human_turns}))
            continue
        v = parts.cut(i)
        parts.of(i)
        changed: dict[int, HumanTurn | None] = {}
        for t in v.human_turns:
            if id(t) in parts.varying:
                rest = residual(t, v)
                changed[id(t)] = replace(t, text=rest) if rest else None
        v = _rebuilt(v, changed) if changed else v
        out.append(replace(v, origin=origin, origin_evidence=evidence))
    return Machinery(out, prompts, fp, programmatic, set_aside)


def _resume_keys(turn: HumanTurn, keys: Keys) -> list[Hashable]:
    """`resume._keys` with the turn's text as its digests (`keys.Keys`)."""
    found: list[Hashable] = []
    if turn.uuid:
        found.append(("uuid", turn.uuid, turn.origin, keys(turn.text).flat))
    if turn.at is not None:
        found.append(("at", turn.at.isoformat(), keys(turn.text).folded))
    return found


class _Parts:
    """The sessions cut of their repeated prompts and the varying parts of their
    template instances, worked out per session on first need, in corpus order."""

    def __init__(self, views: Sequence[Session], cut: Callable[[Session], Session],
                 skeleton: Skeleton) -> None:
        self._views = views
        self._cut = cut
        self._skeleton = skeleton
        self._cuts: dict[int, Session] = {}
        self.varying: dict[int, list[str]] = {}  # turn id -> its varying parts
        self._all: list[tuple[str, str]] = []  # (session id, part), in corpus order
        self._read = 0  # sessions whose parts are in _all
        self._peers: dict[str, list[str]] = {}

    def cut(self, i: int) -> Session:
        got = self._cuts.get(i)
        if got is None:
            got = self._cuts[i] = self._cut(self._views[i])
        return got

    def of(self, i: int) -> list[str]:
        """The varying parts of session `i`'s instances, in turn order."""
        out: list[str] = []
        for t in self.cut(i).human_turns:
            if t.origin in _SPOKEN and self._skeleton.is_instance(t.text):
                got = self.varying.get(id(t))
                if got is None:
                    got = self.varying[id(t)] = self._skeleton.varying(t.text)
                out += got
        return out

    def peers(self, session_id: str) -> list[str]:
        """The first PEER_PARTS parts of other sessions, in corpus order (no
        further session is read once they are found)."""
        got = self._peers.get(session_id)
        if got is None:
            got = self._peers[session_id] = []
            k = 0
            while len(got) < PEER_PARTS:
                if k == len(self._all):
                    if self._read == len(self._views):
                        break
                    sid = self._views[self._read].id
                    self._all += [(sid, p) for p in self.of(self._read)]
                    self._read += 1
                    continue
                sid, part = self._all[k]
                k += 1
                if sid != session_id:
                    got.append(part)
        return got


def _facts(view: Session, skeleton: Skeleton, prints: FingerprintIndex | None, keys: Keys,
           sessions_of_prompt: dict[bytes, int], short_sessions: dict[bytes, set[str]]) -> OriginFacts:
    spoken = [t for t in view.human_turns if t.origin in _SPOKEN]
    opening = min(spoken, key=lambda t: (t.at is None, t.at, t.event_index), default=None)
    shared = 0
    if opening is not None:
        key = keys(opening.text).folded
        if key in sessions_of_prompt:
            shared = sessions_of_prompt[key] - 1
        elif skeleton.is_instance(opening.text):
            shared = skeleton.shared_with(opening.text)
    free = any(
        t is not opening
        and not skeleton.is_instance(t.text)
        and not skeleton.touches(t.text)
        and not (prints is not None and prints.replays(keys.fold(t.text)))
        and not keys(t.text).tagged
        and keys(t.text).prose
        and len(short_sessions.get(keys(t.text).folded, ())) < LOOP_MIN_SESSIONS
        for t in view.human_turns
    )
    return OriginFacts(
        session_id=view.id, project=view.project, entrypoint=view.entrypoint,
        opening_shared=shared,
        opening_command=opening.command if opening is not None else None,
        opening_text=keys.fold(opening.text) if opening is not None else None,
        opening_chars=len(opening.text) if opening is not None else 0,
        free_reply=free,
    )


def _rebuilt(view: Session, changed: dict[int, HumanTurn | None]) -> Session:
    def keep(items: Iterable[TimelineItem]) -> tuple[TimelineItem, ...]:
        out: list[TimelineItem] = []
        for item in items:
            new = changed.get(id(item), item) if isinstance(item, HumanTurn) else item
            if new is not None:
                out.append(new)
        return tuple(out)

    human = tuple(t for t in keep(view.human_turns) if isinstance(t, HumanTurn))
    return replace(view, human_turns=human, timeline=keep(view.timeline))
