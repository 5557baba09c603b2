"""The pass that judges sessions together (`scripted.machinery`), linear in the work.

One session cannot know its opening prompt is repeated, that its long turn
follows a template, or that a program quoted it: those are judged across the
sessions in scope. Every comparison goes through a dictionary of keys
(`keys.Keys`: digests of a turn's folded text, of its pieces' shapes), so the
cost grows with the sessions and their text, never with their pairs:

1. own turns (`resume.own_turns`), repeated prompts, the skeleton and who
   started each session (`origin.judge_origins`) are worked out from keys
   alone, the skeleton's per-turn rule only where a shape is held by exactly
   two sessions;
2. only then is text read, and only where an answer needs it: the sessions
   whose turns are kept (a programmatic one keeps none unless asked) are cut
   of their repeated prompts and templates; another session's template parts
   are read in corpus order only as far as the first PEER_PARTS a session's
   parts are compared with; what a quote may be inside is looked up in an
   index of words (`quoted.QuotedIn`).

`judge_one` answers for one session (`learn show`): the others' verdicts,
their cuts and their texts are not worked out beyond what its own needs, so a
session in a tree of 1,000 reads their stored keys and little else.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from learn.transcripts.templates.keys import Keys, TextKeys
from learn.transcripts.templates.quoted import QuotedIn
from learn.transcripts.templates.repeated import (
    Machinery,
    RepeatedPrompt,
    rebuilt,
    repeated_prompts,
    with_prompts,
    without_prompts,
)
from learn.transcripts.templates.skeleton import (
    TEMPLATE_MIN_CHARS,
    Piece,
    is_prose,
    learn_skeleton_from,
    strip_affixes,
)
from learn.transcripts.view.model import HumanTurn, Session
from learn.transcripts.view.origin import LOOP_MIN_SESSIONS, OriginFacts, is_headless, judge_origins
from learn.transcripts.view.replay import FingerprintIndex

if TYPE_CHECKING:
    from learn.transcripts.view.model import SessionOrigin

_SPOKEN: Final = ("typed", "queued")
# Varying parts each part is compared with (`skeleton.strip_affixes`), taken in
# corpus order from the other sessions.
PEER_PARTS: Final = 400
# A varying part shorter than this (folded) is never looked for as a quote.
QUOTE_MIN_CHARS: Final = 12


def judge(views: Sequence[Session], fingerprints: Sequence[str] = (), *,
          include_programmatic: bool = False, keys: Keys | None = None) -> Machinery:
    """`scripted.machinery`: every session of `views` judged across all of them."""
    corpus = _Corpus(views, fingerprints, keys if keys is not None else Keys())
    origins = judge_origins([corpus.facts(i) for i in range(len(views))])
    out: list[Session] = []
    programmatic = set_aside = 0
    for i, view in enumerate(views):
        origin, evidence = origins[view.id]
        programmatic += origin == "programmatic"
        set_aside += origin == "programmatic" and not include_programmatic
        out.append(corpus.judged(i, origin, evidence, include_programmatic))
    return Machinery(out, corpus.prompts, corpus.fingerprints, programmatic, set_aside)


def judge_one(views: Sequence[Session], fingerprints: Sequence[str] = (), *,
              include_programmatic: bool = False, keys: Keys | None = None) -> Session:
    """`judge(views, ...).views[0]`, reading of the others only what the first needs."""
    corpus = _Corpus(views, fingerprints, keys if keys is not None else Keys())
    # The others' verdicts are not asked for: what judge_origins counts across the
    # sessions (clients, projects, opening commands and prompts) is all of theirs it reads.
    first = views[0].id
    facts = [corpus.facts(i) if i == 0 or views[i].id == first else corpus.counted(i)
             for i in range(len(views))]
    origin, evidence = judge_origins(facts)[first]
    return corpus.judged(0, origin, evidence, include_programmatic)


class _Corpus:
    """What the sessions show together, each part worked out on first need."""

    def __init__(self, views: Sequence[Session], fingerprints: Sequence[str], keys: Keys) -> None:
        from learn.transcripts.view.resume import own_turns

        self.views = views
        self.keys = keys
        self.own = own_turns(views, lambda t: _resume_keys(t, keys))
        self.prompts: list[RepeatedPrompt] = repeated_prompts(self.own.values(), keys=keys)
        self.fingerprints: Sequence[str] = (
            with_prompts(fingerprints, self.prompts) if self.prompts else fingerprints)
        self._prints = FingerprintIndex(self.fingerprints) if self.fingerprints else None
        self._sessions_of_prompt = {keys.of_text(p.text).folded: p.sessions for p in self.prompts}
        # Counted by each session's distinct shapes (stored by the index); a session's
        # turns are read only where a shape is held by exactly two sessions.
        self.skeleton = learn_skeleton_from(
            [(keys.spoken_shapes(v), _spoken_pieces(v, keys)) for v in self.own.values()],
            keys.shaped)
        self._instance: dict[int, bool] = {}  # id(TextKeys) -> skeleton instance
        # The sessions holding each folded text among their own turns (those
        # outside a template make a short text typed in many sessions a script's).
        self._holders: dict[bytes, list[tuple[str, HumanTurn]]] = {}
        for v in self.own.values():
            for t in v.human_turns:
                self._holders.setdefault(keys.of(t).folded, []).append((v.id, t))
        self._short: dict[bytes, int] = {}
        self._plain: dict[str, list[str]] = {}
        self._elsewhere: QuotedIn | None = None
        self._cuts: dict[int, Session] = {}
        self._varying: dict[int, list[str]] = {}  # turn id -> its template's varying parts
        self._parts: list[tuple[str, str]] = []  # (session id, part), in corpus order
        self._parts_read = 0  # sessions whose parts are in _parts
        self._peers: dict[str, list[str]] = {}
        self._words: dict[str, list[str]] = {}

    # ---------------------------------------------------------------- by keys

    def instance(self, turn: HumanTurn) -> bool:
        """A spoken turn that is an instance of a template (`skeleton.is_instance`)."""
        if turn.origin not in _SPOKEN:
            return False
        k = self.keys.of(turn)
        got = self._instance.get(id(k))
        if got is None:
            got = self._instance[id(k)] = self.skeleton.instance_of(k.chars, k.pieces)
        return got

    def _is_instance(self, k: TextKeys) -> bool:
        got = self._instance.get(id(k))
        if got is None:
            got = self._instance[id(k)] = self.skeleton.instance_of(k.chars, k.pieces)
        return got

    def short_sessions(self, folded: bytes) -> int:
        """How many sessions hold this folded text in an own turn outside a template."""
        got = self._short.get(folded)
        if got is None:
            got = self._short[folded] = len({sid for sid, t in self._holders.get(folded, ())
                                             if not self.instance(t)})
        return got

    def facts(self, i: int) -> OriginFacts:
        """What session `i` says about who started it (`origin.OriginFacts`)."""
        view, keys, skeleton = self.views[i], self.keys, self.skeleton
        opening = _opening(view)
        shared = 0
        if opening is not None:
            k = keys.of(opening)
            if k.folded in self._sessions_of_prompt:
                shared = self._sessions_of_prompt[k.folded] - 1
            elif self._is_instance(k):
                shared = skeleton.shared_with_of(k.pieces)
        prints = self._prints
        # The tests that read keys only, first (the answer is the same in any order):
        # a template's turns open with a tag, and its text is read only to the end.
        free = any(
            t is not opening
            and not (k := keys.of(t)).tagged
            and k.prose
            and not self._is_instance(k)
            and not skeleton.touches_of(k.pieces)
            and self.short_sessions(k.folded) < LOOP_MIN_SESSIONS
            and not (prints is not None and prints.replays(keys.fold(keys.text(t))))
            for t in view.human_turns
        )
        return replace(self.counted(i, opening), opening_shared=shared, free_reply=free)

    def counted(self, i: int, opening: HumanTurn | None = None) -> OriginFacts:
        """`facts` but for the opening's share and a free reply: what judge_origins
        counts across sessions (it reads those two only for the session itself)."""
        view = self.views[i]
        opening = opening if opening is not None else _opening(view)
        k = self.keys.of(opening) if opening is not None else None
        return OriginFacts(
            session_id=view.id, project=view.project, entrypoint=view.entrypoint,
            opening_command=opening.command if opening is not None else None,
            # The folded opening is only compared with the others': its digest stands for it.
            opening_text=(k.folded.hex() if k.folded_chars else "") if k is not None else None,
            opening_chars=k.chars if k is not None else 0,
        )

    # ---------------------------------------------------------------- by text

    def judged(self, i: int, origin: SessionOrigin, evidence: tuple[str, ...],
               include_programmatic: bool) -> Session:
        """Session `i` as judged: what programs wrote cut, its origin set."""
        view = replace(self.views[i], origin=origin, origin_evidence=evidence)
        if origin == "programmatic" and not include_programmatic:
            # None of its turns is kept, whatever the templates would have left.
            return rebuilt(view, {id(t): None for t in view.human_turns})
        cut = self.cut(i)
        self.parts_of(i)
        changed: dict[int, HumanTurn | None] = {}
        for t in cut.human_turns:
            if id(t) in self._varying:
                rest = self._residual(t, cut)
                changed[id(t)] = replace(t, text=rest) if rest else None
        cut = rebuilt(cut, changed) if changed else cut
        return replace(cut, origin=origin, origin_evidence=evidence)

    def cut(self, i: int) -> Session:
        """Session `i` without the repeated prompts (`scripted.without_prompts`)."""
        got = self._cuts.get(i)
        if got is None:
            view = self.views[i]
            got = self._cuts[i] = (
                without_prompts(view, self.fingerprints, self.keys) if self.prompts else view)
        return got

    def parts_of(self, i: int) -> list[str]:
        """The varying parts of session `i`'s template instances, in turn order."""
        out: list[str] = []
        for t in self.cut(i).human_turns:
            if self.instance(t):
                got = self._varying.get(id(t))
                if got is None:
                    got = self._varying[id(t)] = self.skeleton.varying(
                        self.keys.text(t), self.keys.of(t).pieces)
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
                if k == len(self._parts):
                    if self._parts_read == len(self.views):
                        break
                    sid = self.views[self._parts_read].id
                    self._parts += [(sid, p) for p in self.parts_of(self._parts_read)]
                    self._parts_read += 1
                    continue
                sid, part = self._parts[k]
                k += 1
                if sid != session_id:
                    got.append(part)
        return got

    def plain(self, session_id: str) -> list[str]:
        """What the session typed outside templates, folded."""
        got = self._plain.get(session_id)
        if got is None:
            own = self.own.get(session_id)
            got = self._plain[session_id] = [
                self.keys.fold(self.keys.text(t)) for t in (own.human_turns if own else ())
                if not self.instance(t)]
        return got

    def quoted(self, part: str, session_id: str, headless: bool) -> bool:
        # In this session, typed outside the template or holding what was (a
        # command's arguments, typed in its record, filled into its body behind
        # a label): it counts once. A headless session's template quoting what
        # was typed in another session is a program quoting the person; in a
        # person's own session, saying it again in another is a repeat of theirs.
        key = self.keys.fold(part)
        if len(key) < QUOTE_MIN_CHARS:
            return False
        if any(key in text or (len(text) >= QUOTE_MIN_CHARS and text in key)
               for text in self.plain(session_id)):
            return True
        if not headless:
            return False
        if self._elsewhere is None:
            self._elsewhere = QuotedIn(t for sid in self.own for t in self.plain(sid))
        return key in self._elsewhere

    def _split(self, text: str) -> list[str]:
        got = self._words.get(text)
        if got is None:
            got = self._words[text] = text.split()
        return got

    def _residual(self, turn: HumanTurn, view: Session) -> str:
        kept = []
        headless = is_headless(view.entrypoint)
        for part in self._varying[id(turn)]:
            part = strip_affixes(part, self.peers(view.id), self._split)
            if is_prose(part) and not self.quoted(part, view.id, headless):
                kept.append(part)
        return "\n".join(kept)


def _spoken_pieces(view: Session, keys: Keys) -> Callable[[frozenset[bytes]], list[Sequence[Piece]]]:
    """How to read the pieces of `view`'s spoken turns a skeleton is learned from
    (those that may hold one of the shapes asked for)."""
    return lambda shapes: [k.pieces for t in view.human_turns
                           if t.origin in _SPOKEN and (k := keys.of(t)).chars >= TEMPLATE_MIN_CHARS
                           and k.may_hold(shapes)]


def _opening(view: Session) -> HumanTurn | None:
    spoken = [t for t in view.human_turns if t.origin in _SPOKEN]
    return min(spoken, key=lambda t: (t.at is None, t.at, t.event_index), default=None)


def _resume_keys(turn: HumanTurn, keys: Keys) -> list[Hashable]:
    """`resume._keys` with the turn's text as its digests (`keys.Keys`)."""
    found: list[Hashable] = []
    if turn.uuid:
        found.append(("uuid", turn.uuid, turn.origin, keys.of(turn).flat))
    if turn.at is not None:
        # The moment and its offset: equal exactly when the isoformat strings are.
        found.append(("at", turn.at, turn.at.utcoffset(), keys.of(turn).folded))
    return found
