"""A fake OpenAI-compatible server that answers each way of asking the way a real kind does.

`FakeOpenAIServer` answers every request with a tool call. Real servers differ
in the three ways the `openai` backend can ask for the answer object:

- `response_format` json_schema, and json_object with a schema (llama-cpp-python's
  dialect; `json_object=None` behaves like `json_schema`): "ok" (the JSON
  object as `content`), "reject" (HTTP 400, like a server that does not know
  the parameter), "crash" (HTTP 500 naming response_format: llama-cpp-python
  0.3.36 on json_schema, measured), "ignore" (prose in `content`).
- `tools` + named `tool_choice`: "ok" (a tool call), "ramble" (prose until
  `max_tokens`, no tool call: what a small local model did on a real llama.cpp
  server), "reject" (HTTP 400).

Example::

    with ModesServer(json_schema="reject") as fake:
        backend = OpenAIBackend(fake.base_url, "local-model")
        backend.call(request)
        assert fake.modes == ["json_schema", "json_object", "tools"]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from fakes.anthropic_server import default_tool_input
from fakes.http_server import RecordedRequest, Reply
from fakes.openai_server import FakeOpenAIServer

SchemaWay = Literal["ok", "reject", "crash", "ignore"]
ToolsWay = Literal["ok", "ramble", "reject"]
Answerer = Callable[[str, RecordedRequest], Mapping[str, Any]]

RAMBLE = "Let me look at the transcript carefully. The user said several things. " * 40


def mode_of(request: RecordedRequest) -> str:
    """json_schema, json_object or tools: how the request asks for the answer."""
    response_format = request.json.get("response_format")
    if isinstance(response_format, dict):
        return str(response_format.get("type"))
    return "tools"


def contract_tool(request: RecordedRequest) -> str:
    """The contract tool a request asks for, in either mode."""
    response_format = request.json.get("response_format")
    if isinstance(response_format, dict) and "json_schema" in response_format:
        return str(response_format["json_schema"].get("name") or "")
    if isinstance(response_format, dict):
        return _tool_for_schema(response_format.get("schema") or {})
    return request.tool_name or ""


# json_object carries a schema but no name: the contract tools' top-level keys tell them apart.
_TOOL_BY_KEY = {"candidates": "record_candidates", "labels": "assign_labels"}


def _tool_for_schema(schema: dict[str, Any]) -> str:
    keys = list(schema.get("properties") or {})
    if keys and keys[0] in _TOOL_BY_KEY:
        return _TOOL_BY_KEY[keys[0]]
    rows = ((schema.get("properties") or {}).get("verdicts") or {}).get("items") or {}
    return "check_coverage" if "verdict" in (rows.get("properties") or {}) else "record_verdicts"


class ModesServer(FakeOpenAIServer):
    def __init__(
        self,
        *,
        json_schema: SchemaWay = "ok",
        json_object: SchemaWay | None = None,
        tools: ToolsWay = "ok",
        answer: Answerer | None = None,
        usage: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(usage=usage)
        self.json_schema = json_schema
        self.json_object = json_object or json_schema
        self.tools = tools
        self.answer: Answerer = answer or (lambda name, _r: default_tool_input(name))

    @property
    def modes(self) -> list[str]:
        """The mode of every request received, in order."""
        return [mode_of(r) for r in self.requests]

    def default_reply(self, request: RecordedRequest) -> Reply:
        if not request.path.rstrip("/").endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no route {request.path}", "type": "not_found"}})
        name = contract_tool(request)
        mode = mode_of(request)
        if mode != "tools":
            way = self.json_schema if mode == "json_schema" else self.json_object
            if way == "reject":
                return _bad_request(f"Unrecognized response_format type '{mode}'")
            if way == "crash":
                return Reply(500, {"error": {"message": (
                    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
                    "'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"
                ), "type": "internal_server_error"}})
            if way == "ignore":
                return self._content("Here is what I found in the transcript: nothing unusual.", "stop")
            return self._content(json.dumps(dict(self.answer(name, request))), "stop")
        if self.tools == "reject":
            return _bad_request("tools are not supported by this model")
        if self.tools == "ramble":
            max_tokens = int(request.json.get("max_tokens") or 4096)
            return self._content(
                RAMBLE, "length", {"prompt_tokens": 120, "completion_tokens": max_tokens}
            )
        return self.tool_reply(self.answer(name, request))

    def _content(self, text: str, finish: str, usage: Mapping[str, int] | None = None) -> Reply:
        message = {"role": "assistant", "content": text}
        return Reply(200, lambda r: self.completion_body(r, message, finish_reason=finish, usage=usage))


def _bad_request(message: str) -> Reply:
    return Reply(400, {"error": {"message": message, "type": "invalid_request_error", "code": 400}})
