"""The `[Image: source: <path>]` block Claude Code writes for an attached picture, wherever
it sits (learn.transcripts.view.typed).

On its own isMeta row after the prompt it was never typed. On the prompt's own row (a text
block beside the image block, or inside the typed text before or after the words, seen in
readers' fixtures and notes built from real 2.1.x sessions) it was read as the person's
words: a cache path quoted as typed, a prompt of only the picture a typed turn. Fixtures
written for this test.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.session import build_session
from learn.transcripts.view.typed import typed_text

SID = "6d5c4b3a-2918-4f07-a6e5-d4c3b2a1f0e9"
PICTURE: dict[str, object] = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                       "data": "iVBORw0KGgo="}}
CACHED = "/home/ana/.claude/image-cache/6d5c4b3a/1.png"


def _entry(uuid: str, parent: str | None, minute: int, **fields: object) -> dict[str, object]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": "/srv/kiln", "sessionId": SID, "version": "2.1.250",
            "gitBranch": "main", "uuid": uuid,
            "timestamp": f"2026-11-24T15:{minute:02d}:00.000Z", **fields}


def _prompt(uuid: str, parent: str | None, minute: int, *blocks: dict[str, object],
            meta: bool = False) -> dict[str, object]:
    extra = {"isMeta": True} if meta else {}
    return _entry(uuid, parent, minute, type="user",
                  message={"role": "user", "content": list(blocks)}, **extra)


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text}


def _reply(uuid: str, parent: str, minute: int) -> dict[str, object]:
    return _entry(uuid, parent, minute, type="assistant",
                  message={"model": "claude-x", "id": f"msg_{uuid}", "role": "assistant",
                           "content": [{"type": "text", "text": "Looking at it."}]})


def _typed(*entries: dict[str, object]) -> list[str]:
    buf = b"\n".join(json.dumps(e).encode() for e in entries) + b"\n"
    path = Path(f"/h/.claude/projects/-srv-kiln/{SID}.jsonl")
    return [t.text for t in build_session(parse_buffer(buf, path=path)).human_turns]


def test_the_source_block_on_the_prompts_own_row_is_cut_and_the_words_kept() -> None:
    typed = _typed(
        _prompt("u1", None, 0, _text(f"[Image: source: {CACHED}] why is the kiln chart empty?"),
                PICTURE),
        _reply("a1", "u1", 1),
        _prompt("u2", "a1", 2, _text("compare it with this [Image: source: C:\\Users\\ana\\"
                                     "Pictures\\kiln 2.png]"), PICTURE),
        _reply("a2", "u2", 3),
        _prompt("u3", "a2", 4, _text("[Image #3] the axis labels overlap"),
                _text("[Image: source: /tmp/shots/axis.png]"), PICTURE),
    )
    assert typed == ["why is the kiln chart empty?", "compare it with this",
                     "the axis labels overlap"]


def test_a_prompt_of_only_the_picture_is_no_typed_turn_on_either_row() -> None:
    typed = _typed(
        _prompt("u1", None, 0, _text(f"[Image: source: {CACHED}]"), PICTURE),
        _reply("a1", "u1", 1),
        _prompt("u2", "a1", 2, _text("[Image #2]"), PICTURE),
        _prompt("m2", "u2", 2, _text("[Image: source: /tmp/shots/two.png]"), meta=True),
        _reply("a2", "m2", 3),
        _prompt("u3", "a2", 4, _text("glaze the lid separately")),
    )
    assert typed == ["glaze the lid separately"]
    assert typed_text(f"[Image: source: {CACHED}]").reason == "image-only"


def test_the_resized_pictures_note_is_the_clients_too() -> None:
    note = ("[Image: original 2400x1600, displayed at 2000x1333. Multiply coordinates by "
            "1.20 to map to original image.]")
    assert typed_text(f"{note} crop it to the kiln").text == "crop it to the kiln"
    both = "[Image: source: /tmp/a.png, original 4000x2000, displayed at 1000x500. Multiply"
    assert typed_text(f"{both} coordinates by 4.00 to map to original image.]").reason == \
        "image-only"


def test_the_note_for_a_picture_it_did_not_shrink_is_the_clients_too() -> None:
    assert typed_text("[Image source: /tmp/shots/kiln.png] is the door seal cracked?").text == \
        "is the door seal cracked?"
    assert typed_text("[Image source: C:\\Users\\ana\\.claude\\uploads\\s1\\a.png]"
                      ).reason == "image-only"


def test_a_bracket_inside_the_path_keeps_the_token_whole() -> None:
    assert typed_text("see [Image: source: /srv/app/[slug]/shot.png] the [slug] page breaks"
                      ).text == "see the [slug] page breaks"


def test_words_that_only_look_like_the_block_are_the_persons() -> None:
    for text in ("the log says [Image: source missing] again",
                 "rename the [Image: sourcery] label", "[Image source: x] is what the docs say"):
        assert typed_text(text).text == text


def test_a_line_of_unclosed_openings_is_read_in_one_pass() -> None:
    text = "[Image: source: " * 20_000 + "done"
    started = time.process_time()
    assert typed_text(text).text == text
    assert time.process_time() - started < 1.0
