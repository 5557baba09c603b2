"""What `claude -p --output-format json` prints, down to its final result element.

Two readers need it: the Claude CLI model backend (learn.models.claude_cli: the
answer, cost and tokens of one call) and the seed's full parser
(learn.transcripts.claude.print_result: also the init element, the messages and
typed usage). It sits below both, importing nothing of learn, so the backends
need not import the transcripts package.

Three shapes are accepted, since the CLI has printed each: the single result
object, the array of elements (system/init, the messages, the final result),
and `stream-json` NDJSON (one element per line, ending with the result).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

_ANY = msgspec.json.Decoder()


def as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def as_float(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return 0.0


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def print_elements(raw: bytes) -> list[dict[str, Any]]:
    """The payload's elements (its JSON objects), in order; ValueError when it is not JSON."""
    try:
        data = _ANY.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        # stream-json: one element per line.
        data = []
        for line in raw.split(b"\n"):
            if line.strip():
                try:
                    data.append(_ANY.decode(line))
                except (msgspec.DecodeError, RecursionError):
                    continue
        if not data:
            raise ValueError("claude -p output is not JSON") from None
    if isinstance(data, dict):
        data = [data]
    elif not isinstance(data, list):
        raise ValueError(f"claude -p output is JSON but not an object or array: {type(data).__name__}")
    return [e for e in data if isinstance(e, dict)]


def result_element(elements: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The last result element; ValueError when there is none."""
    results = [e for e in elements if e.get("type") == "result"]
    if not results:
        raise ValueError("claude -p output holds no result element")
    return results[-1]


def result_cost(result: Mapping[str, Any]) -> float:
    """The call's cost in USD (`cost_usd` in older releases)."""
    return as_float(result.get("total_cost_usd", result.get("cost_usd")))


def result_errors(result: Mapping[str, Any]) -> tuple[str, ...]:
    """The errors[] a failed run carries, each as one string."""
    errors = result.get("errors")
    if not isinstance(errors, list):
        return ()
    return tuple(e if isinstance(e, str) else msgspec.json.encode(e).decode() for e in errors)
