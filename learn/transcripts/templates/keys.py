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

A session the index stored is judged without its texts (`entries`): its
turns are given with empty texts and their stored keys (`Keys.light`), and
`Keys.text` reads a turn's text (the whole session's, once) only when the
pass needs it: a repeated prompt's words, the varying parts of a template,
what a quote may be inside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import msgspec

from learn.textfold import flatten
from learn.transcripts.templates.skeleton import (
    DIGEST_BYTES,
    digest,
    is_prose,
    masked,
    piece_key,
)
from learn.transcripts.templates.skeleton import pieces as pieces_of
from learn.transcripts.view.model import HumanTurn


class TextKeys(msgspec.Struct, array_like=True, omit_defaults=True, eq=False, gc=False):
    """The keys of one text (see the module docstring), stored as they are (msgpack).
    Compared by identity: a pass gives each text one object (`Keys`), and caches
    answers per object."""

    chars: int  # len(text)
    flat: bytes  # digest of flatten(text): a copy of the turn (resume)
    folded: bytes  # digest of fold(text): the text repeated word for word
    folded_chars: int  # len(fold(text))
    prose: bool  # skeleton.is_prose(text)
    tagged: bool  # opens with a tag (`text.lstrip().startswith("<")`)
    shapes: bytes  # the pieces' shape digests, one after the other
    lengths: list[int]  # the pieces' lengths
    # `pieces`, once read (never stored: omitted while None, and never set before it is).
    cached: tuple[tuple[bytes, int], ...] | None = None

    @property
    def pieces(self) -> tuple[tuple[bytes, int], ...]:
        """`skeleton.shape_keys(text)`: each piece's shape digest and length."""
        if self.cached is None:
            s, n = self.shapes, DIGEST_BYTES
            self.cached = tuple((s[i * n:(i + 1) * n], m) for i, m in enumerate(self.lengths))
        return self.cached

    def may_hold(self, shapes: frozenset[bytes]) -> bool:
        """False when no piece has one of these shapes (True may be a near miss: a
        digest found across two pieces' bytes; read `pieces` to know)."""
        return any(s in self.shapes for s in shapes)


_V = TypeVar("_V")


class _ByText(Generic[_V]):
    """`make(text)` of the texts seen last, by text, each made once. Bounded by the
    characters of the texts it holds: emptied when they would pass `max_chars`."""

    def __init__(self, make: Callable[[str], _V], max_chars: int = 2_000_000) -> None:
        self.make = make
        self.max_chars = max_chars
        self.by_text: dict[str, _V] = {}
        self.chars = 0

    def of(self, text: str) -> _V:
        got = self.by_text.get(text)
        if got is None:
            got = self.make(text)
            if len(text) <= self.max_chars:
                if self.chars + len(text) > self.max_chars:
                    self.by_text.clear()
                    self.chars = 0
                self.by_text[text] = got
                self.chars += len(text)
        return got


# Each piece's shape digest, by piece: the texts of one template differ in a line or
# two (the 1,000-session tree home's 266 observer prompts are 4,050 pieces, 317 of them
# distinct), so a piece is folded, masked and digested once: the same keys, `text_keys`
# of that home's distinct turns in 0.74x the instructions (callgrind).
_piece_keys = _ByText(piece_key)


def _shapes_of(text: str) -> tuple[bytes, list[int]]:
    """`skeleton.shape_keys(text)`, its digests joined and its lengths apart."""
    cut = pieces_of(text)
    return b"".join([_piece_keys.of(p) for p in cut]), [len(p) for p in cut]


# The pieces' shapes of the texts of several lines or tags: a memory plugin's observers
# send the same few long templated prompts again and again (281 such turns in the three
# homes of 250 sessions of benchmarks/homes.py, 51 texts), each cut into pieces and every
# piece folded and digested.
_shaped = _ByText(_shapes_of)


def text_keys(text: str) -> TextKeys:
    flat = flatten(text)
    folded = flat.casefold()
    flat_key = digest(flat)
    folded_key = flat_key if folded == flat else digest(folded)
    if "\n" in text or "<" in text:
        shapes, lengths = _shaped.of(text)
    else:
        # One line without a tag (most turns): one piece, the text trimmed, whose fold
        # is `folded` (trimming drops what flattening does), its shape that masked.
        trimmed = len(text.strip())
        shaped_text = masked(folded)
        shapes = (b"" if not trimmed else folded_key if shaped_text == folded
                  else digest(shaped_text))
        lengths = [trimmed] if trimmed else []
    return TextKeys(len(text), flat_key, folded_key, len(folded), is_prose(text),
                    text.lstrip().startswith("<"), shapes, lengths)


# `text_keys` of the texts the index stored last: sessions repeat each other's turns (the
# 1,000-session tree home's 3,324 turns are 2,133 texts; a memory plugin's observer prompt
# comes back in session after session).
_stored = _ByText(text_keys)


def stored_text_keys(text: str) -> TextKeys:
    """`text_keys(text)`, worked out once per text in this process (`_stored`): the
    keys the index stores beside each turn (`entries.encode_cleaned`). Each caller gets
    its own copy: a `TextKeys` caches its `pieces` once read, and a copy read so must
    never be the one another session stores (C: copy.copy took 2.4x as long)."""
    return msgspec.structs.replace(_stored.of(text))


class Keys:
    """Each turn's keys and, when asked, its text.

    - `of(turn)`: the turn's keys: stored (`learn`, `light`) or worked out
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

    def learn(self, texts: Sequence[str], keys: Sequence[TextKeys]) -> None:
        """Take stored keys of `texts` (the same order)."""
        self._by_text.update(zip(texts, keys, strict=True))

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

    def light(self, turns: tuple[HumanTurn, ...], keys: Sequence[TextKeys],
              read: Callable[[], list[str]]) -> None:
        """Take `turns` (their texts left empty) with their stored keys, and how to read
        their texts (all of them, in order) if they are needed."""
        entry = (read, turns)
        for t, k in zip(turns, keys, strict=True):
            self._by_turn[id(t)] = k
            self._readers[id(t)] = entry

    def fold(self, text: str) -> str:
        got = self._folds.get(text)
        if got is None:
            got = self._folds[text] = flatten(text).casefold()
        return got

    def shaped(self, text: str) -> tuple[tuple[bytes, int], ...]:
        """`skeleton.shape_keys`, through the keys."""
        return self.of_text(text).pieces
