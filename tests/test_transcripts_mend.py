"""Half a surrogate pair in a JavaScript client's JSON (learn.transcripts.mend).

JSON.stringify writes a lone UTF-16 half as `\\udXXX`, which strict JSON refuses. Claude Code
writes one when it cuts a tool's output for its preview in the middle of an emoji, or a
model's tool input holds one; msgspec refused the whole line, and the turns after it hung
from a uuid that was never read. Python's json.dumps writes a lone half the same way, so
these fixtures are written as the clients write them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest
from fixtures.fidelity.agent_writers import CopilotEvents, GeminiChat, OpenCodeSession
from fixtures.fidelity.writers import Chain

from learn.transcripts.mend import decoded, mended
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

_HIGH, _LOW = "\ud83d", "\ude00"  # the halves of U+1F600


@pytest.mark.parametrize(("raw", "value"), [
    (rb'{"a":"x\ud83d y"}', {"a": "x\ufffd y"}),               # a high half alone
    (rb'{"a":"x\ude00"}', {"a": "x\ufffd"}),                    # a low half alone
    (rb'{"a":"\ud83d\ud83d\ude00"}', {"a": "\ufffd\U0001f600"}),  # a half, then a pair
    (rb'{"a":"\\\ud83d"}', {"a": "\\\ufffd"}),                  # an escaped backslash, then a half
    (b'{"a":"caf\xe9"}', {"a": "caf\ufffd"}),                    # invalid UTF-8
    (rb'{"\ud83d":1}', {"\ufffd": 1}),                           # in a key
])
def test_each_fault_is_mended_to_the_replacement_character(raw: bytes, value: object) -> None:
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.decode(raw)
    assert decoded(msgspec.json.decode, raw) == value


@pytest.mark.parametrize("raw", [
    rb'{"a":"ok \ud83d\ude00"}',   # a whole pair: nothing to mend
    rb'{"a":"\\ud83d"}',           # a backslash and the letters, no escape
    rb'{"a":1',                    # cut: not the mend's to guess
    b"not json",
])
def test_what_holds_no_such_fault_is_left_to_the_decoder(raw: bytes) -> None:
    assert mended(raw) is None


def test_random_texts_with_lone_halves_read_back_with_each_half_replaced() -> None:
    rng = random.Random(7)
    alphabet = ["a", " ", "\\", '"', "\n", "é", "\U0001f600", _HIGH, _LOW, "\u00ff", "/"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        raw = json.dumps({"t": text}).encode()  # as JSON.stringify writes a lone half
        # A half is lone unless a high one has its low one right after it.
        want = json.loads(json.dumps({"t": text}))["t"].encode("utf-16", "surrogatepass") \
            .decode("utf-16", "replace")
        assert decoded(msgspec.json.decode, raw) == {"t": want}, text


def test_a_claude_session_keeps_the_lines_that_hold_half_an_emoji(tmp_path: Path) -> None:
    chain = Chain("5a5a5a5a-0000-4000-8000-000000000001")
    chain.user("list what the release script prints")
    chain.tool("toolu_1", "AskUserQuestion", {"question": f"which one {_HIGH}?"})
    chain.result("toolu_1", "build ok " + "x" * 40 + _HIGH)  # a preview cut mid-pair
    chain.assistant("Done.")
    chain.user("we are on bun now, not npm")
    path = chain.write(tmp_path / "s.jsonl")
    assert b"\\ud83d" in path.read_bytes()
    transcript = parse(path)
    assert transcript.skipped == {}
    session = build_session(transcript)
    assert [t.text for t in session.human_turns] == [
        "list what the release script prints", "we are on bun now, not npm"]
    assert all(t.on_branch for t in session.human_turns)  # the chain is whole
    assert len(session.tool_calls) == 1


def test_gemini_copilot_and_opencode_read_their_lines_with_half_an_emoji(tmp_path: Path) -> None:
    chat = GeminiChat("ab12cd34-0000-4000-8000-000000000009")
    chat.user(f"keep the changelog {_HIGH}")
    chat.user("and run the linter")
    for path in (chat.write_jsonl(tmp_path / "g" / "session-2026-11-20T09-00-ab12cd34.jsonl"),
                 chat.write_json(tmp_path / "g" / "session-2026-11-20T09-00-ab12cd35.json")):
        transcript = parse(path)
        assert transcript.provider == "gemini" and transcript.skipped == {}, path
        assert [t.text for t in build_session(transcript).human_turns] == [
            "keep the changelog \ufffd", "and run the linter"], path

    events = CopilotEvents("cd34ef56-0000-4000-8000-000000000008", cwd=None)
    events.user(f"use the staging db {_LOW}")
    cpath = events.write(tmp_path / "c" / "events.jsonl")
    transcript = parse(cpath)
    assert transcript.provider == "copilot" and transcript.skipped == {}
    assert [t.text for t in build_session(transcript).human_turns] == ["use the staging db \ufffd"]

    session = OpenCodeSession("ses_mend0001")
    session.user(f"pin the node version {_HIGH}")
    session.write_storage(tmp_path / "o")
    [info] = (tmp_path / "o" / "storage" / "session").rglob("*.json")
    transcript = parse(info)
    assert transcript.skipped == {}
    assert [t.text for t in build_session(transcript).human_turns] == ["pin the node version \ufffd"]
