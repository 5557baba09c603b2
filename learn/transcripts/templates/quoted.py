"""Is a folded text inside any of many folded texts? Through an index of their words.

The corpus pass asks it of every varying part of a headless session's template
(`scripted.machinery`: a program quoting what a person typed in another session
must not count a second time). Asked naively, each part was compared with every
text typed in every session, which grew with the square of the sessions: a home
where a memory plugin's 800 observer sessions each quote the person's latest
request.

Both sides are folded (`textfold.fold`): single spaces between words, none at
either end. So when `key` occurs in `text`, every word of `key` but its first
and last (which may be the end of a longer word) is a whole word of `text`,
and only the texts holding `key`'s rarest such word need the exact test. A key
of one or two words has none, and is tested against every text, once.
"""

from __future__ import annotations

from collections.abc import Iterable


class QuotedIn:
    """`key in quoted` is `any(key in text for text in texts)`, for folded `texts` and `key`."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = list(texts)
        self._by_word: dict[str, list[int]] | None = None
        self._seen: dict[str, bool] = {}

    def __contains__(self, key: str) -> bool:
        got = self._seen.get(key)
        if got is None:
            got = self._seen[key] = self._find(key)
        return got

    def _find(self, key: str) -> bool:
        inner = key.split(" ")[1:-1]
        if not inner:
            return any(key in text for text in self._texts)
        by_word = self._words()
        rarest = min((by_word.get(word, ()) for word in inner), key=len)
        texts = self._texts
        return any(key in texts[i] for i in rarest)

    def _words(self) -> dict[str, list[int]]:
        if self._by_word is None:
            by_word: dict[str, list[int]] = {}
            for i, text in enumerate(self._texts):
                for word in set(text.split(" ")):
                    held = by_word.get(word)
                    if held is None:
                        by_word[word] = [i]
                    else:
                        held.append(i)
            self._by_word = by_word
        return self._by_word
