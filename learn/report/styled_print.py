"""Styled text printed as rich prints it, without rich's machinery for every line.

`learn show` prints a session's body as one styled text. Through `Console.print`
rich wraps each line (`Text.split`, `divide_line` measuring every word, `Text.divide`)
and renders it span by span, cropping each line again: for the largest benchmark
session (6 MB, ~1,500 typed turns, 2,860 lines of which 1,469 are wider than 80
columns, 300 kB printed) that was 0.33 s CPU of a 0.68 s `learn show`; here 0.035 s.

A line that fits (printable, no wider than the width in cells and in characters)
is written as it is; a longer one whose characters are each one cell wide is cut
where rich's word wrap cuts it (`wrap_ranges`); each piece is painted with its
style's codes as rich paints a segment. Any other line (tabs, control codes, wide
characters, emoji sequences) goes through rich alone: its wrap, crop and style,
one line at a time. The whole is written once, as `Console.print` writes it, and
the bytes are rich's, with colour or without, at any width
(tests/test_styled_print.py prints generated texts both ways).

Where it prints is a `learn.report.screen.Screen`, not rich's Console: a show whose
lines are all of the first two kinds (most) does not import rich at all
(`print_markup` and `print_rule` do the same for its header and its rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from learn.report.screen import Screen, all_narrow
from learn.visible import visible

if TYPE_CHECKING:
    from rich.console import ConsoleOptions

# One piece of the text: what it says and its rich style ("" for none), as
# `Text.append(text, style)` takes them.
Piece = tuple[str, str]


def print_styled(screen: Screen, pieces: Iterable[Piece]) -> None:
    """`console.print(Text.assemble(*pieces, end=""))`, written in one go. Each piece's
    text is shown as it reads (learn.visible): a transcript's words are printed here
    (`learn show`), and an ESC sequence pasted into a prompt would act on the terminal
    (colour, the window's title, the clipboard) rather than show."""
    listed = [(visible(text), style) for text, style in pieces]
    if screen.rich_only:
        # Where rich writes otherwise (a Windows console, a notebook) or nothing at all.
        from rich.text import Text

        screen.rich_console().print(Text.assemble(*listed, end=""))
        return
    screen.write(render_styled(screen, listed))


def print_markup(screen: Screen, markup: str, *, soft_wrap: bool = False) -> None:
    """`console.print(markup, soft_wrap=soft_wrap)` for a line of text in one style
    or none (`[bold]...[/bold]`, values put in with `screen.escape`): written here
    when the markup is only that, and holds no emoji code rich would replace. Shown as
    it reads (learn.visible), as `print_styled`."""
    markup = visible(markup)
    found = _plain_or_one_style(markup)
    if screen.rich_only or found is None:
        screen.rich_console().print(markup, soft_wrap=soft_wrap)
        return
    text, style = found
    if not soft_wrap:
        screen.write(render_styled(screen, [(text, style)]))
    elif text.isprintable() and not (len(text) > screen.width and text.endswith(" ")):
        # Not wrapped, not cropped: as it is (rich trims the spaces that end a line
        # longer than the width, so such a line is rich's).
        screen.write(screen.paint(text, style) + "\n")
    else:
        screen.rich_console().print(markup, soft_wrap=soft_wrap)


def print_rule(screen: Screen) -> None:
    """`console.rule()`: a line of "─" across the width, in the theme's `rule.line` (rich
    draws an untitled rule in "─" whatever the file's encoding)."""
    if screen.rich_only:
        screen.rich_console().rule()
        return
    screen.write(screen.paint("\u2500" * screen.width, "rule.line") + "\n")


# A line of markup in one style: `[bold]text[/bold]`, the text holding no markup.
_ONE_STYLE = re.compile(r"\[([a-z][a-z_. ]*)\]([^\[\\]*)\[/\1\]")
# rich's emoji codes (`rich._emoji_replace`), and the names among its codes without a letter.
_EMOJI_CODE = re.compile(r"(:(\S*?)(?:(?:\-)(emoji|text))?:)")
_LETTERLESS_EMOJI = frozenset({"+1", "-1", "100", "1234", "__1"})


def _plain_or_one_style(markup: str) -> Piece | None:
    """(text, style) of markup that is plain text or a text in one style, holding no
    emoji code; None for any other (rich reads it)."""
    if "[" not in markup and "\\" not in markup:
        found: Piece = (markup, "")
    else:
        match = _ONE_STYLE.fullmatch(markup)
        if match is None:
            return None
        found = (match.group(2), match.group(1))
    if ":" in found[0]:
        for code in _EMOJI_CODE.finditer(found[0]):
            name = code.group(2)
            if name.lower() in _LETTERLESS_EMOJI or any(c.isalpha() for c in name):
                return None
    return found


def render_styled(screen: Screen, pieces: Sequence[Piece]) -> str:
    """What `console.print(Text.assemble(*pieces, end=""))` writes."""
    lines = _lines(pieces)
    width = screen.width
    paint = screen.paint
    rich = _ByRich(screen)
    out: list[str] = []
    emit = out.append
    for line in lines:
        plain = line[0][0] if len(line) == 1 else "".join([text for text, _ in line])
        if _fits(plain, width):
            if screen.plain:
                emit(plain)
            else:
                emit("".join([paint(text, style) for text, style in line]))
            emit("\n")
            continue
        if _one_cell_each(plain):
            ranges = wrap_ranges(plain, width)
        else:
            emit(rich.line(line))
            continue
        if screen.plain:
            emit("\n".join([plain[a:b] for a, b in ranges]))
            emit("\n")
            continue
        # Each line of the wrap painted piece by piece: the pieces it overlaps, found
        # by walking the pieces along the lines (both in order).
        spans: list[tuple[int, int, str, str]] = []
        at = 0
        for text, style in line:
            if text:
                spans.append((at, at + len(text), text, style))
                at += len(text)
        first = 0
        for a, b in ranges:
            while first < len(spans) and spans[first][1] <= a:
                first += 1
            for s, e, text, style in spans[first:]:
                if s >= b:
                    break
                emit(paint(text[(a if a > s else s) - s:(b if b < e else e) - s], style))
            emit("\n")
    return "".join(out)


def _lines(pieces: Sequence[Piece]) -> list[list[Piece]]:
    lines: list[list[Piece]] = [[]]
    for text, style in pieces:
        if "\n" not in text:
            lines[-1].append((text, style))
            continue
        first, *rest = text.split("\n")
        lines[-1].append((first, style))
        lines.extend([(part, style)] for part in rest)
    return lines


def _fits(plain: str, width: int) -> bool:
    """Whether rich prints the line as it is: it is no wider than `width` (in
    characters too: rich trims the spaces ending a line longer than that), and
    holds nothing rich rewrites (tabs, control codes) or measures as a whole."""
    if len(plain) > width or not plain.isprintable():
        return False
    if all_narrow(plain):  # as wide as it is long
        return True
    from rich.cells import cell_len

    return "\ufe0f" not in plain and cell_len(plain) <= width


def _one_cell_each(plain: str) -> bool:
    """Printable, each character one cell wide: a word's width is its length, and
    the only white space is " " (every other is unprintable)."""
    if not plain.isprintable():
        return False
    if all_narrow(plain):
        return True
    from rich.cells import get_character_cell_size

    return all(get_character_cell_size(c) == 1 for c in set(plain) if not c.isascii())


def wrap_ranges(plain: str, width: int) -> list[tuple[int, int]]:
    """The lines rich's `Text.wrap` (`divide_line` with folding, then `rstrip_end`
    and `truncate`) makes of `plain`, a text of one-cell characters and " " for
    white space, as (start, end) ranges: found by jumping to the column past the
    width rather than measuring every word, which was 0.06 s of 1,469 lines."""
    size = len(plain)
    breaks: list[int] = []
    line = 0  # where the current line starts
    while line + width < size:
        past = line + width  # the first column that does not fit
        # The first word whose non-space part reaches past the width: the one
        # holding `past`, or the next after it. A "word" is rich's `\s*\S+\s*`: the
        # text's leading spaces belong to its first.
        if plain[past] == " ":
            start = _next_word(plain, past)
            if start == size:
                break
        else:
            start = plain.rfind(" ", line, past) + 1
        if line == 0 and start and not plain[:start].strip(" "):
            start = 0
        first = _next_word(plain, start) if start == 0 else start
        stop = plain.find(" ", first)
        stop = size if stop < 0 else stop
        end = _next_word(plain, stop)
        if stop - start > width:  # longer than a line: folded
            chunks = range(start, end, width)
            breaks.extend(c for c in chunks if c)
            line = chunks[-1]
        else:
            breaks.append(start)
            line = start
    # A line ends past the width only in the spaces after its last word: rich trims
    # those down to the width (`rstrip_end`, then `truncate`), the same as cutting it there.
    return [(a, min(b, a + width)) for a, b in zip([0, *breaks], [*breaks, size], strict=True)]


def _next_word(plain: str, at: int) -> int:
    """The first non-space at or after `at` (the text's length if none)."""
    found = _NOT_SPACE.search(plain, at)
    return len(plain) if found is None else found.start()


_NOT_SPACE = re.compile("[^ ]")


class _ByRich:
    """Lines printed through rich's Console, made (and rich imported) at the first."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self._options: ConsoleOptions | None = None
        self._system: Any = None

    def line(self, line: list[Piece]) -> str:
        """The line as `Console.print` writes it: rendered, cropped to the width, painted
        as `Console._render_buffer` paints a segment (its colours dropped under NO_COLOR)."""
        from rich.console import COLOR_SYSTEMS
        from rich.segment import Segment
        from rich.text import Text

        console = self._screen.rich_console()
        if self._options is None:
            # As `Console.print` renders: its options (computed once: each asks the terminal's size).
            self._options = console.options.update(justify=None, overflow=None, height=None,
                                                   no_wrap=None, markup=None, highlight=None)
            self._system = COLOR_SYSTEMS[console.color_system] if console.color_system else None
        text = Text(end="\n")
        for piece, style in line:
            text.append(piece, style)
        segments = console.render(text, self._options)
        out: list[str] = []
        for cropped in Segment.split_and_crop_lines(segments, console.width, pad=False):
            for segment in cropped:
                painted = segment.style
                if painted and console.no_color and self._system is not None:
                    painted = painted.without_color
                if painted:
                    out.append(painted.render(segment.text, color_system=self._system,
                                              legacy_windows=console.legacy_windows))
                else:
                    out.append(segment.text)
        return "".join(out)
