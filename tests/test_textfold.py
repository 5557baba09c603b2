"""fold: the one comparison folding every module imports."""

from __future__ import annotations

from learn.textfold import fold, fold_with_offsets


def test_fold_collapses_whitespace_trims_and_casefolds() -> None:
    assert fold("  Use\n\tBUN   please ") == "use bun please"
    assert fold("STRASSE") == fold("straße")


def test_offsets_point_each_folded_char_back_at_its_source() -> None:
    text = "  Run\n\n  the TESTS "
    folded, offsets = fold_with_offsets(text)
    assert folded == fold(text) == "run the tests"
    start = folded.index("the")
    assert text[offsets[start] : offsets[start + len("the tests") - 1] + 1] == "the TESTS"
