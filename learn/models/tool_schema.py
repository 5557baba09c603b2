"""Does a tool input match the JSON schema its tool declared? The subset learn's tools use.

The reduce steps read their answers tolerantly (one bad row must not cost the
batch), so their pydantic models accept rows of any shape; a row whose `id` is
a word or whose `scope` is missing was silently dropped and its item fell back
to a worse answer. The tool's own input schema says what a whole answer is, so
`learn.models.call` checks it there, for every step, and sends the problems
back for a repair. Only the structural keywords are checked (type,
properties, required, items, enum); anything else is accepted. `minimum` and
`maximum` are left to the readers on purpose: a judge's confidence of 1.7 is
clamped to 1.0 for free, and a repair round trip would cost a call for it.
No dependency: jsonschema (and its three) would be installed for ~60 lines.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

_MAX_PROBLEMS: Final = 5


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return True


def _walk(value: Any, schema: Mapping[str, Any], path: str, out: list[str]) -> None:
    if len(out) >= _MAX_PROBLEMS:
        return
    kinds = schema.get("type")
    if kinds is not None:
        allowed = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_type_ok(value, k) for k in allowed):
            out.append(f"{path or 'answer'}: expected {' or '.join(allowed)}, got {type(value).__name__}")
            return
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        out.append(f"{path}: {value!r} is not one of {', '.join(map(str, enum))}")
    if isinstance(value, Mapping):
        for name in schema.get("required") or ():
            if name not in value:
                out.append(f"{path + '.' if path else ''}{name}: required")
        props = schema.get("properties") or {}
        for name, sub in props.items():
            if name in value and isinstance(sub, Mapping):
                _walk(value[name], sub, f"{path + '.' if path else ''}{name}", out)
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            _walk(item, schema["items"], f"{path}.{i}", out)


def unstringify(tool_input: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level arrays a model sent as a JSON string (`"labels": "[{...}]"`), decoded.

    A known quirk every reader here already forgives; a repair round trip for
    it would cost a call and change nothing.
    """
    out = dict(tool_input)
    for name, sub in (schema.get("properties") or {}).items():
        value = out.get(name)
        if isinstance(value, str) and isinstance(sub, Mapping) and sub.get("type") == "array":
            try:
                decoded = json.loads(value)
            except (ValueError, RecursionError):
                # Not JSON, or nested past the recursion limit (~1,000 levels): left a
                # string, so the schema check reports it and the answer is repaired.
                continue
            if isinstance(decoded, list):
                out[name] = decoded
    return out


def schema_problems(tool_input: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """What in `tool_input` breaks `schema` (`path: problem`, at most a few), or []."""
    out: list[str] = []
    _walk(unstringify(tool_input, schema), schema, "", out)
    return out
