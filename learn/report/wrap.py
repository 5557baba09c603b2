"""The digest wrapped for a terminal: readable at 80 columns.

A digest line is a whole paragraph or list item (what `/learn` and a pipe want:
Claude reads it whole, and tests match it whole); on an 80-column terminal 19 of
38 lines of a run's digest overflowed and broke mid-word. Printed to a terminal,
each line is wrapped at its width (at most WIDEST), a list item's continuation
lines indented under its text; headings, tables and code blocks are left alone.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from typing import Final

WIDEST: Final = 100
_LEAD = re.compile(r"^(\s*(?:[-*+]|\d+\.)\s+|\s*)")


def wrap_markdown(text: str, width: int) -> str:
    out: list[str] = []
    code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            code = not code
        if code or len(line) <= width or line.lstrip().startswith(("#", "|", "```")):
            out.append(line)
            continue
        lead = _LEAD.match(line)
        indent = " " * len(lead.group(1)) if lead else ""
        out.extend(textwrap.wrap(line, width=width, subsequent_indent=indent,
                                 break_long_words=False, break_on_hyphens=False) or [line])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def for_terminal(text: str, *, isatty: bool) -> str:
    """`text` wrapped to the terminal's width when printed to one, else as it is."""
    if not isatty:
        return text
    width = shutil.get_terminal_size((80, 24)).columns
    return wrap_markdown(text, max(40, min(width, WIDEST)))
