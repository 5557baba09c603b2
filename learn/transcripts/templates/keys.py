"""What the corpus pass reads of a turn's text, as keys worked out once per text.

Judging sessions together (`scripted.machinery`) asks the same few questions of
every turn: is it a copy of a turn of an earlier session (`resume.own_turns`:
its whitespace-flattened text), is it repeated word for word elsewhere (its
folded text), which template pieces does it hold (its pieces' shapes,
`skeleton`), is it prose, does it open with a tag. Each answer is a key, so
sessions are compared through dictionaries of keys, never text against text,
and the keys of a turn are worked out once: when the session index reads a
file (stored beside its turns, `learn.index.indexed_turns`), or on first use.

Keys are digests (blake2b, 16 bytes): equal keys are equal texts (a collision
is a 2**-128 chance), and a memory plugin's home holds ~180 MB of turn text
that would otherwise be held again as keys.

A session the index stored can be judged without its texts: its turns are
given with empty texts and their stored keys (`Keys.light`,
`learn.index.indexed_turns.light_view`), and `Keys.text` reads a turn's text
(the whole session's, once) only when the pass needs it: a repeated prompt's
words, the varying parts of a template, what a quote may be inside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

import msgspec

from learn.textfold import flatten
from learn.transcripts.templates.skeleton import (
    DIGEST_BYTES,
    TEMPLATE_MIN_CHARS,
    digest,
    is_prose,
    shape_keys,
)
from learn.transcripts.view.model import HumanTurn, Session

# Bump when a key below is worked out or stored differently: stored keys of
# another version are not used (and the index reads such entries again).
KEYS_VERSION: Final = 1


class TextKeys:
    """The keys of one text (see the module docstring). Compared by identity:
    a pass gives each text one object (`Keys`), and caches answers per object."""

    __slots__ = (
        "_lengths",
        "_pieces",
        "_shapes",
        "chars",
        "flat",
        "folded",
        "folded_chars",
        "prose",
        "tagged",
    )

    def __init__(self, chars: int, flat: bytes, folded: bytes, folded_chars: int, prose: bool,
                 tagged: bool, shapes: bytes, lengths: Sequence[int]) -> None:
        self.chars = chars  # len(text)
        self.flat = flat  # digest of flatten(text): a copy of the turn (resume)
        self.folded = folded  # digest of fold(text): the text repeated word for word
        self.folded_chars = folded_chars  # len(fold(text))
        self.prose = prose  # skeleton.is_prose(text)
        self.tagged = tagged  # opens with a tag (`text.lstrip().startswith("<")`)
        self._shapes = shapes  # the pieces' shape digests, one after the other
        self._lengths = lengths  # the pieces' lengths
        self._pieces: tuple[tuple[bytes, int], ...] | None = None

    @property
    def pieces(self) -> tuple[tuple[bytes, int], ...]:
        """`skeleton.shape_keys(text)`: each piece's shape digest and length."""
        if self._pieces is None:
            s, n = self._shapes, DIGEST_BYTES
            self._pieces = tuple((s[i * n:(i + 1) * n], m) for i, m in enumerate(self._lengths))
        return self._pieces

    def may_hold(self, shapes: frozenset[bytes]) -> bool:
        """False when no piece has one of these shapes (True may be a near miss: a
        digest found across two pieces' bytes; read `pieces` to know)."""
        return any(s in self._shapes for s in shapes)

    def stored(self) -> tuple[int, bytes, bytes, int, bool, bool, bytes, Sequence[int]]:
        return (self.chars, self.flat, self.folded, self.folded_chars, self.prose, self.tagged,
                self._shapes, self._lengths)


def text_keys(text: str) -> TextKeys:
    flat = flatten(text)
    folded = flat.casefold()
    shaped = shape_keys(text)
    return TextKeys(len(text), digest(flat), digest(folded), len(folded), is_prose(text),
                    text.lstrip().startswith("<"), b"".join(k for k, _ in shaped),
                    [n for _, n in shaped])


# A turn as stored: origin, at, event_index, uuid, command, on_branch, then its keys.
_Turn = tuple[str, str | None, int, str | None, str | None, bool,
              int, bytes, bytes, int, bool, bool, bytes, list[int]]
_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(tuple[int, list[_Turn], bytes])
_SPOKEN: Final = ("typed", "queued")


def encode_session_keys(turns: Sequence[HumanTurn], clean: Callable[[str], str]) -> bytes:
    """`turns` without their texts, each with the keys of its text as `clean` makes it
    (the index passes `redact`, as for the turns it stores), and the distinct
    shapes of the spoken ones a skeleton is learned from (`spoken_shapes`)."""
    keyed = [(t, text_keys(clean(t.text))) for t in turns]
    return _encoder.encode((KEYS_VERSION, [
        (t.origin, t.at.isoformat() if t.at is not None else None, t.event_index, t.uuid,
         clean(t.command) if t.command is not None else None, t.on_branch, *k.stored())
        for t, k in keyed], b"".join(sorted(spoken_shapes(keyed)))))


def spoken_shapes(turns: Iterable[tuple[HumanTurn, TextKeys]]) -> frozenset[bytes]:
    """The distinct shapes of the typed turns a skeleton is learned from (`skeleton.learn_skeleton`)."""
    return frozenset(key for t, k in turns if t.origin in _SPOKEN and k.chars >= TEMPLATE_MIN_CHARS
                     for key, _ in k.pieces)


def _decoded(blob: bytes | None) -> tuple[list[_Turn], bytes] | None:
    if not blob:
        return None
    try:
        version, rows, shapes = _decoder.decode(blob)
    except msgspec.DecodeError:
        return None
    return (rows, shapes) if version == KEYS_VERSION else None


def decode_keys(blob: bytes | None) -> list[TextKeys] | None:
    """The keys `encode_session_keys` stored, per turn; None when none, of another version, or damaged."""
    got = _decoded(blob)
    if got is None:
        return None
    return [TextKeys(*r[6:]) for r in got[0]]


StoredTurn = tuple[str, str | None, int, str | None, str | None, bool]  # origin .. on_branch


def decode_turns(blob: bytes | None) -> tuple[list[tuple[StoredTurn, TextKeys]], frozenset[bytes]] | None:
    """Each stored turn without its text (origin, at, event_index, uuid, command,
    on_branch) and its keys, and the session's `spoken_shapes`; None as for `decode_keys`."""
    got = _decoded(blob)
    if got is None:
        return None
    rows, shapes = got
    n = DIGEST_BYTES
    return ([((r[0], r[1], r[2], r[3], r[4], r[5]), TextKeys(*r[6:])) for r in rows],
            frozenset(shapes[i:i + n] for i in range(0, len(shapes), n)))


class Keys:
    """Each turn's keys and, when asked, its text.

    - `of(turn)`: the turn's keys: stored (`learn`, `light_view`) or worked out
      from its text once per text;
    - `text(turn)`: its text, read for a light view's session on first need;
    - `fold(text)`: `textfold.fold`, once per text.
    """

    def __init__(self) -> None:
        self._by_text: dict[str, TextKeys] = {}
        self._by_turn: dict[int, TextKeys] = {}
        self._texts: dict[int, str] = {}  # a light turn's id -> its text, once read
        self._readers: dict[int, tuple[Callable[[], list[str]], tuple[HumanTurn, ...]]] = {}
        self._folds: dict[str, str] = {}
        self._shapes: dict[int, tuple[Session, frozenset[bytes]]] = {}

    def learn(self, view: Session, blob: bytes | None) -> None:
        """Take the stored keys (`encode_session_keys`) of `view`'s turns (the same texts,
        in the same order); nothing when none of this version are stored."""
        got = decode_turns(blob)
        if got is None or len(got[0]) != len(view.human_turns):
            return
        self._by_text.update((t.text, k) for t, (_, k) in zip(view.human_turns, got[0], strict=True))
        self._shapes[id(view)] = (view, got[1])

    def spoken_shapes(self, view: Session) -> frozenset[bytes]:
        """`spoken_shapes` of all of `view`'s turns: as stored, or worked out."""
        got = self._shapes.get(id(view))
        if got is not None and got[0] is view:
            return got[1]
        return spoken_shapes((t, self.of(t)) for t in view.human_turns)

    def of(self, turn: HumanTurn) -> TextKeys:
        got = self._by_turn.get(id(turn))
        if got is None:
            got = self.of_text(turn.text)
        return got

    def of_text(self, text: str) -> TextKeys:
        got = self._by_text.get(text)
        if got is None:
            got = self._by_text[text] = text_keys(text)
        return got

    def text(self, turn: HumanTurn) -> str:
        """The turn's text: as it is, or read for a light view's turn."""
        if id(turn) not in self._by_turn:
            return turn.text
        got = self._texts.get(id(turn))
        if got is None:
            reader, turns = self._readers.pop(id(turn))
            texts = reader()
            for t, text in zip(turns, texts, strict=True):
                self._texts[id(t)] = text
                self._readers.pop(id(t), None)
            got = self._texts[id(turn)]
        return got

    def light(self, view: Session, keys: Sequence[TextKeys], shapes: frozenset[bytes],
              read: Callable[[], list[str]]) -> None:
        """Register `view`'s turns (empty texts) with their stored keys and its stored
        `spoken_shapes`, and how to read their texts."""
        entry = (read, view.human_turns)
        for t, k in zip(view.human_turns, keys, strict=True):
            self._by_turn[id(t)] = k
            self._readers[id(t)] = entry
        self._shapes[id(view)] = (view, shapes)

    def fold(self, text: str) -> str:
        got = self._folds.get(text)
        if got is None:
            got = self._folds[text] = flatten(text).casefold()
        return got

    def shaped(self, text: str) -> tuple[tuple[bytes, int], ...]:
        """`skeleton.shape_keys`, through the keys."""
        return self.of_text(text).pieces
