"""What the corpus pass reads of a turn's text, as keys worked out once per text.

Judging sessions together (`scripted.machinery`) asks the same few questions of
every turn: is it a copy of a turn of an earlier session (`resume.own_turns`:
its whitespace-flattened text), is it repeated word for word elsewhere (its
folded text), which template pieces does it hold (its pieces' shapes,
`skeleton`), is it prose, does it open with a tag. Each answer is a key, so
sessions are compared through dictionaries of keys, never text against text,
and the keys of a turn are worked out once: when the session index reads a
file (stored beside its turns, `learn.index.indexed_turns`), or on first use.

Long texts are kept as digests (blake2b, 16 bytes): equal keys are equal texts
(a collision is a 2**-128 chance), and a memory plugin's home holds ~180 MB of
turn text that would otherwise be held again as keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import msgspec

from learn.textfold import flatten
from learn.transcripts.templates.skeleton import digest, is_prose, shape_keys

# Bump when a key below is worked out differently: stored keys of another
# version are not used (the texts' keys are worked out again).
KEYS_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class TextKeys:
    """The keys of one text (see the module docstring)."""

    flat: bytes  # digest of flatten(text): a copy of the turn (resume)
    folded: bytes  # digest of fold(text): the text repeated word for word
    folded_chars: int  # len(fold(text))
    pieces: tuple[tuple[bytes, int], ...]  # per skeleton piece: digest of its shape, its length
    prose: bool  # skeleton.is_prose(text)
    tagged: bool  # opens with a tag (`text.lstrip().startswith("<")`)


def text_keys(text: str) -> TextKeys:
    flat = flatten(text)
    folded = flat.casefold()
    return TextKeys(
        flat=digest(flat), folded=digest(folded), folded_chars=len(folded),
        pieces=shape_keys(text),
        prose=is_prose(text), tagged=text.lstrip().startswith("<"),
    )


_Encoded = tuple[bytes, bytes, int, list[tuple[bytes, int]], bool, bool]
_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(tuple[int, list[_Encoded]])


def encode_keys(keys: list[TextKeys]) -> bytes:
    return _encoder.encode((KEYS_VERSION, [
        (k.flat, k.folded, k.folded_chars, list(k.pieces), k.prose, k.tagged) for k in keys]))


def decode_keys(blob: bytes | None) -> list[TextKeys] | None:
    """The keys `encode_keys` stored; None when there are none, of another version, or damaged."""
    if not blob:
        return None
    try:
        version, rows = _decoder.decode(blob)
    except msgspec.DecodeError:
        return None
    if version != KEYS_VERSION:
        return None
    return [TextKeys(f, d, n, tuple((s, m) for s, m in p), prose, tagged)
            for f, d, n, p, prose, tagged in rows]


class Keys:
    """text -> its TextKeys, from what was stored (`known`) or worked out once; and
    each text's fold, for the few questions a key cannot answer (is this text
    inside that one)."""

    def __init__(self, known: Mapping[str, TextKeys] | None = None) -> None:
        self._of: dict[str, TextKeys] = dict(known or {})
        self._folds: dict[str, str] = {}

    def learn(self, texts: list[str], keys: list[TextKeys] | None) -> None:
        """Take stored keys for `texts` (same order); nothing when none were stored."""
        if keys is not None and len(keys) == len(texts):
            self._of.update(zip(texts, keys, strict=True))

    def __call__(self, text: str) -> TextKeys:
        got = self._of.get(text)
        if got is None:
            got = self._of[text] = text_keys(text)
        return got

    def fold(self, text: str) -> str:
        got = self._folds.get(text)
        if got is None:
            got = self._folds[text] = flatten(text).casefold()
        return got

    def shaped(self, text: str) -> tuple[tuple[bytes, int], ...]:
        """`skeleton.shape_keys`, through the keys."""
        return self(text).pieces
