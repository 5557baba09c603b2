"""A fake OpenAI-compatible `POST /v1/chat/completions` (llama.cpp/vLLM/Ollama style).

Example::

    from fakes.openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as fake:
        fake.enqueue_answer({"labels": [{"id": 0, "label": "use-bun"}]})
        backend = OpenAIBackend(fake.base_url + "/v1", "local-model")
        ...
        assert fake.requests[0].tool_name == "assign_labels"

Unscripted requests get `responder(request)` as the function arguments
(default: an empty valid answer for the contract tools).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from typing import Any

from fakes.anthropic_server import default_tool_input
from fakes.http_server import FakeHTTPServer, RecordedRequest, Reply

DEFAULT_USAGE: dict[str, int] = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}

Responder = Callable[[RecordedRequest], Mapping[str, Any]]


class FakeOpenAIServer(FakeHTTPServer):
    def __init__(self, responder: Responder | None = None, *, usage: Mapping[str, int] | None = None) -> None:
        super().__init__()
        self.responder: Responder = responder or (lambda r: default_tool_input(r.tool_name))
        self.usage = dict(usage or DEFAULT_USAGE)
        self._ids = itertools.count(1)

    def completion_body(
        self,
        request: RecordedRequest,
        message: dict[str, Any],
        *,
        finish_reason: str,
        usage: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-fake-{next(self._ids):04d}",
            "object": "chat.completion",
            "model": request.json.get("model", "local-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": dict(usage if usage is not None else self.usage),
        }

    def tool_reply(
        self,
        arguments: Mapping[str, Any] | str,
        *,
        finish_reason: str = "tool_calls",
        usage: Mapping[str, int] | None = None,
    ) -> Reply:
        """A tool call; `arguments` as a dict is JSON-encoded like real servers do, a str is sent as is."""

        def body(request: RecordedRequest) -> Mapping[str, Any]:
            encoded = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
            call = {
                "id": f"call_{len(self.requests):04d}",
                "type": "function",
                "function": {"name": request.tool_name or "tool", "arguments": encoded},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            return self.completion_body(request, message, finish_reason=finish_reason, usage=usage)

        return Reply(200, body)

    def default_reply(self, request: RecordedRequest) -> Reply:
        if not request.path.rstrip("/").endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no route {request.path}", "type": "not_found"}})
        return self.tool_reply(self.responder(request))

    def enqueue_answer(
        self,
        arguments: Mapping[str, Any] | str,
        *,
        finish_reason: str = "tool_calls",
        usage: Mapping[str, int] | None = None,
    ) -> None:
        self.enqueue(self.tool_reply(arguments, finish_reason=finish_reason, usage=usage))

    def enqueue_content(self, text: str, *, finish_reason: str = "stop") -> None:
        """A server that ignored `tools` and answered in plain content."""
        self.enqueue(
            Reply(
                200,
                lambda r: self.completion_body(
                    r, {"role": "assistant", "content": text}, finish_reason=finish_reason
                ),
            )
        )

    def enqueue_status(
        self, status: int, *, headers: Mapping[str, str] | None = None, times: int = 1
    ) -> None:
        body = {"error": {"message": f"fake error {status}", "type": "server_error"}}
        for _ in range(times):
            self.enqueue(Reply(status, body, dict(headers or {})))
