"""How an OpenAI-compatible endpoint is asked for the answer schema, and which way works where.

Three ways to get the contract's one object out of `/v1/chat/completions`,
tried in this order:

- `json_schema`: `response_format: {"type": "json_schema", ...}` (OpenAI, vLLM,
  Ollama, LM Studio, llama.cpp's own llama-server). Local servers turn the
  schema into a grammar and constrain decoding to it, so even a small model
  answers with valid JSON. Measured on a real llama.cpp server with a small
  model: with tools + a named tool_choice every call rambled to max_tokens
  without calling the tool (9 of 9 sessions failed); the same requests with
  json_schema came back valid in under 2 s.
- `json_object`: `response_format: {"type": "json_object", "schema": ...}`, the
  dialect of llama-cpp-python's server, which (0.3.36, measured) answers
  `json_schema` with HTTP 500 "Input should be 'text' or 'json_object'" but
  constrains decoding to the schema given this way.
- `tools`: one function and a named `tool_choice`, for servers that reject
  `response_format` (or ignore it and answer in prose).

Which one works is a property of the endpoint (base URL + model), so it is
learnt from the first call that settles it and remembered in a small JSON file
in the cache dir: a run (and the next one) does not pay the probe every call.
Deleting the file only costs one probe.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

Mode = Literal["json_schema", "json_object", "tools"]
DEFAULT_ORDER: tuple[Mode, ...] = ("json_schema", "json_object", "tools")
MEMO_FILE = "openai-endpoints.json"


def mode_order(first: Mode | None) -> tuple[Mode, ...]:
    """`first` (the mode that worked last time), then the others in the default order."""
    if first is None:
        return DEFAULT_ORDER
    return (first, *(mode for mode in DEFAULT_ORDER if mode != first))


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema in the form OpenAI's `strict: true` accepts, meaning the same answers.

    Strict mode wants every object closed (`additionalProperties: false`) and
    every property required, so an optional property becomes required-but-
    nullable; `strip_optional_nulls` removes those nulls again before the answer
    is validated, so callers see the contract's shape. Servers that ignore
    `strict` (llama.cpp) build the same grammar from it.
    """
    return _strict(schema, optional=False)


def _strict(schema: Mapping[str, Any], *, optional: bool) -> dict[str, Any]:
    out = dict(schema)
    kind = out.get("type")
    if kind == "object" and isinstance(out.get("properties"), Mapping):
        required = set(out.get("required") or ())
        props: Mapping[str, Any] = out["properties"]
        out["properties"] = {
            name: _strict(sub, optional=name not in required) if isinstance(sub, Mapping) else sub
            for name, sub in props.items()
        }
        out["required"] = list(props)
        out["additionalProperties"] = False
    elif kind == "array" and isinstance(out.get("items"), Mapping):
        out["items"] = _strict(out["items"], optional=False)
    if optional:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def strip_optional_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """Drop `null` values of properties the original `schema` does not require."""
    if isinstance(value, dict) and isinstance(schema.get("properties"), Mapping):
        props: Mapping[str, Any] = schema["properties"]
        required = set(schema.get("required") or ())
        return {
            key: strip_optional_nulls(item, props.get(key) or {})
            for key, item in value.items()
            if not (item is None and key not in required)
        }
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [strip_optional_nulls(item, schema["items"]) for item in value]
    return value


class EndpointMemo:
    """Which mode answered last at each endpoint, kept in a 0600 JSON file.

    Thread-safe: mining calls run on several workers. A file that cannot be
    read or written only means probing again; it never fails a call.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._modes: dict[str, Mode] | None = None

    @staticmethod
    def key(url: str, model: str) -> str:
        return f"{url} {model}"

    def get(self, url: str, model: str) -> Mode | None:
        with self._lock:
            return self._load().get(self.key(url, model))

    def set(self, url: str, model: str, mode: Mode) -> None:
        with self._lock:
            modes = self._load()
            if modes.get(self.key(url, model)) == mode:
                return
            modes[self.key(url, model)] = mode
            self._save(modes)

    def _load(self) -> dict[str, Mode]:
        if self._modes is None:
            self._modes = _read(self.path)
        return self._modes

    def _save(self, modes: Mapping[str, Mode]) -> None:
        if self.path is None:
            return
        from learn.paths import atomic_write_bytes, ensure_private_dir

        try:
            ensure_private_dir(self.path.parent)
            atomic_write_bytes(self.path, json.dumps(dict(modes), indent=1, sort_keys=True).encode())
        except OSError:
            pass  # remembered for this process only; the next run probes again


def _read(path: Path | None) -> dict[str, Mode]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if v in DEFAULT_ORDER}


def default_memo_path() -> Path:
    from learn.paths import cache_dir

    return cache_dir() / MEMO_FILE
