"""JSON values walked to a bounded depth: a decoded record can nest ~1,000 levels.

The decoder reads a line up to its recursion limit (`claude.decode` skips what
is deeper, "too_deep"), so a kept line can still nest several hundred levels,
and a recursive walk over such a value (redacting a tool input, storing a
command) ran out of stack: `learn run` and `learn show --json` exited with a
RecursionError on a line nested 900 levels deep. No tool input of a real
session nests more than a few dozen levels, so what is deeper than
MAX_NESTING is replaced by a marker rather than walked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

MAX_NESTING: Final = 64
TOO_DEEP_MARKER: Final = "[nested too deep]"


def map_strings(value: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    """`value` with `fn` applied to every string in it (dicts and lists rebuilt,
    tuples as lists); anything nested past MAX_NESTING is TOO_DEEP_MARKER."""
    if isinstance(value, str):
        return fn(value)
    if depth >= MAX_NESTING and isinstance(value, Mapping | list | tuple):
        return TOO_DEEP_MARKER
    if isinstance(value, Mapping):
        return {k: map_strings(v, fn, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [map_strings(v, fn, depth + 1) for v in value]
    return value
