"""Where `learn show` prints, and how a style looks there: rich's Console, without rich.

`learn show` printed through rich's Console: importing it (console, text, style,
segment, markup, theme and the rest) was ~92 M instructions of a median session's
0.8 G show, and making one and printing the header through it more. What show
needs of it is small: is standard output a terminal, how wide, in colour or not,
and a handful of styles (bold, dim, a few colours) as ANSI codes. A `Screen` works
those out from the environment the way `rich.console.Console(file=...)` does (on
a POSIX system, outside a notebook):

- a terminal: TTY_COMPATIBLE=0/1 says so, then FORCE_COLOR (set and not empty),
  then the file's `isatty()`;
- colour: a terminal whose TERM is not dumb/unknown (COLORTERM and TERM name the
  colour system; the 16 colours show uses are the same codes in each), NO_COLOR
  (not empty) dropping the colours and keeping bold and dim;
- width: COLUMNS, else the size of the first of standard input, output and error
  that is a terminal, else 80 (80 in a dumb terminal).

A style whose words are not among those known here (tests, another caller), a
Windows console or a notebook get rich itself (`Screen.rich_console`, imported only
then); tests/test_report_screen.py holds the two to the same bytes.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# rich's Style bits, in the order `Style._make_ansi_codes` writes them.
_ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4", "blink": "5",
               "blink2": "6", "reverse": "7", "conceal": "8", "strike": "9"}
_ORDER = list(_ATTRIBUTES)
# The 16 standard colours: the same SGR codes whatever the terminal's colour system.
_COLOURS = {name: str(30 + n) for n, name in enumerate(
    ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"))}
_COLOURS.update({f"bright_{name}": str(90 + int(code) - 30) for name, code in list(_COLOURS.items())})
# Names of rich's default theme that show uses, as the theme defines them.
_THEME = {"rule.line": "bright_green"}
# rich's `_TERM_COLORS` and colour system names.
_TERM_COLOURS = {"kitty": "256", "256color": "256", "16color": "standard"}


def _std_fileno(stream: object, default: int) -> int:
    try:
        return int(stream.fileno())  # type: ignore[attr-defined]
    except Exception:
        return default


# Standard input, output and error as rich reads their size (at import, from sys.__std*__).
_STD_STREAMS = (_std_fileno(sys.__stdin__, 0), _std_fileno(sys.__stdout__, 1),
                _std_fileno(sys.__stderr__, 2))


class Screen:
    """A file to print to, its width, and how styles look on it."""

    def __init__(self, file: IO[str], *, width: int, colour_system: str | None,
                 no_color: bool = False, rich_args: dict[str, Any] | None = None,
                 rich_only: bool = False) -> None:
        self.file = file
        self.width = width
        self.colour_system = colour_system  # rich's name: "standard", "256", "truecolor" or None
        self.no_color = no_color and colour_system is not None
        self.plain = colour_system is None  # every style renders as its bare text
        # Where rich writes otherwise (Windows, a notebook) or a width rich would not wrap at.
        self.rich_only = rich_only or width < 1
        self._rich_args = {"file": file, "highlight": False} if rich_args is None else rich_args
        self._rich: Console | None = None
        self._codes: dict[str, str] = {}

    @classmethod
    def of(cls, file: IO[str], environ: Mapping[str, str] | None = None) -> Screen:
        """As `rich.console.Console(file=file, highlight=False)` sets itself up."""
        env: Mapping[str, str] = os.environ if environ is None else environ
        rich_only = sys.platform == "win32" or _in_notebook()
        terminal = _is_terminal(file, env)
        dumb = terminal and env.get("TERM", "").lower() in ("dumb", "unknown")
        colour: str | None = None
        if terminal and not dumb:
            if env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
                colour = "truecolor"
            else:
                colour = _TERM_COLOURS.get(env.get("TERM", "").strip().lower().rpartition("-")[2],
                                           "standard")
        return cls(file, width=_width(env, dumb), colour_system=colour,
                   no_color=env.get("NO_COLOR", "") != "", rich_only=rich_only)

    def rich_console(self) -> Console:
        """The rich Console this screen stands for, for what is printed through rich."""
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(**self._rich_args)
        return self._rich

    def paint(self, text: str, style: str) -> str:
        """`text` in `style`'s ANSI codes, as rich's `Style.render` writes a segment."""
        if not text or self.plain or not style:
            return text
        codes = self._codes.get(style)
        if codes is None:
            codes = self._codes[style] = self._codes_of(style)
        return f"\x1b[{codes}m{text}\x1b[0m" if codes else text

    def _codes_of(self, style: str) -> str:
        words = _THEME.get(style, style).split()
        attributes = [w for w in words if w in _ATTRIBUTES]
        colours = [w for w in words if w in _COLOURS]
        if len(colours) > 1 or len(attributes) + len(colours) != len(words) \
                or len(set(attributes)) != len(attributes):
            return self._codes_by_rich(style)
        sgr = [_ATTRIBUTES[a] for a in sorted(attributes, key=_ORDER.index)]
        if colours and not self.no_color:
            sgr.append(_COLOURS[colours[0]])
        return ";".join(sgr)

    def _codes_by_rich(self, style: str) -> str:
        from rich.console import COLOR_SYSTEMS
        from rich.style import Style

        console = self.rich_console()
        resolved = console.get_style("", default=Style.null()) + console.get_style(style, default=Style.null())
        if self.no_color:
            resolved = resolved.without_color
        return resolved._make_ansi_codes(COLOR_SYSTEMS[self.colour_system or "standard"]) if resolved else ""

    def write(self, text: str) -> None:
        """Written and flushed as `Console` writes its buffer."""
        try:
            self.file.write(text)
        except UnicodeEncodeError as error:  # as rich says it
            error.reason = (f"{error.reason}\n*** You may need to add PYTHONIOENCODING=utf-8 "
                            "to your environment ***")
            raise
        except BrokenPipeError:  # as rich's `Console.on_broken_pipe`
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise SystemExit(1) from None
        self.file.flush()


def _in_notebook() -> bool:
    import builtins

    return hasattr(builtins, "get_ipython")


def _is_terminal(file: IO[str], env: Mapping[str, str]) -> bool:
    """rich's `Console.is_terminal`."""
    if getattr(sys.stdin, "__module__", "").startswith("idlelib"):
        return False
    compatible = env.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = env.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    isatty = getattr(file, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:
        return False


def _width(env: Mapping[str, str], dumb: bool) -> int:
    """rich's `Console.size.width`: COLUMNS, read when the console is made, is its width,
    except in a dumb terminal without LINES too (80)."""
    columns = env.get("COLUMNS")
    fixed = int(columns) if columns is not None and columns.isdigit() else None
    lines = env.get("LINES")
    if fixed is not None and lines is not None and lines.isdigit():
        return fixed
    if dumb:
        return 80
    if fixed is not None:
        return fixed
    width: int | None = None
    for fd in _STD_STREAMS:
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return width or 80


# rich's `markup.escape`: brackets that would read as a tag, and the backslashes before them.
_ESCAPE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(markup: str) -> str:
    """Text made markup that reads as itself (rich's `rich.markup.escape`)."""
    markup = _ESCAPE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", markup)
    if markup.endswith("\\") and not markup.endswith("\\\\"):
        return markup + "\\"
    return markup


# Characters rich measures one cell wide in every Unicode version it knows: its own
# single-cell ranges, and the punctuation, arrows, mathematical and technical signs
# and dingbats show prints ("→", "…", "✗", "⊘", "⏎"), less the emoji among them
# (tests/test_report_screen.py checks each against rich's tables). A text of these
# and ASCII is as wide as it is long; any other character is measured by rich
# (`rich.cells`, imported only then).
_NARROW_RANGES = ((0xA0, 0x2FF), (0x370, 0x482), (0x2010, 0x205E), (0x2070, 0x20C0), (0x2100, 0x214F),
                  (0x2190, 0x23FF), (0x2500, 0x25FC), (0x2700, 0x27BF), (0x2800, 0x28FF))
_WIDE = frozenset((0x231A, 0x231B, 0x2329, 0x232A, 0x23E9, 0x23EA, 0x23EB, 0x23EC, 0x23F0, 0x23F3,
                   0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754, 0x2755, 0x2757,
                   0x2795, 0x2796, 0x2797, 0x27B0, 0x27BF))


def narrow(character: str) -> bool:
    """Whether rich measures `character` (not ASCII) one cell wide by the ranges above."""
    known = _NARROW.get(character)
    if known is None:
        code = ord(character)
        known = _NARROW[character] = (character.isprintable() and code not in _WIDE
                                      and any(lo <= code <= hi for lo, hi in _NARROW_RANGES))
    return known


_NARROW: dict[str, bool] = {}


def all_narrow(text: str) -> bool:
    """Whether every character of `text` is ASCII or narrow."""
    return text.isascii() or all(narrow(c) for c in set(text) if not c.isascii())
