"""What learn shows is what is read: no character that shows as nothing or acts
(learn.visible) reaches a terminal from a transcript, a teammate or a model."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from learn.commands import show
from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure
from learn.visible import hidden, visible

_AT = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
# Colour, set the window's title (OSC 0), write the clipboard (OSC 52), a bidi override.
_HOSTILE = "the build says \x1b[31mFAILED\x1b[0m \x1b]0;owned\x07 \x1b]52;c;ZWNobw==\x07 \u202eyadot"


def test_the_quick_look_agrees_with_the_rule_on_every_code_point() -> None:
    """`visible` answers most texts in two C scans: for every code point, it changes a
    text exactly when `hidden` says the character is hidden."""
    wrong = [hex(c) for c in range(sys.maxunicode + 1)
             if (visible(f"a{chr(c)}b") != f"a{chr(c)}b") != hidden(chr(c))]
    assert wrong == []
    assert visible("tab\tand\nnewline stay, ünïcode too") == "tab\tand\nnewline stay, ünïcode too"


def test_learn_show_prints_a_pasted_escape_sequence_as_text(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("FORCE_COLOR", "1")  # learn's own colours stay: only the text's go
    turn = HumanTurn(_HOSTILE, "typed", _AT, 0)
    call = ToolCall("c1", "Bash", "printf '\x1b[2J'", {}, _AT, 1)
    failure = ToolFailure("c1", "Bash", "\x1b]0;title\x07boom", _AT, 2)
    session = Session(id="s1", provider="claude", path=Path("/p/s1.jsonl"), project="/p\x1b[8m",
                      started_at=_AT, last_activity=_AT, timeline=(turn, call, failure),
                      human_turns=(turn,), tool_calls=(call,), failures=(failure,), denials=(),
                      interrupts=(), turns=2)
    show._print(session, show.SHOW_CHARS)
    out = capsys.readouterr().out
    assert "FAILED" in out and "yadot" in out and "boom" in out
    for code in ("\x1b[31mFAILED", "\x1b]", "\x07", "\u202e", "\x1b[2J", "\x1b[8m"):
        assert code not in out, repr(code)
    assert "\x1b[" in out  # learn's own styling is still there
