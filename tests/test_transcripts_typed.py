"""typed_text: the words the person typed in one user text, and why the rest was dropped."""

from __future__ import annotations

from learn.transcripts.typed import Typed, typed_text


def test_plain_prompt_is_typed_whole() -> None:
    assert typed_text("  add a health check  ") == Typed("add a health check")


def test_reminder_appended_inside_the_block_is_stripped() -> None:
    raw = "fix the bug<system-reminder>hook said hi</system-reminder>"
    assert typed_text(raw).text == "fix the bug"


def test_excluded_text_is_empty_with_the_rule_name() -> None:
    assert typed_text("<ide_opened_file>a.py</ide_opened_file>") == Typed("", "ide-context")
    assert typed_text("   ") == Typed("", "empty")
