"""`learn show`'s text: the body printed in one go reads as each line printed alone did.

The body (turns, calls, failures, denials, interrupts) is one styled text since
issue 21; each line must still wrap at the width on its own, keep what the person
typed literally (markup-looking brackets, a trailing backslash, emoji codes), and carry its
own style.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console
from rich.markup import escape

from learn.commands import show
from learn.transcripts.view.model import (
    Denial,
    HumanTurn,
    Interrupt,
    Session,
    ToolCall,
    ToolFailure,
)

_AT = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
_TEXTS = ["[bold]not markup[/bold] please", "ends with a backslash \\",
          "a long line " * 12, "C:\\dir\\[x]", ":thumbs_up: keep going"]


def _session() -> Session:
    turns = [HumanTurn(text, "typed", _AT, i * 10, on_branch=i != 2) for i, text in enumerate(_TEXTS)]
    call = ToolCall("c1", "Bash", "pytest -x [slow]", {}, _AT, 11)
    failure = ToolFailure("c1", "Bash", "E   assert 1 == 2\nmore", _AT, 12)
    on = [t for t in turns if t.on_branch]
    return Session(
        id="s1", provider="claude", path=Path("/p/s1.jsonl"), project="/p", started_at=_AT,
        last_activity=_AT, timeline=(on[0], call, failure, *on[1:]), human_turns=tuple(turns),
        tool_calls=(call,), failures=(failure,),
        denials=(Denial("c2", "Write", "user-rejected", None, _AT, 15),),
        interrupts=(Interrupt(_AT, 25),), turns=10,
    )


def _printed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], **env: str) -> str:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    show._print(_session(), show.SHOW_CHARS)
    return capsys.readouterr().out


def _line_by_line(width: int, color: bool, markup: list[str]) -> str:
    """What printing each body line alone gives (how show printed before), emoji codes
    left as typed (`:thumbs_up:` is what the person wrote, not 👍)."""
    out = io.StringIO()
    console = Console(file=out, highlight=False, width=width, force_terminal=color,
                      color_system="standard" if color else None, emoji=False)
    for line in markup:
        console.print(line)
    return out.getvalue()


@pytest.mark.parametrize(("width", "color"), [(80, False), (33, False), (80, True)])
def test_the_body_reads_as_each_line_printed_alone(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    width: int, color: bool) -> None:
    env = {"COLUMNS": str(width)}
    if color:
        env.update(FORCE_COLOR="1", TERM="xterm")
    else:
        monkeypatch.delenv("FORCE_COLOR", raising=False)
        env.update(TERM="dumb")
    text = _printed(monkeypatch, capsys, **env)
    rule = "─" * width
    body = text[text.index(rule) + len(rule):].split("\n", 1)[1]
    t0, t1, t2, t3, t4 = (escape(t) for t in _TEXTS)
    expected = _line_by_line(width, color, [
        f"[bold cyan]YOU:[/bold cyan] [bold]{t0}[/bold]",
        "[dim]  Bash: pytest -x \\[slow][/dim]",
        "[red]  ✗ Bash: E   assert 1 == 2[/red]",
        f"[bold cyan]YOU:[/bold cyan] [bold]{t1}[/bold]",
        "[yellow]  ⊘ Write denied (user-rejected)[/yellow]",
        "[yellow]  ⏎ interrupted[/yellow]",
        f"[bold cyan]YOU:[/bold cyan] [bold]{t3}[/bold]",
        f"[bold cyan]YOU:[/bold cyan] [bold]{t4}[/bold]",
        f"[bold cyan]YOU:[/bold cyan] [bold]{t2}[/bold] [dim](off the active branch)[/dim]",
    ])
    assert body == expected
    assert ("\x1b[" in body) is color


def test_what_was_typed_is_printed_literally(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    text = _printed(monkeypatch, capsys, COLUMNS="200", TERM="dumb")
    assert "YOU: [bold]not markup[/bold] please\n" in text
    assert "YOU: ends with a backslash \\\n" in text
    assert "YOU: C:\\dir\\[x]\n" in text
    assert "YOU: :thumbs_up: keep going\n" in text
    assert "  Bash: pytest -x [slow]\n" in text
    assert text.rstrip().endswith("(off the active branch)")


def test_the_counts_line_is_one_line_at_eighty_columns(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Wrapped at the width, a pipe got "· interrupts" on one line and its "1" on the next.
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    text = _printed(monkeypatch, capsys, COLUMNS="80", TERM="dumb")
    [counts] = [line for line in text.splitlines() if line.startswith("turns ")]
    assert counts.endswith("· denials 1 · interrupts 1"), text
    assert "tool calls 1 · failures 1" in counts
