from __future__ import annotations

import json

from learn.mining.parse import (
    MAX_CANDIDATES_PER_CHUNK,
    MAX_LIST_ITEMS,
    parse_answer,
    parse_candidates,
)

ROW = {"kind": "directive", "text": "use bun", "rationale": "tooling"}


def test_mapping_answer() -> None:
    [c] = parse_candidates({"candidates": [ROW]})
    assert (c.kind, c.text, c.rationale, c.source) == ("directive", "use bun", "tooling", "miner")


def test_fenced_json_text_is_accepted() -> None:
    text = "```json\n" + json.dumps({"candidates": [ROW]}) + "\n```"
    assert [c.text for c in parse_candidates(text)] == ["use bun"]


def test_prefixed_json_text_is_accepted() -> None:
    text = "Here are the candidates I found:\n" + json.dumps({"candidates": [ROW]}) + "\nDone."
    assert [c.text for c in parse_candidates(text)] == ["use bun"]


def test_truncated_text_keeps_whole_candidates() -> None:
    text = json.dumps({"candidates": [ROW, {**ROW, "text": "tabs"}]})[:-30]
    assert [c.text for c in parse_candidates(text)] == ["use bun"]


def test_garbage_is_malformed_not_empty() -> None:
    assert parse_answer("I could not find anything.") is None
    assert parse_answer({"items": []}) is None
    assert parse_candidates("nonsense") == []
    assert parse_answer({"candidates": []}) == []


def test_unknown_kind_empty_text_and_non_objects_dropped() -> None:
    rows = [
        {"kind": "workflow", "text": "bash -> bash"},
        {"kind": "directive", "text": "   "},
        {"kind": "request"},
        "just a string",
        {"kind": " Request ", "text": "open a release PR"},
    ]
    assert [(c.kind, c.text) for c in parse_candidates({"candidates": rows})] == [
        ("request", "open a release PR")
    ]


def test_cap_per_chunk() -> None:
    rows = [{"kind": "directive", "text": f"rule {i}"} for i in range(100)]
    assert len(parse_candidates({"candidates": rows})) == MAX_CANDIDATES_PER_CHUNK


def test_fix_fields_arrays_filtered_and_capped_camel_case_accepted() -> None:
    row = {
        "kind": "fix",
        "text": "install deps first",
        "command": "npm test",
        "errorExcerpt": "E" * 1000,
        "interveningCommands": ["npm ci", 3, None, *[f"c{i}" for i in range(30)]],
        "edited_files": "package.json",
        "label": "install-deps-first",
    }
    [c] = parse_candidates({"candidates": [row]})
    assert c.command == "npm test"
    assert c.error_excerpt is not None and len(c.error_excerpt) <= 401
    assert c.intervening_commands[0] == "npm ci"
    assert len(c.intervening_commands) == MAX_LIST_ITEMS
    assert all(isinstance(s, str) for s in c.intervening_commands)
    assert c.edited_files == ("package.json",)
    assert not hasattr(c, "label")


def test_stringified_candidate_array_inside_tool_input() -> None:
    assert [c.text for c in parse_candidates({"candidates": json.dumps([ROW])})] == ["use bun"]


def test_bare_array() -> None:
    assert [c.text for c in parse_candidates('[{"kind":"directive","text":"use bun"}]')] == ["use bun"]
    assert parse_answer([ROW]) is not None  # type: ignore[arg-type]
