"""The substring and character-class prechecks in front of the view's per-line and
per-reply regexes: each is a condition the regex cannot match without, so skipping
the regex where it fails changes nothing (issue 32)."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime

import pytest

from learn.secret_answers import (
    _ASCII_VALUE_CHAR_RE,
    _VALUE_SYMBOLS,
    _could_answer,
    redact_answer,
)
from learn.transcripts.blocks import TextBlock, ToolResultBlock
from learn.transcripts.models import (
    AssistantEvent,
    EntryMeta,
    EventList,
    ModeEvent,
    OtherEvent,
    TranscriptEvent,
    UserEvent,
)
from learn.transcripts.view.model import HumanTurn
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


# ---------------------------------------------------------------- third round (issue 32)


def test_no_casefold_holds_whitespace_or_is_empty() -> None:
    # `evidence.text_ends`: a text's `text_key` is its words casefolded one by one and
    # joined by a space, so its first and last words are the text's, casefolded.
    assert [hex(i) for i in range(0x110000)
            if not chr(i).isspace()
            and (not chr(i).casefold() or any(c.isspace() for c in chr(i).casefold()))] == []


_WORDS = ["Run", "run", "RUN", "straße", "STRASSE", "İstanbul", "ΣΊΣΥΦΟΣ", "σίσυφος", "ﬁle",
          "FILE", "x", "[Image", "#1]", "…", "ok.", "Ok.", "\u00a0", "a\u200bb", "ǅ"]
_SPACES = [" ", "  ", "\n", "\t", "\r\n", "\u3000", "\x1f", "\u2028", "\x85", " \n "]


def _random_text(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(0, 5))]
    out = rng.choice(["", *_SPACES])
    for word in words:
        out += word + rng.choice(_SPACES)
    return out if rng.random() < 0.5 else out.rstrip()


def test_a_texts_ends_are_its_keys_ends() -> None:
    from learn.transcripts.view.evidence import text_ends, text_key

    rng = random.Random(32)
    for _ in range(20_000):
        text = _random_text(rng)
        words = text_key(text).split(" ") if text_key(text) else []
        assert text_ends(text) == ((words[0], words[-1]) if words else ("", "")), repr(text)


def _one_per_text_folding_all(turns: list[HumanTurn]) -> list[HumanTurn]:
    """`one_per_text` as it was: every text folded."""
    from learn.transcripts.view.evidence import text_key

    chosen: dict[str, HumanTurn] = {}
    for turn in turns:
        key = text_key(turn.text)
        held = chosen.get(key)
        if held is None or (turn.on_branch and not held.on_branch):
            chosen[key] = turn
    keep = {id(t) for t in chosen.values()}
    return [t for t in turns if id(t) in keep]


def test_one_per_text_keeps_what_folding_every_text_kept() -> None:
    from learn.transcripts.view.evidence import one_per_text

    rng = random.Random(7)
    for _ in range(3_000):
        texts = [_random_text(rng) or "x" for _ in range(rng.randint(0, 4))]
        turns = [HumanTurn(text=rng.choice(texts) if texts and rng.random() < 0.6
                           else _random_text(rng) or "y",
                           origin="typed", at=None, event_index=i, on_branch=rng.random() < 0.7)
                 for i in range(rng.randint(0, 8))]
        got = one_per_text(turns)
        want = _one_per_text_folding_all(turns) if len(turns) > 1 else turns
        assert [id(t) for t in got] == [id(t) for t in want]


def _walk_with_a_set(events: list[TranscriptEvent]) -> list[int]:
    """`active_branch` as it was: the walk's visits in a set, then sorted."""
    from learn.transcripts.view.branch import (
        _all_links,
        _is_compaction_root,
        _logical_parent,
        _trailing,
        is_conversation,
        is_sidechain,
    )

    uuids, parents = _all_links(events)

    def last(before: int, conversation: bool, skip: set[int] | None = None) -> int | None:
        for j in range(before - 1, -1, -1):
            if not uuids[j] or (skip is not None and j in skip) or is_sidechain(events[j]):
                continue
            if conversation and not is_conversation(events[j]):
                continue
            return j
        return None

    by_uuid = dict(zip(uuids, range(len(uuids)), strict=True))
    by_uuid.pop(None, None)
    if not by_uuid or not any(parents):
        return list(range(len(events)))
    start = last(len(events), True)
    if start is None:
        start = last(len(events), False)
    if start is None:
        start = max(by_uuid.values())
    visited: set[int] = set()
    current: int | None = start
    while current is not None and current not in visited:
        visited.add(current)
        parent = parents[current] or _logical_parent(events[current])
        if parent is None:
            if not _is_compaction_root(events[current]):
                break
            current = last(current, True, visited)
            continue
        nxt = by_uuid.get(parent)
        if nxt is None:
            nxt = last(current, False, visited)
        current = nxt
    visited.update(_trailing(events, uuids, parents, start))
    return sorted(visited)


def _random_events(rng: random.Random) -> list[TranscriptEvent]:
    """A file's entries with links of every kind: to an earlier entry, a later one, one
    not in the file, none; uuids repeated; sidechains, compaction summaries, tool
    results only, and untyped lines that carry their links (or a logical parent)."""
    n = rng.randint(0, 14)
    names = [f"u{rng.randint(0, n + 2)}" for _ in range(n)]

    def link() -> str | None:
        roll = rng.random()
        return (None if roll < 0.15 else "gone" if roll < 0.25
                else rng.choice(names) if names else None)

    out: list[TranscriptEvent] = []
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(n):
        uuid = names[i] if rng.random() < 0.9 else ""
        kind = rng.random()
        if kind < 0.15:
            raw: dict[str, object] = {"type": "progress", "uuid": uuid, "parentUuid": link()}
            if rng.random() < 0.3:
                raw["logicalParentUuid"] = link()
            out.append(OtherEvent(type="progress", raw=raw))
            continue
        if kind < 0.2:
            out.append(ModeEvent(session_id="s", channel="mode", value="x"))
            continue
        meta = EntryMeta(uuid=uuid, session_id="s", timestamp=at, parent_uuid=link(),
                         is_sidechain=rng.random() < 0.1,
                         is_compact_summary=rng.random() < 0.1)
        if kind < 0.55:
            out.append(AssistantEvent(meta=meta, model="m", text="said",
                                      blocks=(TextBlock("said"),)))
        elif kind < 0.8:
            out.append(UserEvent(meta=meta, blocks=(ToolResultBlock(f"t{i}", "out"),)))
        else:
            out.append(UserEvent(meta=meta, text="typed", blocks=(TextBlock("typed"),)))
    return out


def test_the_branch_is_the_one_the_set_walk_found() -> None:
    from learn.transcripts.view.branch import active_branch, branch_marks

    rng = random.Random(11)
    for _ in range(20_000):
        events = _random_events(rng)
        want = _walk_with_a_set(events)
        assert active_branch(events) == want
        from learn.transcripts.view.branch import _all_links

        marks = branch_marks(events, *_all_links(events))
        assert [i for i, on in enumerate(marks) if on] == want
        assert all(type(on) is bool for on in marks)  # a turn's on_branch is a bool


def test_materialized_is_the_list_of_the_events() -> None:
    from learn.transcripts.claude.events import BUILDERS
    from learn.transcripts.parser import parse_buffer

    lines = [
        {"type": "user", "uuid": "a", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"model": "m", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "progress", "uuid": "c", "parentUuid": "b"},
    ]
    buf = "".join(json.dumps(line) + "\n" for line in lines).encode()
    events = parse_buffer(buf).events
    assert events.materialized() == list(parse_buffer(buf).events)
    assert [type(e).__name__ for e in events.materialized()] == [
        "UserEvent", "AssistantEvent", "OtherEvent"]
    assert EventList([1], BUILDERS).__class__ is EventList
    with pytest.raises(TypeError):
        EventList([1], BUILDERS).materialized()
