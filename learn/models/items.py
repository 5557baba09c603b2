"""The ITEMS block of the model I/O contract.

The items a call is about are listed in its last user message after a line
`ITEMS:`, one numbered line each, `<id>. [<kind>] <text>`; any other numbered
list (RULES:, SKILLS:, KNOWN LABELS:) comes first under its own heading. Text is
flattened to one line so a quote containing a newline cannot forge an item.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WS = re.compile(r"\s+")


def flatten(text: str, limit: int | None = None) -> str:
    flat = _WS.sub(" ", text).strip()
    if limit is not None and len(flat) > limit:
        flat = flat[:limit].rstrip() + "…"
    return flat


def format_items(
    items: Sequence[tuple[int, str, str]],
    *,
    sections: Sequence[tuple[str, Sequence[str]]] = (),
    limit: int | None = 400,
) -> str:
    """Render headed lists then `ITEMS:`. `items` are (id, kind, text); `sections`
    are (heading, lines) rendered as `<i>. <line>` numbered from 0."""
    out: list[str] = []
    for heading, lines in sections:
        if not lines:
            continue
        out.append(f"{heading}:")
        out.extend(f"{i}. {flatten(line, limit)}" for i, line in enumerate(lines))
        out.append("")
    out.append("ITEMS:")
    out.extend(f"{item_id}. [{kind}] {flatten(text, limit)}" for item_id, kind, text in items)
    return "\n".join(out)
