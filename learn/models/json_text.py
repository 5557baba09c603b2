"""Digging a JSON object out of model prose.

Used only as a fallback: when `claude -p` leaves `structured_output` empty
(it does, e.g. when a schema property has `"format": "uri"`, and then the
answer lands in `result` as text), or when a local OpenAI-compatible server
ignores `tools` and answers in `content`. Models wrap JSON in code fences or
put a sentence in front of it, so both are accepted.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The outermost JSON object in `text` (fenced blocks first), or None."""
    for match in _FENCE.finditer(text):
        found = _first_object(match.group(1))
        if found is not None:
            return found
    return _first_object(text)


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        except RecursionError:
            # Nested past the recursion limit (~1,000 levels). The next "{" is most
            # likely inside the same value, and trying each would cost a thousand
            # levels apiece (quadratic in the answer): no object.
            return None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None
