"""A fake Anthropic Messages server for tests: the real SDK, a real socket, no network.

Example (pytest)::

    from fakes.anthropic_server import FakeAnthropicServer

    def test_mining(monkeypatch):
        def responder(request):                    # RecordedRequest -> tool input
            if request.tool_name == "record_candidates" and "bun" in request.user_text:
                return {"candidates": [{"kind": "directive", "text": "use bun"}]}
            return default_tool_input(request.tool_name)

        with FakeAnthropicServer(responder=responder) as fake:
            monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
            monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
            fake.enqueue_status(429, headers={"retry-after": "0"})   # first call: rate limited
            ...run the code under test (AnthropicBackend picks up the env)...
            assert fake.requests[-1].tool_name == "record_candidates"

Scripted replies (`enqueue_*`) are served first, one per request, in order;
after them every request goes to `responder` (default: an empty but valid
answer for the four contract tools). Every request is kept in `fake.requests`
(path, lower-cased headers, parsed body; `.tool_name`, `.user_text`,
`.system_text` read the Messages fields). Back off to zero in the code under
test (e.g. `AnthropicBackend(retry=RetryPolicy(sleep=lambda s: None))`) so
retried replies cost no wall time.

Claude Code as a client (`claude -p --json-schema`, see test_claude_cli_real.py)
talks to the same fake: it streams (`"stream": true` gets a server-sent event
stream), offers the schema as a tool of its own (`StructuredOutput`) with no
forced choice, puts `<system-reminder>` blocks before the prompt, and sends a
follow-up turn carrying the tool's result. Pass `tool_schemas` (learn's tool
name -> input schema) and the responder sees each such request as learn's
anthropic backend would have sent it (`as_api_request`): the forced tool is
the learn tool whose schema the offered tool carries, the user text is the
prompt alone. The follow-up turn gets a short text answer that ends the turn.

Import path: tests/ is on sys.path under pytest's default rootdir import mode,
so test files import `fakes.anthropic_server` (not `tests.fakes...`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from fakes.http_server import FakeHTTPServer, RecordedRequest, Reply
from fakes.ratelimits import FakeAccountLimits

DEFAULT_USAGE: dict[str, int] = {
    "input_tokens": 100,
    "output_tokens": 20,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}

_EMPTY_ANSWERS: dict[str, dict[str, Any]] = {
    "record_candidates": {"candidates": []},
    "assign_labels": {"labels": []},
    "check_coverage": {"verdicts": []},
    "record_verdicts": {"verdicts": []},
}

_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

_ITEM = re.compile(r"^(\d+)\. \[([^\]]*)\] (.*)$")


def default_tool_input(tool_name: str | None) -> dict[str, Any]:
    """An empty but schema-valid answer for the contract tools ({} for others)."""
    return dict(_EMPTY_ANSWERS.get(tool_name or "", {}))


def items_in(user_text: str) -> list[tuple[int, str, str]]:
    """The (id, kind, text) lines after `ITEMS:` in a user message (model I/O contract)."""
    _, sep, tail = user_text.partition("ITEMS:\n")
    if not sep:
        return []
    out: list[tuple[int, str, str]] = []
    for line in tail.splitlines():
        match = _ITEM.match(line)
        if match:
            out.append((int(match.group(1)), match.group(2), match.group(3)))
    return out


Responder = Callable[[RecordedRequest], "Mapping[str, Any] | ToolCalls"]


def offered_tools(request: RecordedRequest) -> list[str]:
    """The names of the tools a Messages request offers the model, in order."""
    return [str(t.get("name")) for t in request.json.get("tools") or [] if isinstance(t, dict)]


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [{"type": "text", "text": content or ""}]


def _last_user_content(request: RecordedRequest) -> list[Any]:
    for message in reversed(request.json.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return _blocks(message.get("content"))
    return []


def tool_calls_made(request: RecordedRequest) -> list[tuple[str, dict[str, Any]]]:
    """(name, input) of every tool_use the model made earlier in this conversation."""
    out: list[tuple[str, dict[str, Any]]] = []
    for message in request.json.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            for b in _blocks(message.get("content")):
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    out.append((str(b.get("name")), dict(b.get("input") or {})))
    return out


def tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user turn (a client's follow-up), each with the
    `name` of the tool_use it answers added."""
    names = {}
    for message in request.json.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            for b in _blocks(message.get("content")):
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    names[b.get("id")] = b.get("name")
    return [
        {**b, "name": names.get(b.get("tool_use_id"))}
        for b in _last_user_content(request)
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def answers_a_tool_call(request: RecordedRequest) -> bool:
    """True when the last user turn carries a tool_result (a client's follow-up)."""
    return bool(tool_results(request))


@dataclasses.dataclass(frozen=True, slots=True)
class ToolCalls:
    """A responder's answer of several tool_use blocks, in order, for an adversarial model
    (one that also calls a tool it was never offered). A name of None is the request's tool."""

    calls: tuple[tuple[str | None, Mapping[str, Any]], ...]


def sse_stream(message: Mapping[str, Any]) -> bytes:
    """A complete Messages body replayed as the event stream a `"stream": true` request gets."""
    events: list[tuple[str, dict[str, Any]]] = []
    usage = dict(message.get("usage") or {})
    head = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1}}
    events.append(("message_start", {"type": "message_start", "message": head}))
    for index, block in enumerate(message.get("content") or []):
        if block.get("type") == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})}
        else:
            start = {**block, "text": ""}
            delta = {"type": "text_delta", "text": block.get("text", "")}
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": start}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": message.get("stop_reason"), "stop_sequence": None},
        "usage": {"output_tokens": usage.get("output_tokens", 0)},
    }))
    events.append(("message_stop", {"type": "message_stop"}))
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


class FakeAnthropicServer(FakeHTTPServer):
    """Fake `POST /v1/messages` (and a trivial `/v1/messages/count_tokens`).

    `responder(request) -> tool input` answers unscripted requests; `usage`
    is the usage block on every answer unless a scripted reply says otherwise.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        usage: Mapping[str, int] | None = None,
        tool_schemas: Mapping[str, Mapping[str, Any]] | None = None,
        limits: FakeAccountLimits | None = None,
        accept_key: str | None = None,
    ) -> None:
        super().__init__()
        # The one API key the fake accepts (401 for any other, on every route); None: any.
        self.accept_key = accept_key
        # Rate limits to enforce and advertise (fakes/ratelimits.py); None: no headers, no 429s.
        self.limits = limits
        self.responder: Responder = responder or (lambda r: default_tool_input(r.tool_name))
        self.usage = dict(usage or DEFAULT_USAGE)
        self.tool_schemas = {name: dict(schema) for name, schema in (tool_schemas or {}).items()}
        self._ids = itertools.count(1)

    # -- clients that offer the schema as a tool of their own -------------------
    def learn_tool(self, request: RecordedRequest) -> tuple[str, str] | None:
        """(offered tool name, learn's tool name) when an offered tool carries a known schema."""
        for tool in request.json.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            for name, schema in self.tool_schemas.items():
                if tool.get("input_schema") == schema:
                    return str(tool.get("name")), name
        return None

    def as_api_request(self, request: RecordedRequest) -> RecordedRequest:
        """The request as learn's anthropic backend would have sent it (see the module doc)."""
        found = None if request.json.get("tool_choice") else self.learn_tool(request)
        if found is None:
            return request
        # The prompt: the user's text blocks that are not the client's reminders.
        prompt = [
            b
            for m in request.json.get("messages") or []
            if isinstance(m, dict) and m.get("role") == "user"
            for b in _blocks(m.get("content"))
            if isinstance(b, dict) and b.get("type") == "text"
            and not str(b.get("text", "")).lstrip().startswith("<system-reminder>")
        ]
        body = {
            **request.json,
            "tool_choice": {"type": "tool", "name": found[1]},
            "messages": [{"role": "user", "content": prompt}],
        }
        return dataclasses.replace(request, body=body)

    # -- reply builders --------------------------------------------------------
    def message_body(
        self,
        request: RecordedRequest,
        content: list[dict[str, Any]],
        *,
        stop_reason: str = "tool_use",
        usage: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        n = next(self._ids)
        body = request.json
        return {
            "id": f"msg_fake_{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-haiku-4-5"),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": dict(usage if usage is not None else self.usage),
        }

    def tool_reply(
        self,
        tool_input: Mapping[str, Any],
        *,
        stop_reason: str = "tool_use",
        usage: Mapping[str, int] | None = None,
        tool_name: str | None = None,
    ) -> Reply:
        """A 200 whose content is one tool_use block (named after the request's tool)."""

        def body(request: RecordedRequest) -> Mapping[str, Any]:
            n = len(self.requests)
            block = {
                "type": "tool_use",
                "id": f"toolu_fake_{n:04d}",
                "name": tool_name or request.tool_name or "tool",
                "input": dict(tool_input),
            }
            return self.message_body(request, [block], stop_reason=stop_reason, usage=usage)

        return Reply(200, body)

    def calls_reply(self, answer: ToolCalls, *, tool_name: str | None = None) -> Reply:
        """A 200 with one tool_use block per call in `answer`."""

        def body(request: RecordedRequest) -> Mapping[str, Any]:
            n = len(self.requests)
            blocks = [
                {"type": "tool_use", "id": f"toolu_fake_{n:04d}_{i}",
                 "name": name or tool_name or request.tool_name or "tool", "input": dict(args)}
                for i, (name, args) in enumerate(answer.calls)
            ]
            return self.message_body(request, blocks)

        return Reply(200, body)

    def direct_reply(self, request: RecordedRequest) -> Reply | None:
        """A refused key (401, every route), a doubled /v1 (404, every route, as the API
        answers a base URL that ends in /v1) and `GET /v1/models` (learn's preflight)."""
        if self.accept_key is not None and request.headers.get("x-api-key") != self.accept_key:
            return self.error_reply(401, message="invalid x-api-key")
        if "/v1/v1/" in request.path:
            return self.error_reply(404, message="Not Found")
        if request.method == "GET" and request.path.split("?")[0].rstrip("/").endswith("/v1/models"):
            return Reply(200, {"data": [{"type": "model", "id": "claude-haiku-4-5",
                                         "display_name": "Claude Haiku 4.5"}],
                               "has_more": False, "first_id": "claude-haiku-4-5",
                               "last_id": "claude-haiku-4-5"})
        return None

    def default_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            return Reply(200, {"input_tokens": len(request.raw) // 4})
        if not path.endswith("/v1/messages"):
            return self.error_reply(404, message=f"no route {request.path}")
        usage: dict[str, int] | None = None
        limit_headers: dict[str, str] = {}
        if self.limits is not None:
            # The request's input tokens as count_tokens would say, reported back in usage.
            usage = {**self.usage, "input_tokens": len(request.raw) // 4}
            ok, limit_headers = self.limits.admit(usage["input_tokens"], usage["output_tokens"])
            if not ok:
                return self.error_reply(429, headers=limit_headers, message="rate limit exceeded")
        found = None if request.json.get("tool_choice") else self.learn_tool(request)
        if found is not None and any(r["name"] == found[0] for r in tool_results(request)):
            # The client ran its structured-output tool: the turn is over.
            reply = Reply(200, lambda r: self.message_body(
                r, [{"type": "text", "text": "Done."}], stop_reason="end_turn"))
        else:
            answer = self.responder(self.as_api_request(request))
            own = found[0] if found else None
            if isinstance(answer, ToolCalls):
                reply = self.calls_reply(answer, tool_name=own)
            else:
                reply = self.tool_reply(answer, tool_name=own, usage=usage)
        if limit_headers:
            reply = dataclasses.replace(reply, headers={**reply.headers, **limit_headers})
        return self.streamed(request, reply) if request.json.get("stream") else reply

    @staticmethod
    def streamed(request: RecordedRequest, reply: Reply) -> Reply:
        """`reply` as the event stream a streaming request expects (errors stay JSON)."""
        if reply.status != 200 or not callable(reply.body):
            return reply
        build = reply.body
        return dataclasses.replace(
            reply,
            body=lambda r: sse_stream(build(r)),  # type: ignore[arg-type,return-value]
            headers={**reply.headers, "content-type": "text/event-stream"},
        )

    @staticmethod
    def error_reply(
        status: int,
        *,
        headers: Mapping[str, str] | None = None,
        error_type: str | None = None,
        message: str | None = None,
    ) -> Reply:
        kind = error_type or _ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message or kind.replace("_", " ")}}
        return Reply(status, body, dict(headers or {}))

    # -- scripting shortcuts ---------------------------------------------------------
    def enqueue_answer(
        self,
        tool_input: Mapping[str, Any],
        *,
        stop_reason: str = "tool_use",
        usage: Mapping[str, int] | None = None,
        tool_name: str | None = None,
    ) -> None:
        """Next request gets this tool input (malformed inputs welcome: no validation here)."""
        self.enqueue(self.tool_reply(tool_input, stop_reason=stop_reason, usage=usage, tool_name=tool_name))

    def enqueue_truncated(self, partial_input: Mapping[str, Any]) -> None:
        """An answer cut off by max_tokens: stop_reason "max_tokens", input possibly partial."""
        self.enqueue_answer(partial_input, stop_reason="max_tokens")

    def enqueue_raw_input(self, raw: Any, *, stop_reason: str = "max_tokens") -> None:
        """A tool_use block whose `input` is not an object (e.g. the string of a JSON
        answer cut mid-way, as a server that stopped at max_tokens may send it)."""

        def body(request: RecordedRequest) -> Mapping[str, Any]:
            block = {"type": "tool_use", "id": f"toolu_fake_raw_{len(self.requests):04d}",
                     "name": request.tool_name or "tool", "input": raw}
            return self.message_body(request, [block], stop_reason=stop_reason)

        self.enqueue(Reply(200, body))

    def enqueue_text(self, text: str, *, stop_reason: str = "end_turn") -> None:
        """An answer with no tool_use block at all."""
        self.enqueue(
            Reply(200, lambda r: self.message_body(r, [{"type": "text", "text": text}], stop_reason=stop_reason))
        )

    def enqueue_status(
        self,
        status: int,
        *,
        headers: Mapping[str, str] | None = None,
        error_type: str | None = None,
        message: str | None = None,
        times: int = 1,
    ) -> None:
        """`times` error replies, e.g. `enqueue_status(429, headers={"retry-after": "0"})`."""
        for _ in range(times):
            self.enqueue(self.error_reply(status, headers=headers, error_type=error_type, message=message))

    def enqueue_overloaded(self, times: int = 1) -> None:
        self.enqueue_status(529, times=times)

    def enqueue_stall(self, seconds: float) -> None:
        """Answer (normally) only after `seconds`: longer than the client's timeout, it times out."""
        self.enqueue(Reply(200, lambda r: self.message_body(r, []), delay=seconds))

    def env(self, api_key: str = "test-key") -> dict[str, str]:
        """Environment that points an unconfigured AnthropicBackend at this fake."""
        return {"ANTHROPIC_API_KEY": api_key, "ANTHROPIC_BASE_URL": self.base_url}
