"""Fallback JSON extraction from model prose."""

from __future__ import annotations

from learn.models.json_text import extract_json_object


def test_plain_object() -> None:
    assert extract_json_object('{"a": 1}') == {"a": 1}


def test_fenced_block_wins_over_braces_in_prose() -> None:
    text = 'Using {braces} loosely.\n```json\n{"a": {"b": [1, 2]}}\n```\nbye {"c": 3}'
    assert extract_json_object(text) == {"a": {"b": [1, 2]}}


def test_prefixed_and_suffixed_object_is_the_outermost() -> None:
    assert extract_json_object('Answer: {"a": {"b": 1}} -- end') == {"a": {"b": 1}}


def test_broken_first_brace_is_skipped() -> None:
    assert extract_json_object('{oops} then {"ok": true}') == {"ok": True}


def test_arrays_and_nothing_are_none() -> None:
    assert extract_json_object("[1, 2]") is None
    assert extract_json_object("no json here") is None
    assert extract_json_object("") is None
