"""The zero-model fallback: hashed character n-grams, comparable across runs.

No corpus IDF, on purpose. The store caches vectors per (space, sha256(text)) and
keeps label vectors for nearest-label retrieval across runs, so a text must map
to the same vector whatever else is embedded with it; an IDF fitted per call
would move every vector whenever the batch changes. Instead, a fixed prior does
IDF's job: very common English function words are dropped before n-gramming
(they are what makes unrelated directives look alike), and term frequency is
sublinear (1 + ln tf) so a repeated word doesn't dominate. n-grams are hashed
with crc32 (stable; Python's hash() is salted per process) into DIM buckets
with a sign bit, so collisions cancel in expectation instead of piling up.
Lexical only: "ruff not black" and "we dropped black" share words, "be concise"
and "too verbose" share none. benchmarks/paraphrase.py measures what that costs.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

NAME = "tfidf-char-3-5@1"
DIM = 1024
NGRAM_MIN = 3
NGRAM_MAX = 5

# Function words only: negations ("not", "never", "don't") stay, because "use ruff,
# not black" and "use black" must not look the same.
_STOPWORDS_TEXT = """
    a an the this that these those it its is are was were be been being am i me my we us our
    you your he she they them their to of in on at for with by from as into onto about and or
    but so if then than there here please just also any all some every each do does did done
    have has had will would should could can may might must shall let lets get got make
    what which who when where how
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_WORD = re.compile(r"[\w.+#/-]+")


def normalise(text: str) -> list[str]:
    """Lower-cased, NFKC-folded words with the stopwords removed."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    words = []
    for raw in _WORD.findall(folded.replace("'", "")):
        word = raw.strip(".-/")
        if word and word not in STOPWORDS:
            words.append(word)
    return words


def char_ngrams(words: Iterable[str], lo: int = NGRAM_MIN, hi: int = NGRAM_MAX) -> Counter[str]:
    """char_wb n-grams: each word padded with one space on each side, n-grams inside it.

    A word shorter than `lo` once padded still yields itself, so "be" and "ok" count.
    """
    grams: Counter[str] = Counter()
    for word in words:
        padded = f" {word} "
        if len(padded) < lo:
            grams[padded] += 1
            continue
        for n in range(lo, hi + 1):
            for i in range(len(padded) - n + 1):
                grams[padded[i : i + n]] += 1
    return grams


def _bucket(gram: str, dim: int) -> tuple[int, float]:
    h = zlib.crc32(gram.encode("utf-8"))
    return h % dim, (1.0 if (h >> 31) & 1 == 0 else -1.0)


class TfidfEmbedder:
    """Hashed sublinear-tf char_wb(3,5) vectors, L2-normalised; pure Python + numpy."""

    name: str = NAME
    dim: int = DIM

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for gram, tf in char_ngrams(normalise(text)).items():
                idx, sign = _bucket(gram, DIM)
                out[row, idx] += sign * (1.0 + math.log(tf))
            norm = float(np.linalg.norm(out[row]))
            if norm > 0.0:
                out[row] /= norm
        return out
