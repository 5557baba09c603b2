"""The typography fold and its map back to the typed characters."""

from __future__ import annotations

from learn.textfold import fold_typography


def test_quotes_dashes_ellipses_emphasis_space_and_case_fold() -> None:
    assert fold_typography("“Don’t”  **EVER** — push…").text == "'don't' ever-push…"
    assert fold_typography("don't ever--push...").text == "don't ever-push…"
    assert fold_typography("`_leave_` it").text == "leave it"


def test_words_are_never_changed() -> None:
    assert fold_typography("snake_case and foo-bar").text == "snake_case and foo-bar"
    assert fold_typography("force push").text != fold_typography("force-push").text


def test_offset_map_gives_back_the_typed_span_when_the_fold_changes_lengths() -> None:
    typed = "Straße  ...  “ok” — **Fine**"
    folded = fold_typography(typed)
    assert folded.text == "strasse … 'ok'-fine"
    at = folded.text.index("ss")
    lo, hi = folded.span(at, at + 2)
    assert typed[lo:hi] == "ß"
    at = folded.text.index("…")
    assert typed[slice(*folded.span(at, at + 1))] == "..."
    at = folded.text.index("'ok'-fine")
    assert typed[slice(*folded.span(at, at + len("'ok'-fine")))] == "“ok” — **Fine"
