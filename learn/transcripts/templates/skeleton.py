"""Templates by shape: a long prompt whose skeleton recurs across sessions is machinery.

`scripted.repeated_prompts` finds prompts repeated word for word. A program that
fills a template (a loop's prompt file with a changing story id or iteration
number, a memory plugin quoting the person's request inside
`<observed_from_primary_session><user_request>…`, a command body whose file was
deleted with its `$ARGUMENTS` filled in) never repeats one exact text, so the
skeleton is learned from the sessions themselves:

- each long turn is cut into pieces (lines, and XML-style tags on their own);
- a piece's shape is its folded text with digit runs masked, so "story US-002"
  and "story US-003" share one shape;
- a shape is part of a skeleton when it recurs in >= 3 sessions, or in 2 when
  the turn's shared part is long (two runs of one long prompt file are a loop,
  two copies of a sentence are not);
- a turn is an instance of a template when skeleton pieces are most of it.

What an instance keeps are its varying parts, and only those a person plausibly
supplied: prose (not an id, a number, a path), outside a tag slot the template
fills itself, and not a quote of something typed elsewhere (a request a program
quotes must never count a second time).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

import msgspec

from learn.lazy import lazy_pattern
from learn.textfold import fold

# Shorter turns are not examined: a template a program fills is long, and short
# turns repeated across sessions are the person's habits (corrections typed
# again and again are exactly what learn is for).
TEMPLATE_MIN_CHARS: Final = 150
SHARED_MIN_SESSIONS: Final = 3
# Two sessions are enough when they share this much of one prompt: no person
# retypes 400 characters identically, and pasting the same text twice with a
# changed id is a script.
LONG_SHARED_CHARS: Final = 400
# A turn is an instance when its skeleton pieces are at least this share of it
# and at least INSTANCE_MIN_CHARS long; a person's long message that happens to
# contain one sentence they often type stays theirs.
INSTANCE_SHARE: Final = 0.5
INSTANCE_MIN_CHARS: Final = 120
# A skeleton piece this long inside a short turn marks it as the program's too.
TOUCH_MIN_CHARS: Final = 20
# A varying part keeps this many words of letters, or it is an id, a number or
# a path a program substituted ("docs/prd-x.json US-002"). `is_prose` counts two.
PROSE_MIN_WORDS: Final = 2
# Varying parts compared with each other to find a template's words around a
# substituted value ("Focus on: <args>"); bounded so a large corpus stays linear.
AFFIX_PEERS: Final = 200

# A tag piece: `<name ...>`, `</name>`, `<!-- ...>`; never across a line.
_TAG = lazy_pattern(r"(<[A-Za-z/!][^<>\n]{0,80}>)")
_OPEN_TAG = lazy_pattern(r"<([A-Za-z][\w:.-]*)(?:\s[^<>]*)?>$")
_CLOSE_TAG = lazy_pattern(r"</([A-Za-z][\w:.-]*)\s*>$")
_DIGITS = lazy_pattern(r"\d+")
_WORD = lazy_pattern(r"[^\W\d_]{2,}")
# A shape is kept as its digest (`shape_keys`): compared for equality only, and a
# corpus pass holds every piece's at once (a memory plugin's home: ~180 MB of them).
ShapeKey = bytes
Piece = tuple[ShapeKey, int]  # a piece's shape key and length
Shaped = Callable[[str], tuple[Piece, ...]]
DIGEST_BYTES: Final = 16


# An empty blake2b of DIGEST_BYTES, copied for each digest: a copy costs less than a
# new hasher given its size (~0.9 against ~1.3 µs a digest, timeit), and the index
# digests each turn's text two to four times (`keys.text_keys`, `entries.resume_keys`).
BLAKE2B: Final = hashlib.blake2b(digest_size=DIGEST_BYTES)


def digest(text: str) -> bytes:
    """A text's key (blake2b, 16 bytes: equal keys are equal texts but for a 2**-128 chance)."""
    h = BLAKE2B.copy()
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.digest()


def pieces(text: str) -> list[str]:
    """`text` cut into lines, with XML-style tags as pieces of their own."""
    # Line by line: a tag never spans a line, so this is one split of the whole
    # text at tags and newlines, and lines without a tag need no regex at all.
    out: list[str] = []
    for line in text.split("\n"):
        for p in (_TAG.split(line) if "<" in line else (line,)):
            if p and (p := p.strip()):
                out.append(p)
    return out


def shape(piece: str) -> str:
    return masked(fold(piece))


def masked(folded: str) -> str:
    """A folded piece's shape: its digit runs masked (`folded` itself when it has none)."""
    # ASCII's only digits are 0-9: ten scans in C say there are none, faster than
    # the regex's character by character (every piece of every turn is shaped), and
    # written out, a third of the time of `any` over a generator of them.
    f = folded
    if f.isascii() and not ("0" in f or "1" in f or "2" in f or "3" in f or "4" in f
                            or "5" in f or "6" in f or "7" in f or "8" in f or "9" in f):
        return folded
    return _DIGITS.sub("#", folded)


def piece_key(piece: str) -> ShapeKey:
    """The digest of a piece's shape: what skeletons compare."""
    return digest(shape(piece))


def shape_keys(text: str) -> tuple[tuple[ShapeKey, int], ...]:
    """Each piece of `text` as (the digest of its shape, its length)."""
    return tuple((piece_key(p), len(p)) for p in pieces(text))


class Skeleton(msgspec.Struct, frozen=True, eq=False):
    # A Struct, not a dataclass: making a dataclass class runs generated code, ~1 ms of
    # every process that imports this one (`learn show`). Compared by identity.
    shapes: frozenset[ShapeKey]
    # Shape -> sessions holding it, for the evidence shown (`learn show`).
    sessions_of: Mapping[ShapeKey, int]
    # Each text's pieces as (shape key, length): `shape_keys`, or a pass's memo of it.
    shaped: Shaped = shape_keys
    # is_instance per text: the corpus pass asks about each turn three times.
    _seen: dict[str, bool] = msgspec.field(default_factory=dict)

    def is_instance(self, text: str) -> bool:
        if len(text) < TEMPLATE_MIN_CHARS or not self.shapes:
            return False
        known = self._seen.get(text)
        if known is None:
            known = self._seen[text] = self.instance_of(len(text), self.shaped(text))
        return known

    def instance_of(self, chars: int, pieces: Sequence[Piece]) -> bool:
        """`is_instance` of a text of `chars` characters cut into `pieces`."""
        if chars < TEMPLATE_MIN_CHARS or not self.shapes:
            return False
        shapes = self.shapes
        shared = sum(n for k, n in pieces if k in shapes)
        total = sum(n for _, n in pieces)
        return shared >= INSTANCE_MIN_CHARS and shared >= INSTANCE_SHARE * total

    def touches(self, text: str) -> bool:
        """Whether `text` holds a substantial skeleton piece (a short follow-up
        a program sends with its template's words in it)."""
        return self.touches_of(self.shaped(text))

    def touches_of(self, pieces: Sequence[Piece]) -> bool:
        return bool(self.shapes) and any(n >= TOUCH_MIN_CHARS and k in self.shapes for k, n in pieces)

    def shared_with(self, text: str) -> int:
        """How many sessions hold the most widely shared piece of `text`, minus this one."""
        return self.shared_with_of(self.shaped(text))

    def shared_with_of(self, pieces: Sequence[Piece]) -> int:
        counts = [self.sessions_of.get(k, 0) for k, _ in pieces]
        return max(counts, default=1) - 1

    def varying(self, text: str, shaped: Sequence[Piece] | None = None) -> list[str]:
        """The pieces of an instance that are not skeleton, outside tag slots
        (`shaped`: its pieces' keys when known)."""
        out: list[str] = []
        slots: list[str] = []  # open skeleton tags: their content is the program's
        shaped = shaped if shaped is not None else self.shaped(text)
        for piece, (key, _) in zip(pieces(text), shaped, strict=True):
            in_skeleton = key in self.shapes
            opened = _OPEN_TAG.match(piece)
            closed = _CLOSE_TAG.match(piece)
            if opened and in_skeleton:
                slots.append(opened.group(1))
                continue
            if closed and slots and closed.group(1) in slots:
                del slots[slots.index(closed.group(1)):]
                continue
            if in_skeleton or slots:
                continue
            out.append(piece)
        return out


def learn_skeleton(turns: Iterable[tuple[str, str]], shaped: Shaped = shape_keys) -> Skeleton:
    """The skeleton shapes of `(session id, text)` typed turns (give each session's own turns)."""
    return learn_skeleton_of(((sid, shaped(text)) for sid, text in turns
                              if len(text) >= TEMPLATE_MIN_CHARS), shaped)


def learn_skeleton_of(turns: Iterable[tuple[str, Sequence[Piece]]],
                      shaped: Shaped = shape_keys) -> Skeleton:
    """`learn_skeleton` from each turn's pieces (turns of TEMPLATE_MIN_CHARS or more only)."""
    by_session: dict[str, list[Sequence[Piece]]] = {}
    for session_id, parts in turns:
        by_session.setdefault(session_id, []).append(parts)
    return learn_skeleton_from(
        [(frozenset(k for parts in held for k, _ in parts), _all(held))
         for held in by_session.values()], shaped)


def _all(turns: list[Sequence[Piece]]) -> Callable[[frozenset[ShapeKey]], Iterable[Sequence[Piece]]]:
    return lambda _: turns


# A session's distinct shapes, and its turns' pieces: all of them, or at least
# those of the turns holding one of the shapes given.
SessionShapes = tuple[Collection[ShapeKey],
                      Callable[[frozenset[ShapeKey]], Iterable[Sequence[Piece]]]]


def learn_skeleton_from(sessions: Sequence[SessionShapes], shaped: Shaped = shape_keys) -> Skeleton:
    """`learn_skeleton` from each session's distinct shapes (of its own spoken turns of
    TEMPLATE_MIN_CHARS or more) and a way to its turns' pieces, read only for the
    turns holding a shape no more than one other session holds."""
    counts: Counter[ShapeKey] = Counter()
    for distinct, _ in sessions:
        counts.update(distinct)
    keys = {k for k, n in counts.items() if n >= SHARED_MIN_SESSIONS}
    # Two sessions suffice when a turn shares LONG_SHARED_CHARS with another: only a
    # turn holding a shape of exactly two sessions can add one (three are in already).
    pairs = {k for k, n in counts.items() if n == 2}
    if pairs:
        for distinct, turns in sessions:
            held = pairs.intersection(distinct)
            if not held:
                continue
            for parts in turns(frozenset(held)):
                pair = [(k, n) for k, n in parts if counts[k] >= 2]
                if sum(n for _, n in pair) >= LONG_SHARED_CHARS:
                    keys.update(k for k, _ in pair)
    return Skeleton(frozenset(keys), {k: counts[k] for k in keys}, shaped)


def strip_affixes(piece: str, peers: Sequence[str],
                  words_of: Callable[[str], list[str]] = str.split) -> str:
    """`piece` without the words it shares at its start and end with another
    varying part: the template's words around a value it substituted.
    (`words_of`: `str.split`, or a memo of it when the same peers are given often.)"""
    words = piece.split()
    best = (0, 0)
    for other in peers[:AFFIX_PEERS]:
        theirs = words_of(other)
        if theirs == words:
            continue
        head = 0
        while head < min(len(words), len(theirs)) and words[head] == theirs[head]:
            head += 1
        tail = 0
        while (tail < min(len(words), len(theirs)) - head
               and words[-1 - tail] == theirs[-1 - tail]):
            tail += 1
        if head + tail > sum(best):
            best = (head, tail)
    head, tail = best
    label = head == 1 and words[0].endswith(":")  # "Focus: <args>"
    if head + tail < 2 and not label:  # one shared word is chance ("the", "please")
        return piece
    return " ".join(words[head: len(words) - tail])


def is_prose(text: str) -> bool:
    """Whether `text` holds PROSE_MIN_WORDS (two) words: the first found, then another
    after it (as `_WORD.finditer` would go on), not every word of a long text. Two
    searches, not islice over finditer: 0.6 against 1.0 µs a turn (timeit), and the
    index asks it of every turn (`keys.text_keys`)."""
    first = _WORD.search(text)
    return first is not None and _WORD.search(text, first.end()) is not None
