"""How the report writes small things: one flattened line cut to a width, a day,
a counted noun. Shared by the digest, the outcomes section, `learn apply` and the
HTML report."""

from __future__ import annotations

import re

from learn.textunits import cut_to_width


def flatten(text: str, limit: int | None = None) -> str:
    """One line, whitespace collapsed, cut at `limit` columns with an ellipsis.

    Columns, not characters: a Chinese or Japanese character takes two, so a
    400-character cut let a Chinese quote run twice as wide as an English one.
    """
    flat = re.sub(r"\s+", " ", text).strip()
    if limit is not None:
        flat = cut_to_width(flat, limit)
    return flat


def day(iso: str | None) -> str | None:
    """The YYYY-MM-DD part of an ISO timestamp (what a reader needs; hours are noise)."""
    if not iso:
        return None
    return iso[:10] if re.match(r"\d{4}-\d{2}-\d{2}", iso) else iso


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
