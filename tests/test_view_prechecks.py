"""The substring and character-class prechecks in front of the view's per-line and
per-reply regexes: each is a condition the regex cannot match without, so skipping
the regex where it fails changes nothing (issue 32)."""

from __future__ import annotations

import re

from learn.secret_answers import (
    _ASCII_VALUE_CHAR_RE,
    _VALUE_SYMBOLS,
    _could_answer,
    redact_answer,
)
from learn.transcripts.view.relayed import _REVIEW_HEAD, strip_relayed


def test_the_ascii_class_is_the_value_class_on_every_ascii_character() -> None:
    unicode_class = re.compile(r"[\d" + re.escape(_VALUE_SYMBOLS) + "]")
    assert [c for c in map(chr, range(128))
            if bool(unicode_class.fullmatch(c)) != bool(_ASCII_VALUE_CHAR_RE.fullmatch(c))] == []


def test_a_digit_outside_ascii_still_numbers_an_answer() -> None:
    # Arabic-Indic digits: `\d` takes them, the ASCII precheck does not see them, so a
    # reply with any non-ASCII character is read as before.
    assert _could_answer("١. hunter2-Secret!")
    assert _could_answer("1. skip\n2. Tr0ub4dor&3")
    assert not _could_answer("please keep the functions small and pure, as before")


def test_a_numbered_secret_is_still_redacted() -> None:
    question = "1. Run the migrations now?\n2. What is the database password?"
    assert redact_answer(question, "1. Skip for now\n2. Tr0ub4dor&3") == (
        "1. Skip for now\n2. [REDACTED:answer]")


def test_no_letter_of_the_head_words_matches_outside_ascii_but_lowered() -> None:
    # `_report_start` looks for "follow" and "current" in the lowered text before
    # matching each line: under IGNORECASE "ı"/"İ" match "i", "ſ" "s" and the Kelvin
    # sign "k", so the words must avoid those letters, and every character the
    # pattern takes for one of theirs must lower to it.
    for letter in set("follow" + "current"):
        pattern = re.compile(re.escape(letter), re.I)
        assert [hex(i) for i in range(0x110000)
                if pattern.fullmatch(chr(i)) and letter not in chr(i).lower()] == [], letter


def test_a_review_head_with_odd_letters_is_still_cut() -> None:
    head = "Reſolve the following ıssues:\n- [P1] src/app.py line 3 leaks\n- [P2] x.py:4 unused"
    assert _REVIEW_HEAD.match(head)
    assert strip_relayed(head + "\n\nthanks") == "thanks"
    assert strip_relayed("FIX THE FOLLOWING ISSUES:\n- a.py:1 bad\n- b.py:2 bad\n\nmine") == "mine"


def test_headings_are_read_only_where_a_mark_is() -> None:
    text = "codex says:\n## Review summary\n**Findings**: two bugs\n- a\n\nfix the first one"
    assert strip_relayed(text) == "codex says:\n\nfix the first one"
    plain = "first line\nsecond line with no mark at all\nthird"
    assert strip_relayed(plain) == plain
