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


# ---------------------------------------------------------------- second round (issue 32)


def _opens(pattern: str, flags: int = 0) -> list[str]:
    """Every code point a text matching `pattern` (at its start) can open with."""
    compiled = re.compile(pattern, flags)
    return [chr(i) for i in range(0x110000) if compiled.fullmatch(chr(i))]


def test_an_interrupt_opens_with_a_space_or_a_bracket() -> None:
    # `is_interrupt_text` is `\A\s*\[Request ...`: its first character is `\s` or "[".
    from learn.transcripts.claude.literals import INTERRUPT_MARKER_PATTERN, is_interrupt_text
    from learn.transcripts.view.session import _may_interrupt

    assert INTERRUPT_MARKER_PATTERN.startswith(r"\A\s*\[")
    assert [c for c in _opens(r"\s|\[") if not _may_interrupt(c + "x")] == []
    assert not _may_interrupt("ok") and not _may_interrupt("")
    for text in ("[Request interrupted by user]", " \n[Request interrupted by user for tool use]",
                 "\u3000[Request interrupted by user]"):
        assert _may_interrupt(text) and is_interrupt_text(text)


def test_a_review_head_opens_with_a_space_or_one_of_its_words_initials() -> None:
    from learn.transcripts.view.relayed import _may_head

    # Under IGNORECASE no character but these matches "p", "f", "a", "r" or "v".
    assert sorted(_opens("[pfarv]", re.I)) == sorted("pfarvPFARV")
    assert [c for c in _opens(r"\s|[pfarv]", re.I) if not _may_head(c + "x")] == []
    assert strip_relayed("Please fix the following issues: a.py") == ""
    assert strip_relayed("\u2003verify each finding against the current code") == ""
    assert strip_relayed("address the following comments: a.py") == ""
    assert strip_relayed("then fix the following issues: a.py") == (
        "then fix the following issues: a.py")


def test_a_reply_shaped_like_a_key_is_shaped_like_a_password() -> None:
    # `_could_answer` asks for a password only: a key's shape (one word of 12 or more)
    # is within a password's (one word of 4 or more), the other tests the same.
    from learn.secret_answers import _is_secret_reply

    replies = ["sk-live-4f9A8b7C6d5E4f3G", "AKIAIOSFODNN7EXAMPLE", "1234567890123456",
               "hunter2", "correct horse battery staple", "$DB_PASSWORD", "`Zq9x7Lm2-release`",
               "yes", "ok.", "abc", "where do I find the key?", "这个密钥在哪里可以找到？",
               "[REDACTED:answer]", "Tr0ub4dor&3 and more words here", "x" * 11, "x" * 12,
               "1" * 15, "1" * 16, "  'quoted-value-1234'  ", "Winter2024!"]
    for reply in replies:
        if _is_secret_reply(reply, "key"):
            assert _is_secret_reply(reply, "password"), reply
    assert _could_answer("AKIAIOSFODNN7EXAMPLE")
    assert not _could_answer("where do I find the key?")


def test_an_envelope_head_once_matched_matches_every_text_it_opens() -> None:
    from learn.transcripts.view.exclusions import is_program_envelope, program_envelope_head

    heads = ["<observed>\n", '  <obs kind="a">\t\r\n', "<obs\n  kind='multi-line'>\n"]
    bodies = ["", "x", "\n<note>more</note>", "> trailing\n"]
    for head in heads:
        found = program_envelope_head(head + "rest")
        assert found is not None and head.startswith(found.rstrip("rest"))
        for body in bodies:
            assert is_program_envelope(found + body)
            assert program_envelope_head(found + body) is not None
    assert program_envelope_head("<system-reminder>\nx") is None
    assert program_envelope_head("<note>keep this</note> and more") is None


def test_the_builders_envelope_memo_answers_as_the_rules_do() -> None:
    from learn.transcripts.view.evidence import TypedReader
    from learn.transcripts.view.exclusions import is_program_envelope
    from learn.transcripts.view.origin import is_headless
    from learn.transcripts.view.session import _Builder

    texts = ["<observed>\nA", "<observed>\nB", "<observed >\nC", "<other>\nD", "plain words",
             "<observed>x\n", "<command-name>\n/x", "<observed>\nE", " <observed>\nF"]
    for entrypoint in ("sdk-cli", "cli", None, "SDK-ts"):
        builder = _Builder({}, TypedReader((), "claude"), set())
        for text in texts:
            assert builder._is_envelope(entrypoint, text) is (
                is_headless(entrypoint) and is_program_envelope(text)), (entrypoint, text)


def test_lines_held_by_length_are_looked_up_as_if_folded() -> None:
    # `AssistantText.said` folds a held line only when a line of its fold's length is
    # asked for: what it answers is what the set of every line folded says.
    from learn.textfold import fold_line
    from learn.transcripts.view.typed import PASTED_LINE_MIN_CHARS, AssistantText

    texts = ["Run the migrations before the tests, always.", " Leading space on this long line",
             "Trailing space on this long line here ", "  Double  spaced  line  of  output  here",
             "tab\tseparated\tline\tof the agent's output", "ÄÖÜ non-ASCII line that is long enough",
             "short\nRun the migrations before the tests, always.\r\nanother line long enough x",
             "Line with unit\x1fseparator that is long", "                          ", "x" * 23,
             " " + "y" * 23, "z" * 24 + " "]
    everything = {fold_line(line) for text in texts for line in text.splitlines()
                  if len(fold_line(line)) >= PASTED_LINE_MIN_CHARS}
    probes = sorted(everything | {fold_line(line) + "!" for line in everything} |
                    {"run the migrations before the tests, always", "y" * 23, "z" * 24})
    said = AssistantText()
    for n, text in enumerate(texts):
        said.add(text)
        seen = {fold_line(line) for t in texts[: n + 1] for line in t.splitlines()
                if len(fold_line(line)) >= PASTED_LINE_MIN_CHARS}
        for probe in probes:
            if len(probe) >= PASTED_LINE_MIN_CHARS:
                assert said.said(probe) is (probe in seen), probe
    assert said.lines == everything
