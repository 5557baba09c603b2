"""The pass that judges sessions together (`scripted.machinery`), linear in the work.

One session cannot know its opening prompt is repeated, that its long turn
follows a template, or that a program quoted it: those are judged across the
sessions in scope. Every comparison goes through a dictionary or a set of keys
(`keys`: digests of a turn's folded text and of its pieces' shapes; `entries`:
a session's keys as sets), so the cost grows with the sessions and their text,
never with their pairs:

1. own turns (`resume.OwnTurns`), repeated prompts, the skeleton and who
   started each session (`origin.judge_origins`) are worked out from the
   sessions' sets; a session's turns are read only where a set cannot answer
   (a turn seen in an older session, a shape two sessions hold, a text another
   holds, a reply that may be free);
2. text is read only where an answer needs it: the sessions whose turns are
   kept (a programmatic one keeps none unless asked) are cut of their repeated
   prompts and templates; another session's template parts are read in corpus
   order only as far as the first PEER_PARTS a part is compared with; what a
   quote may be inside is looked up in an index of words (`quoted.QuotedIn`).

`judge_one` answers for one session (`learn show`): the others' verdicts, cuts
and texts are not worked out beyond what its own needs, so a session in a tree
of 1,000 reads little more than the others' stored sets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Final

from msgspec.structs import replace

from learn.transcripts.templates.entries import (
    Entry,
    SessionKeys,
    opening_of,
    session_keys,
)
from learn.transcripts.templates.keys import Keys, TextKeys
from learn.transcripts.templates.quoted import QuotedIn
from learn.transcripts.templates.repeated import (
    Machinery,
    RepeatedPrompt,
    rebuilt,
    repeated_keys,
    templated,
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
from learn.transcripts.view.origin import (
    LOOP_MIN_SESSIONS,
    OriginFacts,
    judge_origins,
    session_headless,
)
from learn.transcripts.view.replay import FingerprintIndex
from learn.transcripts.view.resume import OwnTurns, oldest_first

if TYPE_CHECKING:
    from learn.transcripts.view.model import SessionOrigin

# Varying parts each part is compared with (`skeleton.strip_affixes`), taken in
# corpus order from the other sessions.
PEER_PARTS: Final = 400
# A varying part shorter than this (folded) is never looked for as a quote.
QUOTE_MIN_CHARS: Final = 12


def judge(views: Sequence[Session], fingerprints: Sequence[str] = (), *,
          include_programmatic: bool = False, keys: Keys | None = None) -> Machinery:
    """`scripted.machinery`: every session of `views` judged across all of them."""
    keys = keys if keys is not None else Keys()
    return judge_entries([Entry.of(v, keys) for v in views], fingerprints,
                         include_programmatic=include_programmatic, keys=keys)


def judge_entries(entries: Sequence[Entry], fingerprints: Sequence[str] = (), *,
                  include_programmatic: bool = False, keys: Keys | None = None) -> Machinery:
    """`judge` of sessions as entries (`entries`: stored ones are read as needed). A
    light entry set aside keeps no turn; one kept keeps the empty texts it was given."""
    corpus = _Corpus(entries, fingerprints, keys if keys is not None else Keys())
    out = corpus.all_judged(include_programmatic)
    programmatic = sum(1 for v in out if v.origin == "programmatic")
    set_aside = 0 if include_programmatic else programmatic
    return Machinery(out, corpus.prompts, corpus.fingerprints, programmatic, set_aside)


def judged_sessions(entries: Sequence[Entry], *, include_programmatic: bool = False,
                    keys: Keys | None = None) -> list[Session]:
    """`judge_entries(entries, ...).views`: the repeated prompts' words are read only
    where a session kept is cut of them (`learn sessions` counts the turns kept)."""
    corpus = _Corpus(entries, (), keys if keys is not None else Keys())
    return corpus.all_judged(include_programmatic)


def judge_one(entries: Sequence[Entry], fingerprints: Sequence[str] = (), *,
              include_programmatic: bool = False, keys: Keys | None = None) -> Session:
    """`judge_entries(entries, ...).views[0]`, reading of the others only what the first needs."""
    corpus = _Corpus(entries, fingerprints, keys if keys is not None else Keys())
    # The others' verdicts are not asked for: what judge_origins counts across the
    # sessions (clients, projects, opening commands and prompts) is all of theirs it
    # reads, but for whether any was answered among those opened by the first's own
    # prompt at a machine's rhythm (`origin._schedules`).
    first = entries[0].id
    facts = [corpus.facts(i) if i == 0 or e.id == first else corpus.counted(i)
             for i, e in enumerate(entries)]
    mine = facts[0]
    if not mine.entrypoint and not mine.headless and mine.opening_text:
        facts = [corpus.facts(i) if (not f.entrypoint and not f.headless
                                     and f.opening_text == mine.opening_text) else f
                 for i, f in enumerate(facts)]
    origin, evidence = judge_origins(facts)[first]
    return corpus.judged(0, origin, evidence, include_programmatic)


class _Own:
    """A session's own turns (`resume.own_turns`): all of them, or those not copied."""

    __slots__ = ("_view", "entry", "keys")

    def __init__(self, entry: Entry, view: Session | None, keys: SessionKeys) -> None:
        self.entry = entry
        self.keys = keys  # of its own turns
        self._view = view  # None: all of the entry's turns are its own

    @property
    def whole(self) -> bool:
        """All of the entry's turns are its own."""
        return self._view is None

    def view(self) -> Session:
        return self._view if self._view is not None else self.entry.view()


class _Corpus:
    """What the sessions show together, each part worked out on first need."""

    def __init__(self, entries: Sequence[Entry], fingerprints: Sequence[str], keys: Keys) -> None:
        self.entries = entries
        self.keys = keys
        self.own = self._own_turns()
        # Known by their digests; their texts are read when a session is cut of them.
        self._repeated = repeated_keys((sid, o.keys.long, o.keys.other) for sid, o in self.own.items())
        self._given = fingerprints
        self._sessions_of_prompt = {k: n for k, n, _ in self._repeated}
        # Counted by each session's distinct shapes; a session's turns are read only
        # where a shape is held by exactly two sessions.
        self.skeleton = learn_skeleton_from(
            [(o.keys.shapes, _spoken_pieces(o, keys)) for o in self.own.values()], keys.shaped)
        self._instance: dict[int, bool] = {}  # id(TextKeys) -> skeleton instance
        self._short: dict[bytes, int] = {}
        self._plain: dict[str, list[str]] = {}
        self._elsewhere: QuotedIn | None = None
        self._cuts: dict[int, Session] = {}
        self._varying: dict[int, list[str]] = {}  # turn id -> its template's varying parts
        self._parts: list[tuple[str, str]] = []  # (session id, part), in corpus order
        self._parts_read = 0  # sessions whose parts are in _parts
        self._peers: dict[str, list[str]] = {}
        self._words: dict[str, list[str]] = {}

    def _own_turns(self) -> dict[str, _Own]:
        """`resume.own_turns` of the entries: a stored session none of whose turns was
        seen before is its own whole, told by its set of keys alone."""
        first = OwnTurns()
        out: dict[str, _Own] = {}
        # Its last activity from the view without turns: a stored entry's is its summary.
        by_age = sorted(self.entries, key=lambda e: oldest_first(
            e.started_at, e.bare().last_activity, e.id))
        for entry in by_age:
            if entry.light and first.unseen(entry.keys.resume):
                out[entry.id] = _Own(entry, None, entry.keys)
                continue
            view = entry.view()
            own = first.add(view, entry.resume_keys(self.keys))
            out[entry.id] = (_Own(entry, None, entry.keys) if own is view else
                             _Own(entry, own, session_keys(own.human_turns, self.keys.of)))
        return out

    @cached_property
    def prompts(self) -> list[RepeatedPrompt]:
        """The prompts repeated word for word (`repeated.repeated_prompts`)."""
        out = [RepeatedPrompt(self._first_text(k), n, by_hand) for k, n, by_hand in self._repeated]
        out.sort(key=lambda p: (-p.sessions, p.text))
        return out

    @cached_property
    def fingerprints(self) -> Sequence[str]:
        """The fingerprints given and the repeated prompts' (`repeated.with_prompts`)."""
        return with_prompts(self._given, self.prompts) if self._repeated else self._given

    @cached_property
    def _prints(self) -> FingerprintIndex | None:
        return FingerprintIndex(self.fingerprints) if self.fingerprints else None

    def _first_text(self, folded: bytes) -> str:
        """The text of the first own long typed turn folding to `folded`, oldest session first."""
        for own in self.own.values():
            if folded in own.keys.long:
                # A light entry's own turns are all of its turns (else it has its own view).
                known = own.entry.first_text(folded) if own.whole else None
                if known is not None:
                    return known
                for t in own.view().human_turns:
                    if templated(t) and self.keys.of(t).folded == folded:
                        return self.keys.text(t)
        raise KeyError(folded)

    # ---------------------------------------------------------------- by keys

    def _is_instance(self, k: TextKeys) -> bool:
        got = self._instance.get(id(k))
        if got is None:
            got = self._instance[id(k)] = self.skeleton.instance_of(k.chars, k.pieces)
        return got

    def instance(self, turn: HumanTurn) -> bool:
        """A turn that is an instance of a template (`skeleton.is_instance`), and could
        be one (`repeated.templated`)."""
        return templated(turn) and self._is_instance(self.keys.of(turn))

    def short_sessions(self, folded: bytes) -> int:
        """How many sessions hold this folded text in an own turn outside a template,
        counted up to LOOP_MIN_SESSIONS: `facts` asks only whether fewer do. Counted
        to the end, a reply typed in hundreds of sessions ("yes", "go on") had every
        turn of each read: 28% of the py-spy samples of the judgement of the spread
        bench home's 1,000 sessions, 3% since (its CPU 0.085 s, now 0.075 s)."""
        got = self._short.get(folded)
        if got is None:
            got = 0
            for o in self._holding.get(folded, ()):
                if any(self.keys.of(t).folded == folded and not self.instance(t)
                       for t in o.view().human_turns):
                    got += 1
                    if got == LOOP_MIN_SESSIONS:
                        break
            self._short[folded] = got
        return got

    @cached_property
    def _holding(self) -> dict[bytes, list[_Own]]:
        """folded digest -> the sessions (in corpus order) with a turn folding to it: a
        text's sessions looked up, not every session asked in turn (that scan was
        sessions x free replies, 1.9% of a first listing of 1,000 sessions)."""
        out: dict[bytes, list[_Own]] = {}
        for o in self.own.values():
            for folded in o.keys.folds:
                out.setdefault(folded, []).append(o)
        return out

    def facts(self, i: int) -> OriginFacts:
        """What session `i` says about who started it (`origin.OriginFacts`)."""
        entry, keys, skeleton = self.entries[i], self.keys, self.skeleton
        counted = self.counted(i)
        shared = 0
        opening = entry.opening
        if opening is not None:
            k = opening.keys
            if k.folded in self._sessions_of_prompt:
                shared = self._sessions_of_prompt[k.folded] - 1
            elif not opening.filled and self._is_instance(k):
                shared = skeleton.shared_with_of(k.pieces)
        free = False
        # A reply that is no template's opens with no tag and is prose: without such a
        # turn past the opening there is none to look for.
        if entry.keys.free > (1 if opening is not None and opening.free else 0):
            view = entry.view()
            first = opening_of(view.human_turns)
            # The tests that read keys only, first (the answer is the same in any order).
            free = any(
                t is not first
                and not (k := keys.of(t)).tagged
                and k.prose
                and not self._is_instance(k)
                and not skeleton.touches_of(k.pieces)
                and self.short_sessions(k.folded) < LOOP_MIN_SESSIONS
                and not (self._prints is not None
                         and self._prints.replays(keys.fold(keys.text(t))))
                for t in view.human_turns
            )
        return replace(counted, opening_shared=shared, free_reply=free)

    def counted(self, i: int) -> OriginFacts:
        """`facts` but for the opening's share and a free reply: what judge_origins
        counts across sessions (it reads those two only for the session itself)."""
        entry = self.entries[i]
        k = entry.opening.keys if entry.opening is not None else None
        return OriginFacts(
            session_id=entry.id, project=entry.project, entrypoint=entry.entrypoint,
            opening_command=entry.opening.command if entry.opening is not None else None,
            # The folded opening is only compared with the others': its digest stands for it.
            opening_text=(k.folded.hex() if k.folded_chars else "") if k is not None else None,
            opening_chars=k.chars if k is not None else 0,
            signals=entry.signals,
            started_at=(entry.opening.at if entry.opening is not None and entry.opening.at
                        is not None else entry.started_at),
        )

    # ---------------------------------------------------------------- by text

    def all_judged(self, include_programmatic: bool) -> list[Session]:
        origins = judge_origins([self.facts(i) for i in range(len(self.entries))])
        return [self.judged(i, *origins[e.id], include_programmatic)
                for i, e in enumerate(self.entries)]

    def judged(self, i: int, origin: SessionOrigin, evidence: tuple[str, ...],
               include_programmatic: bool) -> Session:
        """Session `i` as judged: what programs wrote cut, its origin set."""
        entry = self.entries[i]
        if origin == "programmatic" and not include_programmatic:
            # None of its turns is kept, whatever the templates would have left.
            if entry.light:  # its timeline is its turns: nothing is left of either
                return replace(entry.bare(), origin=origin, origin_evidence=evidence)
            view = replace(entry.view(), origin=origin, origin_evidence=evidence)
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
            view = self.entries[i].view()
            got = self._cuts[i] = (
                without_prompts(view, self.fingerprints, self.keys) if self._repeated else view)
        return got

    def parts_of(self, i: int) -> list[str]:
        """The varying parts of session `i`'s template instances, in turn order."""
        out: list[str] = []
        cut, entry = self.cut(i), self.entries[i]
        if cut is entry.view() and self.skeleton.shapes.isdisjoint(entry.keys.shapes):
            # Its turns as they are, none holding a skeleton's shape: none is an instance
            # (`SessionKeys.shapes` are those of every turn that could be one).
            return out
        for t in cut.human_turns:
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
                    if self._parts_read == len(self.entries):
                        break
                    sid = self.entries[self._parts_read].id
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
                self.keys.fold(self.keys.text(t)) for t in (own.view().human_turns if own else ())
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
        headless = session_headless(view.entrypoint, view.signals)
        for part in self._varying[id(turn)]:
            part = strip_affixes(part, self.peers(view.id), self._split)
            if is_prose(part) and not self.quoted(part, view.id, headless):
                kept.append(part)
        return "\n".join(kept)


def _spoken_pieces(own: _Own, keys: Keys) -> Callable[[frozenset[bytes]], list[Sequence[Piece]]]:
    """How to read the pieces of a session's own spoken turns a skeleton is learned
    from (those that may hold one of the shapes asked for)."""
    def read(shapes: frozenset[bytes]) -> list[Sequence[Piece]]:
        if own.whole:
            return own.entry.pieces_holding(shapes, keys)
        return [k.pieces for t in own.view().human_turns
                if templated(t) and (k := keys.of(t)).chars >= TEMPLATE_MIN_CHARS
                and k.may_hold(shapes)]

    return read
