"""The index rows of a session's turns (`learn.index.indexed_turns`) and the keys beside
them (`learn.transcripts.templates.entries`, `keys`): the quicker ways of working them
out give the bytes the plain ones give, on varied turns (repeated texts, templates,
times and none, uuids and none, commands, filled turns, off-branch ones)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learn.redaction.redact import redact
from learn.transcripts.view.model import HUMAN_ORIGINS, HumanTurn, Session

_TEMPLATE = ("<observed_from_primary_session>\n  <user_request>{}</user_request>\n"
             "  <what_happened>Ran the tests 3 times; 12 passed.</what_happened>\n"
             "</observed_from_primary_session>\nRecord what you observed, in 2 lines.")
_TEXTS = st.one_of(
    st.text(max_size=60),
    st.text(alphabet="ab Cd\n<>/x1 2\t", max_size=80),
    st.sampled_from(["fix the tests", "Fix the  tests ", "  ok", "", "<local-command>x",
                     "token sk-ant-api03-" + "a" * 90, "ÉCOLE straße ß", "step 12 of 30",
                     "a\u2028b", "line one\nline two\n\nline three", "x" * 200]),
    st.text(alphabet="abc de", min_size=0, max_size=30).map(_TEMPLATE.format),
)


@st.composite
def _turns(draw: st.DrawFn) -> tuple[HumanTurn, ...]:
    texts = draw(st.lists(_TEXTS, max_size=4))
    out = []
    for i in range(draw(st.integers(0, 8))):
        # Texts repeat, as a session's prompts do.
        text = draw(st.sampled_from(texts) if texts and draw(st.booleans()) else _TEXTS)
        at = draw(st.one_of(st.none(), st.integers(0, 10**6).map(
            lambda s: datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=s, microseconds=s % 7))))
        out.append(HumanTurn(
            text, draw(st.sampled_from(HUMAN_ORIGINS)), at, draw(st.integers(0, 50)),
            draw(st.one_of(st.none(), st.sampled_from(["", "u-1", "u-2", "ü-3"]))),
            draw(st.one_of(st.none(), st.sampled_from(["/deploy", "/review now"]))),
            draw(st.booleans()), draw(st.booleans())))
        del i
    return tuple(out)


def _session(turns: tuple[HumanTurn, ...]) -> Session:
    return Session(id="s", provider="claude", path=None, project="p", started_at=None,
                   last_activity=None, timeline=turns, human_turns=turns, tool_calls=(),
                   failures=(), denials=(), interrupts=(), turns=len(turns))


def encode_turns(session: Session, clean: Callable[[str], str]) -> str:
    """The stored turns as the index made them in a pass of their own."""
    return msgspec.json.encode([
        (clean(t.text), t.origin, t.at.isoformat() if t.at is not None else None, t.event_index,
         t.uuid, clean(t.command) if t.command is not None else None, t.on_branch, t.filled)
        for t in session.human_turns
    ]).decode()


def encode_turn_keys(session: Session, clean: Callable[[str], str]) -> bytes:
    """The turns' keys as the index made them in a pass of their own."""
    from learn.transcripts.templates.entries import encode_cleaned

    turns = session.human_turns
    return encode_cleaned(turns, [clean(t.text) for t in turns],
                          [clean(t.command) if t.command is not None else None for t in turns],
                          [t.at.isoformat() if t.at is not None else None for t in turns])


@settings(deadline=None, max_examples=300)
@given(_turns())
def test_turns_and_keys_in_one_pass_are_the_two_passes(turns: tuple[HumanTurn, ...]) -> None:
    from learn.index.indexed_turns import encode_turns_and_keys

    session = _session(turns)
    for clean in (redact, str.upper, lambda text: text):
        assert encode_turns_and_keys(session, clean) == (encode_turns(session, clean),
                                                          encode_turn_keys(session, clean))


def _plain_text_keys(text: str) -> tuple[object, ...]:
    """`keys.text_keys` as it is defined: every text cut into pieces, each shaped."""
    from learn.textfold import flatten
    from learn.transcripts.templates.skeleton import digest, is_prose, shape_keys

    flat = flatten(text)
    shaped = shape_keys(text)
    return (len(text), digest(flat), digest(flat.casefold()), len(flat.casefold()),
            is_prose(text), text.lstrip().startswith("<"), b"".join(k for k, _ in shaped),
            [n for _, n in shaped])


_ANY_TEXT = st.one_of(
    _TEXTS,
    # Whitespace of every kind (one that is not "\n" leaves a text one line), digits
    # of other scripts, case that folds to more characters, tags.
    st.text(alphabet=" \t\r\x0b\x0c\x1c\x85\u00a0\u2028\u3000aB1٣ß<>/\n", max_size=30),
)


@settings(deadline=None, max_examples=500)
@given(_ANY_TEXT)
def test_the_keys_of_a_text_are_its_keys_by_their_definition(text: str) -> None:
    from learn.transcripts.templates.keys import text_keys

    k = text_keys(text)
    assert (k.chars, k.flat, k.folded, k.folded_chars, k.prose, k.tagged, k.shapes,
            k.lengths) == _plain_text_keys(text)


def test_texts_seen_again_keep_their_keys_when_the_memo_of_shapes_is_emptied(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.transcripts.templates import keys

    monkeypatch.setattr(keys, "_shaped", keys._ByText(keys._shapes_of, max_chars=400))
    texts = [_TEMPLATE.format(w) for w in ("alpha", "beta", "gamma")] + ["a\nb", "x" * 500 + "\n1"]
    for text in texts * 3:
        k = keys.text_keys(text)
        assert (k.chars, k.flat, k.folded, k.folded_chars, k.prose, k.tagged, k.shapes,
                k.lengths) == _plain_text_keys(text)
        assert keys._shaped.chars <= 400
    assert keys._shaped.by_text  # it held some, and was emptied when full


@settings(deadline=None, max_examples=500)
@given(st.text(alphabet="ab é文_1-. \n\u0301", max_size=16))
def test_prose_is_two_words_of_letters_or_more(text: str) -> None:
    import re

    from learn.transcripts.templates.skeleton import is_prose

    assert is_prose(text) == (len(re.findall(r"[^\W\d_]{2,}", text)) >= 2)


def test_the_keys_the_index_stores_are_a_texts_keys_each_its_own_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.transcripts.templates import keys

    monkeypatch.setattr(keys, "_stored", keys._ByText(keys.text_keys, max_chars=400))
    texts = [_TEMPLATE.format(w) for w in ("alpha", "beta")] + ["a\nb", "one line", "x" * 500]
    for text in texts * 3:
        k = keys.stored_text_keys(text)
        assert msgspec.msgpack.encode(k) == msgspec.msgpack.encode(keys.text_keys(text))
        assert k is not keys.stored_text_keys(text)
        assert k.pieces is not None and keys.stored_text_keys(text).cached is None
        assert keys._stored.chars <= 400
    assert keys._stored.by_text


@settings(deadline=None, max_examples=200)
@given(_turns())
def test_resume_keys_are_the_digest_of_their_parts_each_after_its_length(
        turns: tuple[HumanTurn, ...]) -> None:
    import hashlib

    from learn.transcripts.templates.entries import resume_keys
    from learn.transcripts.templates.keys import text_keys

    def digest(*parts: bytes) -> bytes:  # as it is defined: the hash updated part by part
        h = hashlib.blake2b(digest_size=16)
        for part in parts:
            h.update(len(part).to_bytes(4, "little") + part)
        return h.digest()

    for t in turns:
        k = text_keys(t.text)
        want = []
        if t.uuid:
            want.append(digest(b"uuid", t.uuid.encode(), t.origin.encode(), k.flat))
        if t.at is not None:
            want.append(digest(b"at", t.at.isoformat().encode(), k.folded))
        assert resume_keys(t, k) == want
        assert resume_keys(t, k, t.at.isoformat() if t.at is not None else None) == want


@settings(deadline=None, max_examples=1000)
@given(st.datetimes(timezones=st.one_of(st.none(), st.just(UTC), st.timezones(),
                                        st.builds(timezone, st.timedeltas(
                                            min_value=timedelta(hours=-23),
                                            max_value=timedelta(hours=23))))))
def test_a_turns_time_is_written_as_isoformat_writes_it(at: datetime) -> None:
    from learn.index.indexed_turns import isoformat

    assert isoformat(at) == at.isoformat()
    utc = at.replace(tzinfo=UTC)
    assert isoformat(utc) == utc.isoformat()
