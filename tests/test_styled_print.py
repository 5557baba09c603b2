"""`print_styled` writes the bytes `Console.print` writes for the same styled text.

`learn show` prints its body through it rather than through rich (rich's wrap of
every line was most of showing a long session): whatever it prints, with colour or
without, at any width, must be what rich printed. Each case prints the same pieces
both ways, on consoles rich sets up as show's (from the environment) and as a test
would (forced width, terminal, colour system).
"""

from __future__ import annotations

import io
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from learn.report.screen import Screen
from learn.report.styled_print import Piece, print_styled, render_styled, wrap_ranges
from learn.visible import visible

# What a turn holds that rich measures, rewrites or folds: spaces (leading, runs,
# trailing), tabs, control codes (those rich strips and those it keeps), wide
# characters, emoji with joiners and variation selectors, combining marks, a no-break
# space, markup and emoji codes (printed as typed), long words, show's own marks.
_BITS = [
    "a", "word", "x", " ", "  ", "     ", "\n", "\n\n", "\t", "a\tb", "\r", "\r\n", "\x07", "\x08",
    "\x0b", "\x0c", "\x1b", "\x00", "\x7f", "\x85", "\u2028", "中文", "界", "👍", "👨\u200d👩\u200d👧",
    "❤\ufe0f", "e\u0301", "\u200b", "\xa0", "\u3000", "ß", "✗", "⊘", "⏎", "→", "…", "[bold]",
    "[/bold]", "\\", ":thumbs_up:", "y" * 23, "z" * 90, " " * 30, "-" * 41,
]
# Named as show names them, with a background, in 24-bit colour, and one of rich's theme.
_STYLES = ["", "", "bold", "bold cyan", "dim", "red", "yellow", "bold red on white", "italic #ff8800",
           "repr.number"]
_WIDTHS = [1, 2, 3, 7, 13, 20, 33, 80, 100]

pieces_strategy = st.lists(
    st.tuples(st.lists(st.sampled_from(_BITS) | st.text(max_size=6), max_size=12).map("".join),
              st.sampled_from(_STYLES)),
    max_size=10,
)


_COLOUR: dict[str, Literal["standard", "256", "truecolor"] | None] = {
    "plain": None, "standard": "standard", "256": "256", "truecolor": "truecolor", "no_color": "truecolor"}


def _args(width: int | None, mode: str | None, out: io.StringIO) -> dict[str, Any]:
    if mode is None:
        return {"file": out, "highlight": False}
    colour = _COLOUR[mode]
    return {"file": out, "width": width, "highlight": False, "force_terminal": colour is not None,
            "color_system": colour, "no_color": mode == "no_color", "legacy_windows": False}


def _console(width: int | None = None, mode: str | None = None) -> tuple[Console, io.StringIO]:
    """A console writing to a string: set up as a test would (width and colour
    mode given), or as show sets it up (both left to the environment)."""
    out = io.StringIO()
    return Console(**_args(width, mode, out)), out


def _screen(width: int | None = None, mode: str | None = None) -> tuple[Screen, io.StringIO]:
    """The screen of the same console: as show makes it (from the environment), or
    made as that console is (its rich fallback made with the same arguments)."""
    out = io.StringIO()
    if mode is None:
        return Screen.of(out), out
    console = Console(**_args(width, mode, out))
    return Screen(out, width=console.width, colour_system=console.color_system,
                  no_color=console.no_color, rich_args=_args(width, mode, out)), out


def _by_rich(made: tuple[Console, io.StringIO], pieces: list[Piece]) -> str:
    console, out = made
    console.print(Text.assemble(*pieces, end=""))
    return out.getvalue()


def _by_styled_print(made: tuple[Screen, io.StringIO], pieces: list[Piece]) -> str:
    screen, out = made
    print_styled(screen, pieces)
    return out.getvalue()


@settings(max_examples=400, deadline=None)
@given(pieces=pieces_strategy, width=st.sampled_from(_WIDTHS),
       mode=st.sampled_from(["plain", "standard", "256", "truecolor", "no_color"]))
def test_any_styled_text_prints_as_rich_prints_it(pieces: list[Piece], width: int, mode: str) -> None:
    # As rich prints the text as it reads: a hidden character (a control, a bidi mark)
    # is a space first (learn.visible; tests/test_visible.py), which rich would print
    # as it is or drop.
    shown = [(visible(text), style) for text, style in pieces]
    assert _by_styled_print(_screen(width, mode), pieces) == _by_rich(_console(width, mode), shown)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(["a", "bb", "word", "y" * 23, "z" * 90, "✗", "é", "[x]"]),
                      max_size=30),
       gaps=st.lists(st.sampled_from([" ", "  ", " " * 9, " " * 40]), max_size=30),
       width=st.sampled_from(_WIDTHS))
def test_a_long_line_breaks_where_rich_breaks_it(words: list[str], gaps: list[str], width: int) -> None:
    line = "".join(g + w for g, w in zip(gaps, words, strict=False)) + (gaps[-1] if gaps else "")
    wrapped = Text(line).wrap(Console(width=width), width, justify="default", overflow="fold")
    assert [line[a:b] for a, b in wrap_ranges(line, width)] == [w.plain for w in wrapped]


# Show's body: a typed turn in bold after its label, tool calls dim, a failure red,
# a denial and an interrupt yellow; long, wrapped, and styled across the wrap.
_SHOW = [
    ("YOU:", "bold cyan"), (" ", ""), ("fix the [bold]parser[/bold] :thumbs_up: " * 9, "bold"),
    (" ", ""), ("(off the active branch)", "dim"), ("\n", ""),
    ("  Bash: pytest -x tests/\ttest_show.py " + "-k 'a or b' " * 10, "dim"), ("\n", ""),
    ("  \u2717 Bash: E   assert 1 == 2 \u4e2d\u6587 " * 5, "red"), ("\n", ""), ("\n", ""),
    ("  \u2298 Write denied (user-rejected)", "yellow"), ("\n", ""), ("  \u23ce interrupted", "yellow"),
    ("\n", ""), ("YOU:", "bold cyan"), (" ", ""), ("x" * 80, "bold"), ("\n", ""),
    ("YOU:", "bold cyan"), (" ", ""), ("trailing spaces" + " " * 90, "bold"),
]


@pytest.mark.parametrize("env", [
    {},
    {"COLUMNS": "33"},
    {"COLUMNS": "100", "FORCE_COLOR": "1", "TERM": "xterm-256color"},
    {"COLUMNS": "57", "FORCE_COLOR": "1", "COLORTERM": "truecolor"},
    {"FORCE_COLOR": "1", "NO_COLOR": "1"},
    {"FORCE_COLOR": "1", "TERM": "dumb"},
    {"COLUMNS": "120", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"},
])
def test_shows_body_prints_as_rich_prints_it_whatever_the_environment_says(
        monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TERM", "COLORTERM", "TTY_COMPATIBLE",
                 "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    expected = _by_rich(_console(), _SHOW)
    assert render_styled(_screen()[0], _SHOW) == expected
    assert _by_styled_print(_screen(), _SHOW) == expected


def test_a_printable_space_is_only_a_space() -> None:
    """wrap_ranges breaks lines at " " alone: rich breaks at any white space, and a
    printable text (what it is given) holds no other."""
    assert [c for c in map(chr, range(0x110000)) if c.isspace() and c.isprintable()] == [" "]
