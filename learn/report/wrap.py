"""The digest wrapped for a terminal: readable at 80 columns.

A digest line is a whole paragraph or list item (what `/learn` and a pipe want:
Claude reads it whole, and tests match it whole); on an 80-column terminal 19 of
38 lines of a run's digest overflowed and broke mid-word. Printed to a terminal,
each line is wrapped at its width (at most WIDEST), a list item's continuation
lines indented under its text; headings, tables and code blocks are left alone.

A line holding wide (CJK) characters is measured in cells and broken between them
too (`break_ranges`), as a Japanese or Chinese text has no spaces to break at, and
by the usual line-breaking rule (JIS X 4051's kinsoku, CSS's `line-break: strict`):
no line starts with a closing mark (。、）」！？…) nor ends with an opening one
(（「『…). Folded by cells alone, `learn show` started lines with "。".
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Callable
from typing import Final

WIDEST: Final = 100
_LEAD = re.compile(r"^(\s*(?:[-*+]|\d+\.)\s+|\s*)")


# No line starts with one of these: closing brackets and quotes, stops and commas, the
# iteration marks, the prolonged sound mark and the small kana (CSS `line-break: strict`).
NO_START: Final = frozenset(
    "、。，．・：；？！‼⁇⁈⁉ー〜～…‥々〻ゝゞヽヾ"
    "）〕］｝〉》」』】〙〗〟’”｠»"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"
    ")]},.:;?!%")
# No line ends with one of these: opening brackets and quotes.
NO_END: Final = frozenset("（〔［｛〈《「『【〘〖〝‘“｟«([{")


def break_ranges(plain: str, width: int, rest_width: int | None = None, *,
                 cells: Callable[[str], int] | None = None) -> list[tuple[int, int]]:
    """The lines of `plain` (one line of text) at most `width` cells wide (`rest_width`
    after the first), as (start, end) ranges, the spaces where it breaks left out.

    It breaks after spaces and beside a wide character, never before a `NO_START`
    mark nor after a `NO_END` one: a mark moves to the next line with the character
    before it. A run with no break allowed that is wider than a line is folded by
    cells, still not before a `NO_START` mark nor after a `NO_END` one where the line
    has another character. `cells`: a character's width (rich's, by default)."""
    if cells is None:
        from rich.cells import get_character_cell_size

        cells = get_character_cell_size
    size = len(plain)
    widths = [cells(c) for c in plain]
    out: list[tuple[int, int]] = []
    start, limit = 0, width
    while start < size:
        used, last, at = 0, -1, start  # `last`: the latest break allowed on this line
        while at < size:
            if at > start and _may_break(plain, widths, at):
                last = at
            if plain[at] != " " and used + widths[at] > limit and at > start:
                break
            used += widths[at]
            at += 1
        else:
            out.append((start, _trimmed(plain, start, size)))
            break
        end = last
        if end <= start:  # nothing allowed: folded where it overflows, or before, off a mark
            end = back = at
            while back - 1 > start and not _legal(plain, start, back):
                back -= 1
            if _legal(plain, start, back):
                end = back
        out.append((start, _trimmed(plain, start, end)))
        start = end
        while start < size and plain[start] == " ":
            start += 1
        limit = width if rest_width is None else rest_width
    return out or [(0, 0)]


def _may_break(plain: str, widths: list[int], at: int) -> bool:
    """Whether a line may break before `plain[at]` (0 < at < len)."""
    before, here = plain[at - 1], plain[at]
    if here == " " or here in NO_START:
        return False
    if before == " ":  # the spaces go with the break: the mark before them decides
        return plain[:at].rstrip(" ")[-1:] not in NO_END
    return before not in NO_END and (widths[at - 1] > 1 or widths[at] > 1)


def _legal(plain: str, start: int, at: int) -> bool:
    """Whether a line from `start` may end before `plain[at]` by the marks' rule."""
    return plain[at] not in NO_START and plain[start:at].rstrip(" ")[-1:] not in NO_END


def _trimmed(plain: str, start: int, end: int) -> int:
    while end > start and plain[end - 1] == " ":
        end -= 1
    return end


def _wide(text: str) -> bool:
    """Whether `text` holds a character rich may measure wider than one cell."""
    from learn.report.screen import all_narrow

    return not all_narrow(text)


def wrap_markdown(text: str, width: int) -> str:
    out: list[str] = []
    code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            code = not code
        wide = _wide(line)
        if code or (len(line) <= width and not wide) or line.lstrip().startswith(("#", "|", "```")):
            out.append(line)
            continue
        lead = _LEAD.match(line)
        indent = " " * len(lead.group(1)) if lead else ""
        if wide:
            ranges = break_ranges(line, width, width - len(indent))
            out.extend((indent if n else "") + line[a:b] for n, (a, b) in enumerate(ranges))
            continue
        out.extend(textwrap.wrap(line, width=width, subsequent_indent=indent,
                                 break_long_words=False, break_on_hyphens=False) or [line])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def for_terminal(text: str, *, isatty: bool) -> str:
    """`text` wrapped to the terminal's width when printed to one, else as it is."""
    if not isatty:
        return text
    width = shutil.get_terminal_size((80, 24)).columns
    return wrap_markdown(text, max(40, min(width, WIDEST)))
