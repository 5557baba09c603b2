"""Which of a fixed set of words a text contains, in one pass over it.

Every redaction rule runs only on a text holding one of its gate words. Testing
the ~180 words one by one (`word in text`) was most of redacting a typical turn
once the rules themselves were gated: each test is cheap, but a Python loop of
180 is ~15 µs on a 130-char turn, and 180 scans of a long tool output. A regex
over the words as a trie halved that, but still tried the trie at nearly every
character (`:`, `=`, `ac`, `sk` are gate words) and looped in Python once per
hit: 7% of a first scan's CPU (issue 21). An Aho-Corasick automaton
(ahocorasick-rs, in Rust) finds every word, overlapping ones included, in one
pass: 0.045 s -> 0.003 s for the 4,127 typed turns (707 kB) of
benchmarks/speed.py's corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Final

# A lone surrogate (a JSON `\ud800` escape decodes to one) cannot cross into Rust:
# such text is searched with each surrogate replaced by U+FFFD, one character for
# one, which no word contains, so the words found are the same.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class WordFinder:
    """`finder(text)`: the words of the set that occur in `text` (as written: lower-case
    the text for a case-blind test)."""

    def __init__(self, words: Iterable[str]) -> None:
        kept = sorted({w for w in words if w})
        if any("\ufffd" in w or _SURROGATE.search(w) for w in kept):
            raise ValueError("a gate word holds a surrogate or U+FFFD")
        self._find = None
        if kept:
            import ahocorasick_rs

            # The DFA: twice as fast to search as the default automaton here, built once
            # per finder at import (~2 ms for redaction's ~170 words).
            self._find = ahocorasick_rs.AhoCorasick(
                kept, implementation=ahocorasick_rs.Implementation.DFA
            ).find_matches_as_strings

    def __call__(self, text: str) -> set[str]:
        return set(self.occurrences(text))

    def occurrences(self, text: str) -> list[str]:
        """Each occurrence of a word of the set in `text` (a word as often as it occurs):
        for a caller that makes one set of several finders' words at once."""
        if self._find is None or not text:
            return []
        # Overlapping: every occurrence of every word, so a word inside a longer one
        # (`pass` in `password`) is found too.
        try:
            return self._find(text, overlapping=True)
        except UnicodeEncodeError:
            return self._find(_SURROGATE.sub("\ufffd", text), overlapping=True)


class GatePlans:
    """`plans.of(present)`: the positions of the rules (or detectors) the gate words
    `present` let run, in order, from `by_word()` (gate word -> positions). Texts hold
    few distinct sets of gate words (the distinct turns of the 1,000-session spread and
    tree bench homes: 4), so each set's plan is worked out once; bounded all the same
    (emptied at `most` sets)."""

    def __init__(self, by_word: Callable[[], Mapping[str, tuple[int, ...]]], most: int = 4096) -> None:
        self._by_word = by_word
        self._most = most
        self._plans: dict[frozenset[str], tuple[int, ...]] = {}

    def of(self, present: frozenset[str]) -> tuple[int, ...]:
        got = self._plans.get(present)
        if got is None:
            by_word = self._by_word()
            if len(self._plans) >= self._most:
                self._plans.clear()
            got = self._plans[present] = tuple(sorted(
                {i for word in present for i in by_word.get(word, ())}))
        return got

    def clear(self) -> None:
        self._plans.clear()
