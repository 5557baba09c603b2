"""Each session as the corpus pass reads it: an `Entry`, its keys as sets.

Most of what judging sessions together asks of a session is a question about
the set of its turns' keys (`keys.TextKeys`): was any of its turns seen in an
older session (`resume.own_turns`), which long prompts does it hold (repeated
prompts), which template shapes (the skeleton), which texts (a short text typed
in many sessions), what opens it (who started it). `SessionKeys` holds those
sets, so the pass reads a session's turns only where a set cannot answer:
another session holds the same shape or text, its turns are kept and must be
cut, its template's parts are compared with another's.

The session index stores them beside the turns (`encode_cleaned`): a stored
session is an `Entry` whose view is built from its turns' keys only when the
pass asks for it (`Entry.view`), and whose texts are read after that only
where they are needed (`keys.Keys.text`).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import accumulate
from typing import Final

import msgspec
from msgspec.structs import replace

from learn.transcripts.templates.keys import Keys, TextKeys, stored_text_keys
from learn.transcripts.templates.keys_version import KEYS_VERSION
from learn.transcripts.templates.repeated import REPEATED_MIN_CHARS as LONG_CHARS
from learn.transcripts.templates.repeated import SPOKEN as SPOKEN
from learn.transcripts.templates.repeated import templated
from learn.transcripts.templates.skeleton import BLAKE2B, DIGEST_BYTES, TEMPLATE_MIN_CHARS, Piece
from learn.transcripts.view.model import HUMAN_ORIGINS, HumanTurn, Session


def resume_keys(turn: HumanTurn, keys: TextKeys, at: str | None = None) -> list[bytes]:
    """`resume._keys` with the turn's text as its digests: a copy of an older turn
    (`at`: `turn.at.isoformat()`, when the caller has it)."""
    # Each is the digest of its parts, each part after its length (4 bytes), hashed at
    # once: one call into blake2b instead of one a part, the constant first part already
    # in a hasher that is copied (`skeleton.BLAKE2B`: the index keys every turn it stores).
    found: list[bytes] = []
    if turn.uuid:
        uuid = turn.uuid.encode("utf-8", "surrogatepass")
        flat = keys.flat
        h = _UUID_HASH.copy()
        h.update(b"".join((len(uuid).to_bytes(4, "little"), uuid,
                           _ORIGINS.get(turn.origin) or _sized(turn.origin.encode()),
                           len(flat).to_bytes(4, "little"), flat)))
        found.append(h.digest())
    if turn.at is not None:
        when = (at if at is not None else turn.at.isoformat()).encode()
        folded = keys.folded
        h = _AT_HASH.copy()
        h.update(b"".join((len(when).to_bytes(4, "little"), when,
                           len(folded).to_bytes(4, "little"), folded)))
        found.append(h.digest())
    return found


def _sized(part: bytes) -> bytes:
    return len(part).to_bytes(4, "little") + part


def _seeded(part: bytes) -> hashlib.blake2b:
    """A blake2b (`skeleton.BLAKE2B`) that has hashed `part`, sized."""
    h = BLAKE2B.copy()
    h.update(_sized(part))
    return h


_UUID_HASH: Final = _seeded(b"uuid")
_AT_HASH: Final = _seeded(b"at")
_ORIGINS: Final = {origin: _sized(origin.encode()) for origin in HUMAN_ORIGINS}


class SessionKeys(msgspec.Struct, frozen=True):
    """A session's turns' keys, as sets (see the module docstring)."""

    resume: frozenset[bytes]  # every turn's `resume_keys`
    long: frozenset[bytes]  # the folded digests of its typed turns of LONG_CHARS or more
    other: bool  # a turn that is not one of those (not typed, or shorter)
    shapes: frozenset[bytes]  # the shapes of its typed turns a skeleton is learned from
    folds: frozenset[bytes]  # every turn's folded digest
    free: int  # turns that open with no tag and are prose: a reply could be among them


def session_keys(turns: Sequence[HumanTurn], keys_of: Callable[[HumanTurn], TextKeys]) -> SessionKeys:
    return keys_as_sets(turns, [keys_of(t) for t in turns])


def keys_as_sets(turns: Sequence[HumanTurn], keys: Sequence[TextKeys],
                 ats: Sequence[str | None] | None = None,
                 resumes: Sequence[list[bytes]] | None = None) -> SessionKeys:
    """`session_keys` of `turns` whose keys are `keys` (the same order), and their times
    as `isoformat` gives them in `ats`, or their `resume_keys` in `resumes`, when the
    caller has them."""
    # One pass over the turns, each set filled as it goes; `templated` inlined, the loop
    # without an index, a one-piece shape added as it is (the index keys every turn it
    # stores: 7.7 ms for the spread bench home's first 3,083 turns, against 9.9 ms).
    resume: list[bytes] = []
    long: set[bytes] = set()
    shapes: set[bytes] = set()
    folds: set[bytes] = set()
    other = False
    free = 0
    n = DIGEST_BYTES
    if resumes is None:
        resumes = [resume_keys(t, k, at) for t, k, at
                   in zip(turns, keys, ats if ats is not None else [None] * len(turns),
                          strict=True)]
    for t, k, found in zip(turns, keys, resumes, strict=True):
        resume += found
        spoken = t.origin in SPOKEN and not t.filled  # `templated(t)`
        if spoken and k.folded_chars >= LONG_CHARS:
            long.add(k.folded)
        else:
            other = True
        if spoken and k.chars >= TEMPLATE_MIN_CHARS:  # its pieces' shapes, without their lengths
            s = k.shapes
            if len(s) == n:
                shapes.add(s)
            else:
                shapes.update([s[j:j + n] for j in range(0, len(s), n)])
        folds.add(k.folded)
        if not k.tagged and k.prose:
            free += 1
    return SessionKeys(resume=frozenset(resume), long=frozenset(long), other=other,
                       shapes=frozenset(shapes), folds=frozenset(folds), free=free)


class Opening(msgspec.Struct, frozen=True):
    """The turn that opened a session: the first typed one (`corpus`)."""

    command: str | None
    keys: TextKeys
    # Its text when it is also the first typed turn of that text in the session: a
    # prompt repeated across sessions opens them, and is read from here.
    text: str | None = None
    filled: bool = False  # written into a command or prompt body (never a template's)
    at: datetime | None = None  # when it was sent

    @property
    def free(self) -> bool:
        """Counted in `SessionKeys.free`."""
        return not self.keys.tagged and self.keys.prose


def opening_of(turns: Sequence[HumanTurn]) -> HumanTurn | None:
    spoken = [t for t in turns if t.origin in SPOKEN]
    return min(spoken, key=lambda t: (t.at is None, t.at, t.event_index), default=None)


class Entry:
    """One session for the pass: who and when, its keys as sets, what opened it,
    and its view, built on first need (`view`)."""

    __slots__ = (
        "_bare",
        "_make",
        "_pairs",
        "_resumes",
        "_view",
        "entrypoint",
        "id",
        "keys",
        "light",
        "opening",
        "project",
        "signals",
        "started_at",
    )

    def __init__(self, session_id: str, project: str | None, entrypoint: str | None,
                 started_at: datetime | None, keys: SessionKeys, opening: Opening | None, *,
                 view: Session | None = None, make: Callable[[], Session] | None = None,
                 bare: Callable[[], Session] | None = None, pairs: bytes | None = None,
                 signals: tuple[str, ...] = ()) -> None:
        self.id = session_id
        self.signals = signals  # what the file says of itself (`Session.signals`)
        self.project = project
        self.entrypoint = entrypoint
        self.started_at = started_at
        self.keys = keys
        self.opening = opening
        self.light = view is None  # no tool calls, turns with their keys and no texts
        self._view = view
        self._make = make
        self._bare = bare
        self._pairs = pairs  # packed: the pieces of its typed turns a skeleton is learned from
        self._resumes: list[list[bytes]] | None = None  # its view's turns' `resume_keys`

    def view(self) -> Session:
        if self._view is None:
            assert self._make is not None
            self._view = self._make()
        return self._view

    def pieces_holding(self, shapes: frozenset[bytes], keys: Keys) -> list[Sequence[Piece]]:
        """The pieces of its typed turns a skeleton is learned from (`learn_skeleton`), of
        each that holds one of `shapes` at least: a stored entry finds them in its packed
        pieces without reading its turns."""
        if self._pairs is not None and self._view is None:
            return _pieces_holding(self._pairs, shapes)
        return [k.pieces for t in self.view().human_turns
                if templated(t) and (k := keys.of(t)).chars >= TEMPLATE_MIN_CHARS
                and k.may_hold(shapes)]

    def bare(self) -> Session:
        """The view without its turns (of a light entry: its timeline is its turns)."""
        if self._bare is None:
            return replace(self.view(), human_turns=(), timeline=())
        return self._bare()

    @classmethod
    def of(cls, view: Session, keys: Keys) -> Entry:
        """The entry of a view with its texts (keys worked out from them, or as `keys` learned)."""
        first = opening_of(view.human_turns)
        turns = view.human_turns
        tk = [keys.of(t) for t in turns]
        resumes = [resume_keys(t, k) for t, k in zip(turns, tk, strict=True)]
        entry = cls(view.id, view.project, view.entrypoint, view.started_at,
                    keys_as_sets(turns, tk, resumes=resumes),
                    None if first is None else Opening(first.command, keys.of(first),
                                                       filled=first.filled, at=first.at),
                    view=view, signals=view.signals)
        entry._resumes = resumes
        return entry

    def resume_keys(self, keys: Keys) -> list[list[bytes]]:
        """Each of its view's turns' `resume_keys`: worked out once for an entry made
        `of` a view (`learn show`'s 1,351-turn session asked them twice, for its
        sets and for `resume.own_turns`)."""
        if self._resumes is None:
            self._resumes = [resume_keys(t, keys.of(t)) for t in self.view().human_turns]
        return self._resumes

    def first_text(self, folded: bytes) -> str | None:
        """The text of the first typed turn folding to `folded`, when known without
        reading the turns (the opening's, stored with a light entry)."""
        opening = self.opening
        if self.light and opening is not None and opening.text is not None \
                and opening.keys.folded == folded:
            return opening.text
        return None


# ---------------------------------------------------------------- as the index stores it

class StoredTurn(msgspec.Struct, array_like=True, gc=False):
    """A turn as the index stores it for the pass: all but its text, and its text's keys."""

    origin: str
    at: str | None
    event_index: int
    uuid: str | None
    command: str | None
    on_branch: bool
    filled: bool
    keys: TextKeys


class _StoredOpening(msgspec.Struct, array_like=True, gc=False):
    command: str | None
    keys: TextKeys
    text: str | None
    filled: bool
    at: str | None


class _StoredSession(msgspec.Struct, array_like=True, gc=False):
    resume: list[bytes]
    long: list[bytes]
    other: bool
    shapes: list[bytes]
    folds: list[bytes]
    free: int


class _ReadSession(msgspec.Struct, array_like=True, gc=False):
    """A `_StoredSession` as it is read: its lists decoded straight into the sets
    `SessionKeys` holds (no list made of each first: a judgement reads 1,000 of them)."""

    resume: frozenset[bytes]
    long: frozenset[bytes]
    other: bool
    shapes: frozenset[bytes]
    folds: frozenset[bytes]
    free: int


_encoder: Final = msgspec.msgpack.Encoder()
_entry: Final = msgspec.msgpack.Decoder(
    tuple[int, _ReadSession, _StoredOpening | None, bytes, bytes])
_turns: Final = msgspec.msgpack.Decoder(list[StoredTurn])
# The typed turns a skeleton is learned from: their pieces' shapes one after the other,
# the pieces' lengths, and how many pieces each turn has.
_pairs: Final = msgspec.msgpack.Decoder(tuple[bytes, list[int], list[int]])


def encode_cleaned(turns: Sequence[HumanTurn], texts: Sequence[str],
                   commands: Sequence[str | None], ats: Sequence[str | None]) -> bytes:
    """`turns` without their texts, each with the keys of its text as cleaned in `texts`
    (the index passes them through `redact`, as for the turns it stores), and the
    session's keys as sets; their commands cleaned and their times as `isoformat` gives
    them (one of each per turn, from the caller that stores them too:
    `learn.index.indexed_turns.encode_turns_and_keys`). The turns are packed apart: a
    pass that reads only the sets leaves them."""
    # Each text's keys are new here (a copy of a text's keys seen before: see
    # keys._Stored): nothing cached on them, they are stored as they are.
    keys = [stored_text_keys(text) for text in texts]
    sk = keys_as_sets(turns, keys, ats)
    first = opening_of(turns)
    # Each as the tuple of its fields, packed as the array a `StoredTurn` is
    # (array_like): the same bytes, without making a Struct of each.
    rows = [(t.origin, at, t.event_index, t.uuid, command, t.on_branch, t.filled, k)
            for t, k, command, at in zip(turns, keys, commands, ats, strict=True)]
    opening = None
    if first is not None:
        i = next(i for i, t in enumerate(turns) if t is first)
        k = keys[i]
        # Its text, when no typed turn of the same text comes before it (a turn filled
        # into a body is never a repeated prompt's first).
        earlier = next((t for t, tk in zip(turns, keys, strict=True)
                        if templated(t) and tk.folded == k.folded), None)
        opening = _StoredOpening(commands[i], k, texts[i] if earlier is first else None,
                                 first.filled, ats[i])
    learned = [k for t, k in zip(turns, keys, strict=True)
               if templated(t) and k.chars >= TEMPLATE_MIN_CHARS]
    pairs = _encoder.encode((b"".join(k.shapes for k in learned),
                             [n for k in learned for n in k.lengths],
                             [len(k.lengths) for k in learned]))
    return _encoder.encode((
        KEYS_VERSION,
        _StoredSession(sorted(sk.resume), sorted(sk.long), sk.other, sorted(sk.shapes),
                       sorted(sk.folds), sk.free),
        opening, _encoder.encode(rows), pairs))


def decode_entry(blob: bytes | None) -> tuple[SessionKeys, Opening | None, bytes, bytes] | None:
    """The session's keys, its opening, its packed turns (`decode_turns`) and its packed
    pieces (`Entry.pieces_holding`); None when none are stored, of another version, or
    damaged."""
    if not blob:
        return None
    try:
        version, session, opening, turns, pairs = _entry.decode(blob)
    except msgspec.DecodeError:
        return None
    if version != KEYS_VERSION:
        return None
    return (SessionKeys(session.resume, session.long, session.other, session.shapes,
                        session.folds, session.free),
            None if opening is None else Opening(
                opening.command, opening.keys, opening.text, opening.filled,
                datetime.fromisoformat(opening.at) if opening.at is not None else None),
            turns, pairs)


def _pieces_holding(packed: bytes, shapes: frozenset[bytes]) -> list[Sequence[Piece]]:
    """`Entry.pieces_holding` from the packed pieces: each shape found in the shapes
    laid one after the other (at a piece's boundary), and the turns holding it."""
    blob, lengths, counts = _pairs.decode(packed)
    found: set[int] = set()  # piece numbers
    n = DIGEST_BYTES
    for shape in shapes:
        at = blob.find(shape)
        while at >= 0:
            if at % n == 0:
                found.add(at // n)
            at = blob.find(shape, at + 1)
    ends = list(accumulate(counts))
    turns = sorted({bisect_right(ends, piece) for piece in found})
    out: list[Sequence[Piece]] = []
    for t in turns:
        first = ends[t] - counts[t]
        out.append([(blob[(first + i) * n:(first + i + 1) * n], lengths[first + i])
                    for i in range(counts[t])])
    return out


def decode_turns(packed: bytes) -> list[StoredTurn]:
    """Each turn without its text, and its text's keys (`encode_cleaned`)."""
    return _turns.decode(packed)


def learn_keys(view: Session, blob: bytes | None, keys: Keys) -> None:
    """Give `keys` the stored keys of `view`'s turns (a view with the texts they were
    stored from, in the same order); nothing when none of this version are stored."""
    got = decode_entry(blob)
    if got is None:
        return
    turns = decode_turns(got[2])
    if len(turns) == len(view.human_turns):
        keys.learn([t.text for t in view.human_turns], [t.keys for t in turns])
