"""Format drift: the `[Image #N]` tokens Claude Code writes where a picture was pasted
(learn.transcripts.view.typed).

The typed text holds `[Image #1]` (`#2`, ...) where the person pasted a picture; the
picture is a content block of its own beside the text. Real shapes: the token before the
words, with one space, two, or none; after them; several in a row; mid-sentence; and a
prompt that is the token alone. The token is the client's: it was quoted and mined as the
person's words, and two prompts that differ only in which picture they name were two
prompts. Fixtures written for this test.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.evidence import text_key
from learn.transcripts.view.session import build_session
from learn.transcripts.view.typed import typed_text

PICTURE = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                       "data": "iVBORw0KGgo="}}


def _entry(sid: str, uuid: str, parent: str | None, minute: int,
           **fields: object) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": "/srv/loom", "sessionId": sid,
            "version": "2.1.240", "gitBranch": "main", "uuid": uuid,
            "timestamp": f"2026-11-21T14:{minute:02d}:00.000Z", **fields}


def _prompt(sid: str, uuid: str, parent: str | None, minute: int, text: str,
            pictures: int = 1) -> dict[str, object]:
    content = [{"type": "text", "text": text}, *([PICTURE] * pictures)]
    return _entry(sid, uuid, parent, minute, type="user",
                  message={"role": "user", "content": content})


def _reply(sid: str, uuid: str, parent: str, minute: int, text: str) -> dict[str, object]:
    return _entry(sid, uuid, parent, minute, type="assistant",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": text}]})


def _typed(sid: str, *entries: dict[str, object]) -> list[str]:
    buf = b"\n".join(json.dumps(e).encode() for e in entries) + b"\n"
    path = Path(f"/h/.claude/projects/-srv-loom/{sid}.jsonl")
    return [t.text for t in build_session(parse_buffer(buf, path=path)).human_turns]


SID = "4e3d2c1b-0a9f-4e8d-b7c6-5a4b3c2d1e0f"


def test_the_placeholder_is_cut_and_the_words_around_it_kept() -> None:
    typed = _typed(
        SID,
        _prompt(SID, "u1", None, 0, "[Image #1] the sidebar overlaps the footer on narrow screens"),
        _reply(SID, "a1", "u1", 1, "I'll fix the sidebar's height."),
        _prompt(SID, "u2", "a1", 2, "still wrong here:[Image #2]"),
        _reply(SID, "a2", "u2", 3, "Adjusted the breakpoint."),
        _prompt(SID, "u3", "a2", 4, "compare [Image #3] with [Image #4], the second is right",
                pictures=2),
    )
    assert typed == ["the sidebar overlaps the footer on narrow screens", "still wrong here:",
                     "compare with, the second is right"]


def test_a_prompt_that_is_only_a_picture_is_no_typed_turn() -> None:
    # Nothing was said there to quote or mine; kept as its token, "[Image #1]" alone in
    # many sessions read as one prompt a program repeats.
    typed = _typed(
        SID,
        _prompt(SID, "u1", None, 0, "[Image #1]"),
        _reply(SID, "a1", "u1", 1, "That is a stack trace from the build."),
        _prompt(SID, "u2", "a1", 2, "[Image #2]  [Image #3]\n", pictures=2),
        _reply(SID, "a2", "u2", 3, "Both show the same failure."),
        _prompt(SID, "u3", "a2", 4, "don't pin the compiler version, bump it instead"),
    )
    assert typed == ["don't pin the compiler version, bump it instead"]
    assert typed_text("[Image #7]").reason == "image-only"


def test_prompts_that_differ_only_in_the_picture_number_are_the_same_words() -> None:
    other = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
    first = _typed(SID, _prompt(SID, "u1", None, 0, "[Image #1] the chart legend is cut off"))
    second = _typed(other, _prompt(other, "v1", None, 0, "[Image #4]the chart legend is cut off"))
    assert first == second == ["the chart legend is cut off"]
    # In one session too: a prompt sent again after a rewind, its picture renumbered.
    again = _typed(
        SID,
        _prompt(SID, "u1", None, 0, "[Image #1] the chart legend is cut off"),
        _reply(SID, "a1", "u1", 1, "Widening the legend."),
        _prompt(SID, "u2", None, 2, "[Image #2] the chart legend is cut off"),
    )
    assert again == ["the chart legend is cut off"]
    assert text_key(typed_text("[Image #1] fix it").text) == text_key(
        typed_text("[Image #12] fix it").text)


def test_text_that_names_no_placeholder_is_untouched() -> None:
    for text in ("see [Image 1] in the spec", "the [image #1] label in the docs",
                 "<image name=[Image #1] path=\"/tmp/s.png\">"):
        assert typed_text(text, provider="codex").text == text
    assert typed_text("see [Image 1] in the spec").reason is None


def test_a_long_run_of_spaces_beside_a_placeholder_is_read_in_one_pass() -> None:
    # Matched from inside the run, each space began a scan of the rest: 20,000 spaces
    # took 2.5 s, 100,000 about a minute.
    text = "[Image #1] x" + " " * 100_000 + "y"
    started = time.process_time()
    assert typed_text(text).text == "x" + " " * 100_000 + "y"
    assert time.process_time() - started < 1.0
