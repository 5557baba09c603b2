"""fold: the one comparison folding every module imports."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from learn.textfold import flatten, fold, fold_line, fold_with_offsets, occurring


def test_fold_collapses_whitespace_trims_and_casefolds() -> None:
    assert fold("  Use\n\tBUN   please ") == "use bun please"
    assert fold("STRASSE") == fold("straße")


def test_offsets_point_each_folded_char_back_at_its_source() -> None:
    text = "  Run\n\n  the TESTS "
    folded, offsets = fold_with_offsets(text)
    assert folded == fold(text) == "run the tests"
    start = folded.index("the")
    assert text[offsets[start] : offsets[start + len("the tests") - 1] + 1] == "the TESTS"


_SPACES = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2003\u2028\u202f\u3000"


@given(st.text(alphabet=st.sampled_from(_SPACES + "aZß İΣς密 x.-") | st.characters(), max_size=40))
def test_fold_is_split_join_casefold_on_any_text(text: str) -> None:
    # The fast path (printable, single spaces) must give what the split and join give.
    assert fold(text) == " ".join(text.split()).casefold()


def test_fold_fast_path_cases() -> None:
    for text in ["plain line", "Ünïcode ΣΑΣ", "", " lead", "trail ", "two  spaces", "tab\there",
                 "nbsp\xa0here", "ideographic\u3000space", "ﬁ ligature"]:
        assert fold(text) == " ".join(text.split()).casefold(), text


@given(st.text(alphabet=st.sampled_from(_SPACES + "aZß İΣς密 x.-") | st.characters(), max_size=40))
def test_fold_line_is_fold_on_every_line(text: str) -> None:
    # fold_line's fast path takes " ", tab and \x1f for the only ASCII whitespace a line holds.
    for line in text.splitlines():
        assert fold_line(line) == fold(line)


def test_fold_line_on_every_ascii_character() -> None:
    for c in range(0x80):
        for line in (f"a{chr(c)}b", f"{chr(c)}ab c", f"ab {chr(c)}", f"A {chr(c)}{chr(c)} B"):
            for part in line.splitlines():
                assert fold_line(part) == fold(part), repr(part)


def _fold_with_offsets_by_char(text: str) -> tuple[str, list[int]]:
    """The definition, one character at a time (what the run-by-run version must give)."""
    out: list[str] = []
    offsets: list[int] = []
    pending = -1
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and pending < 0:
                pending = i
            continue
        if pending >= 0:
            out.append(" ")
            offsets.append(pending)
            pending = -1
        for folded in ch.casefold():
            out.append(folded)
            offsets.append(i)
    return "".join(out), offsets


@settings(deadline=None)  # a loaded machine is no reason to fail
@given(st.text(alphabet=st.sampled_from(_SPACES + "aZß İΣςﬁ密 x.-\u0301") | st.characters(),
               max_size=40))
def test_fold_with_offsets_is_the_character_by_character_fold(text: str) -> None:
    assert fold_with_offsets(text) == _fold_with_offsets_by_char(text)
    assert flatten(text) == " ".join(text.split())


def test_a_run_of_non_space_is_what_isspace_says_for_every_character() -> None:
    # fold_with_offsets cuts at `\S+` runs: that must be exactly `not str.isspace()`.
    import re

    space = re.compile(r"\s")
    wrong = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
             and (space.match(chr(c)) is not None) != chr(c).isspace()]
    assert wrong == []


def test_occurring_says_what_a_search_of_each_text_says() -> None:
    """`occurring` (one Aho-Corasick pass over the joined texts) against the plain
    `any(n in h for h in haystacks)`, on random folded needles and haystacks, overlapping
    ones and ones that are parts of each other included."""
    rng = random.Random(11)
    words = ["use", "bun", "not", "npm", "é", "ruff", "a", "", "use bun", "n"]
    for _ in range(2000):
        haystacks = [fold(" ".join(rng.choice(words) for _ in range(rng.randrange(6))))
                     for _ in range(rng.randrange(4))]
        needles = [fold(" ".join(rng.choice(words) for _ in range(rng.randrange(3))))
                   for _ in range(rng.randrange(6))]
        assert occurring(needles, haystacks) == [any(n in h for h in haystacks) for n in needles]
