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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rich.cells import cell_len, get_character_cell_size
from rich.console import COLOR_SYSTEMS, WINDOWS, Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

# One piece of the text: what it says and its rich style ("" for none), as
# `Text.append(text, style)` takes them.
Piece = tuple[str, str]


def print_styled(console: Console, pieces: Iterable[Piece]) -> None:
    """`console.print(Text.assemble(*pieces, end=""))`, written in one go."""
    listed = list(pieces)
    if (WINDOWS or console.is_jupyter or console.record or console.quiet
            or console.options.max_width < 1):
        # Where rich writes otherwise (a Windows console, a notebook, a recording)
        # or nothing at all: rich itself.
        console.print(Text.assemble(*listed, end=""))
        return
    rendered = render_styled(console, listed)
    try:
        console.file.write(rendered)
    except UnicodeEncodeError as error:  # as rich says it
        error.reason = (f"{error.reason}\n*** You may need to add PYTHONIOENCODING=utf-8 "
                        "to your environment ***")
        raise
    except BrokenPipeError:
        console.on_broken_pipe()
    console.file.flush()


def render_styled(console: Console, pieces: Sequence[Piece]) -> str:
    """What `console.print(Text.assemble(*pieces, end=""))` writes."""
    lines = _lines(pieces)
    # As `Console.print` renders: its options (computed once: each asks the terminal's size).
    options = console.options.update(justify=None, overflow=None, height=None, no_wrap=None,
                                     markup=None, highlight=None)
    width = options.max_width
    paint = _Painter(console)
    out: list[str] = []
    emit = out.append
    for line in lines:
        plain = "".join(text for text, _ in line)
        if _fits(plain, width):
            ranges = [(0, len(plain))]
        elif _one_cell_each(plain):
            ranges = wrap_ranges(plain, width)
        else:
            emit(_through_rich(console, options, line, paint))
            continue
        if paint.plain:
            emit("\n".join([plain[a:b] for a, b in ranges]))
            emit("\n")
            continue
        for a, b in ranges:
            at = 0
            for text, style in line:
                lo, hi = max(a, at), min(b, at + len(text))
                if lo < hi:
                    emit(paint(text[lo - at:hi - at], style))
                at += len(text)
            emit("\n")
    return "".join(out)


def _lines(pieces: Sequence[Piece]) -> list[list[Piece]]:
    lines: list[list[Piece]] = [[]]
    for text, style in pieces:
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
    return plain.isascii() or ("\ufe0f" not in plain and cell_len(plain) <= width)


def _one_cell_each(plain: str) -> bool:
    """Printable, each character one cell wide: a word's width is its length, and
    the only white space is " " (every other is unprintable)."""
    if not plain.isprintable():
        return False
    return plain.isascii() or all(get_character_cell_size(c) == 1 for c in set(plain) if not c.isascii())


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


def _through_rich(console: Console, options: ConsoleOptions, line: list[Piece],
                  paint: _Painter) -> str:
    """The line as `Console.print` writes it: rendered, cropped to the width, painted."""
    text = Text(end="\n")
    for piece, style in line:
        text.append(piece, style)
    segments = console.render(text, options)
    return "".join(paint.segment(segment)
                   for cropped in Segment.split_and_crop_lines(segments, console.width, pad=False)
                   for segment in cropped)


class _Painter:
    """A piece in its style's ANSI codes, as `Console._render_buffer` writes a segment:
    the style as `Text.render` resolves it, its colours dropped under NO_COLOR."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._system = COLOR_SYSTEMS[console.color_system] if console.color_system else None
        self._no_color = console.no_color and self._system is not None
        self._legacy = console.legacy_windows
        self._base = console.get_style("", default=Style.null())
        self._styles: dict[str, Style | None] = {}
        self.plain = self._system is None  # every style renders as its bare text

    def __call__(self, text: str, name: str) -> str:
        style = self._styles[name] if name in self._styles else self._resolve(name)
        if style is None:
            return text
        return style.render(text, color_system=self._system, legacy_windows=self._legacy)

    def _resolve(self, name: str) -> Style | None:
        style = self._base + self._console.get_style(name, default=Style.null()) if name else self._base
        resolved = self._colourless(style)
        self._styles[name] = resolved
        return resolved

    def _colourless(self, style: Style | None) -> Style | None:
        if style and self._no_color:
            style = style.without_color
        return style or None

    def segment(self, segment: Segment) -> str:
        """A segment of a rendered text (never a control code, which rich writes apart)."""
        style = self._colourless(segment.style)
        if style:
            return style.render(segment.text, color_system=self._system, legacy_windows=self._legacy)
        return segment.text

