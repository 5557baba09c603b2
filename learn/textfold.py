"""Fold text for comparison: the one place that decides when two texts are "the same".

A quote, a replayed template, a cluster key and an eval's gold line are all
compared after the same folding: whitespace runs collapsed to one space (a
markdown body arrives re-wrapped, a model re-flows a quote), trimmed, and
case-folded. Five modules used to carry their own copy of this; a copy that
drifts (one strips, one does not) makes a quote verify in one place and fail
to merge in another.

`fold_typography` is the second, stricter-named fold beside it, for one job:
re-anchoring a model's quote on what the person typed. A model copies the
words and retypes the typography (curly quotes, an em dash for `--`, `…` for
`...`, markdown emphasis dropped, a capital first letter); measured on a model
that did this to about a quarter of its quotes (issue 11), exact matching cost
0.3 of end-to-end recall. It never adds, drops or changes a letter or word, so
a paraphrase still fails, and it maps every folded character back to the
original so what is kept is the person's own span.

It also forgives width (issue 19): a model that writes `,` for the `，` a
person typed in Chinese, `DB` for `ＤＢ`, or full-width `カ` for half-width
`ｶ`, changed no word either. Each character (with the combining marks that
follow it) is replaced by its Unicode compatibility form (NFKC) before the
typography rules run, and every character NFKC produces maps back to the
typed characters it came from, so the offset map survives a fold that changes
lengths (`…` -> `...`, `ﬁ` -> `fi`, `ｶﾞ` -> `ガ`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from typing import Final

import msgspec


def flatten(text: str) -> str:
    """Collapse whitespace runs to one space and trim: `" ".join(text.split())`, faster."""
    # Most lines already have single spaces only: then the split and join change
    # nothing. A printable text holds no whitespace but " " (every other whitespace
    # character is a control or separator), so three scans in C decide it; the
    # split was 4% of a first scan's CPU (every assistant line is folded, issue 21).
    # With single spaces only, trimming is all the split and join would do (a
    # template's indented line: every line of a memory plugin's observations).
    if text.isprintable() and "  " not in text:
        return text if text[:1] != " " and text[-1:] != " " else text.strip(" ")
    return " ".join(text.split())


def fold(text: str) -> str:
    """Collapse whitespace runs to one space, trim, casefold."""
    return flatten(text).casefold()


def fold_line(line: str) -> str:
    """`fold(line)` of one line of `str.splitlines()` (it holds no line break), faster.

    Of the ASCII whitespace only " ", tab and \\x1f are not line boundaries, so an
    ASCII line with neither and no double space is flat already: three substring scans
    in C where `flatten`'s `isprintable` reads every character through the
    Unicode tables, and `casefold` is `lower` there. Every line of a session's
    assistant messages is folded to find pasted output (`view.typed.AssistantText`),
    320 characters a line on the bench homes (callgrind: with `fold_line` building the
    views of the spread and tree bench homes took 0.93x the instructions).
    """
    if line.isascii() and "  " not in line and "\t" not in line and "\x1f" not in line:
        return (line if line[:1] != " " and line[-1:] != " " else line.strip(" ")).lower()
    return flatten(line).casefold()


def occurring(needles: Sequence[str], haystacks: Sequence[str], *,
              where: Callable[[str, str, int], bool] | None = None) -> list[bool]:
    """For each of `needles`, whether it occurs in any of `haystacks`; all of them
    folded (`fold`), so no one holds a line break and the haystacks are searched as one
    text joined by them. `where(needle, text, start)`: an occurrence counts only where
    it holds (the haystacks joined is `text`; verification's word boundaries).

    `any(n in h for h in haystacks)` for each needle is needles times haystacks: a
    session of 11,372 typed turns and about as many candidates took 14 s of CPU (64.7
    million folds when each needle was folded again per turn). Here every needle is
    found in one pass over the text (Aho-Corasick, in Rust): linear in the text and
    the needles. An empty needle occurs wherever there is a haystack, as `"" in h` says."""
    if not haystacks or not needles:
        return [False] * len(needles)
    patterns = sorted({n for n in needles if n})
    found: set[int] = set()
    if patterns:
        import ahocorasick_rs

        text = "\n".join(haystacks)
        places = ahocorasick_rs.AhoCorasick(patterns).find_matches_as_indexes(
            text, overlapping=True)
        if where is None:
            found = {i for i, _, _ in places}
        else:
            for i, start, _ in places:
                if i not in found and where(patterns[i], text, start):
                    found.add(i)
    hit = {patterns[i] for i in found}
    return [not n or n in hit for n in needles]


# A run of non-whitespace: `\S` is exactly `not str.isspace()` (both are
# Py_UNICODE_ISSPACE; tests/test_textfold.py checks every code point).
_RUN: Final = re.compile(r"\S+")


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold(text)` and, for each of its characters, the index in `text` it came from.

    Lets a match found in folded text be cut out of the original, so what is
    kept is the person's own spelling and line breaks, not the folded form.
    Each whitespace run becomes one space mapped to the run's first character.
    """
    # Run by run, not character by character: a per-character loop was 25.7 s of
    # a first listing over a home of 1,000 sessions (a memory plugin's prompts,
    # each a template with the person's request filled in, issue 32).
    out: list[str] = []
    offsets: list[int] = []
    space = -1
    for m in _RUN.finditer(text):
        start, run = m.start(), m.group()
        if space >= 0:
            out.append(" ")
            offsets.append(space)
        space = m.end()
        if run.isascii():  # casefold is lower() there, one character for one
            out.append(run.lower())
            offsets.extend(range(start, space))
            continue
        for i, ch in enumerate(run, start):
            folded = ch.casefold()
            out.append(folded)
            offsets.extend([i] * len(folded))
    return "".join(out), offsets


# Every quotation mark and apostrophe folds to one: a model that swaps
# ’ for ' (or " for ') has changed no word.
# CJK corner brackets, double-angle title marks and the prime-style quotes
# (「」『』《》〈〉〝〞〟) are quotation marks too: a model writes "x" for 「x」.
_QUOTES: Final = frozenset("'\"‘’‚‛“”„‟′″´«»‹›「」『』《》〈〉〝〞〟")
# Quotation marks that are never an apostrophe inside a word (`don't`), so a
# bracket between two Han characters (说「不要」了) is still a mark.
BRACKET_QUOTES: Final = frozenset("“”„‟«»‹›「」『』《》〈〉〝〞〟")
QUOTE_CHARS: Final = _QUOTES
# Hyphen, non-breaking hyphen, figure/en/em dash, horizontal bar, minus.
_DASHES: Final = frozenset("-‐‑‒–—―−")
# Markdown emphasis and inline-code marks, which models add and drop freely
# around words; `_` only at a word edge (see below).
_EMPHASIS: Final = frozenset("*~`")
ELLIPSIS: Final = "…"
QUOTE_MARK: Final = "'"
DASH: Final = "-"


class Folded(msgspec.Struct, frozen=True):
    """Folded text and, per folded character, the original span it came from."""

    text: str
    starts: tuple[int, ...]  # original index where folded char i begins
    ends: tuple[int, ...]  # original index just past what folded char i covers

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original [start, end) covered by folded [start, end) (end > start)."""
        return self.starts[start], self.ends[end - 1]


def _is_word(ch: str) -> bool:
    return ch.isalnum()


def _compat(text: str) -> Iterator[tuple[str, int, int]]:
    """(character, start, end): `text` in its compatibility forms (NFKC), each
    produced character with the typed span [start, end) it came from.

    A character is normalised together with the combining marks after it, so
    `e` + U+0301 becomes `é` and half-width `ｶﾞ` becomes `ガ` (NFKC composes
    across the pair; character by character it would not). ASCII, by far the
    commonest input, is passed through without a Unicode call.
    """
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        j = i + 1
        while j < n and text[j] >= "\x80" and _combines(text[j]):
            j += 1
        if j == i + 1 and ch < "\x80":
            yield ch, i, j
        else:
            for out in unicodedata.normalize("NFKC", text[i:j]):
                yield out, i, j
        i = j


def _combines(ch: str) -> bool:
    """Whether `ch` attaches to the character before it once normalised
    (a combining mark, or the half-width katakana voicing marks ﾞ ﾟ)."""
    if unicodedata.combining(ch):
        return True
    compat = unicodedata.normalize("NFKC", ch)
    return bool(compat) and unicodedata.combining(compat[0]) != 0


def fold_typography(text: str) -> Folded:
    """Fold width, quotes, dashes, ellipses, emphasis marks, whitespace and case.

    - compatibility forms first (NFKC): `，！（）ＤＢ` -> `,!()db`, `ｶ` -> `カ`
    - every quotation mark and apostrophe -> `'`
    - any run of dashes, with the spaces around it -> `-` ("a — b" == "a--b" == "a - b")
    - `...` -> `…`, and a run of them (the Chinese `……`) -> one `…`
    - `*`, `~`, backticks dropped; `_` dropped at a word edge (`_this_`, not `snake_case`)
    - whitespace runs -> one space, trimmed; letters casefolded
    """
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(ch: str, start: int, end: int) -> None:
        if ch == " ":
            # No leading space, no double space, no space after a dash.
            if not chars or chars[-1] in (" ", DASH):
                return
        elif ch in (DASH, ELLIPSIS):
            if chars and chars[-1] == ch:
                ends[-1] = end  # a run of dashes (or of ellipses) is one
                return
            if ch == DASH and chars and chars[-1] == " ":
                chars.pop(), starts.pop(), ends.pop()  # no space before a dash
        chars.append(ch)
        starts.append(start)
        ends.append(end)

    # ASCII (most input) has no compatibility forms: skip the per-character Unicode pass.
    stream = [(ch, i, i + 1) for i, ch in enumerate(text)] if text.isascii() else list(_compat(text))
    i, n = 0, len(stream)
    while i < n:
        ch, lo, hi = stream[i]
        if ch == "." and i + 2 < n and stream[i + 1][0] == "." and stream[i + 2][0] == ".":
            emit(ELLIPSIS, lo, stream[i + 2][2])
            i += 3
            continue
        if ch.isspace():
            emit(" ", lo, hi)
        elif ch in _QUOTES:
            emit(QUOTE_MARK, lo, hi)
        elif ch in _DASHES:
            emit(DASH, lo, hi)
        elif ch in _EMPHASIS:
            pass
        elif ch == "_":
            before = stream[i - 1][0] if i > 0 else ""
            after = stream[i + 1][0] if i + 1 < n else ""
            if _is_word(before) and _is_word(after):
                emit("_", lo, hi)
        else:
            for low in ch.casefold():
                emit(low, lo, hi)
        i += 1
    while chars and chars[-1] == " ":
        chars.pop(), starts.pop(), ends.pop()
    return Folded("".join(chars), tuple(starts), tuple(ends))
