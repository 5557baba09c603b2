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

Import path: tests/ is on sys.path under pytest's default rootdir import mode,
so test files import `fakes.anthropic_server` (not `tests.fakes...`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from typing import Any

from fakes.http_server import FakeHTTPServer, RecordedRequest, Reply

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


Responder = Callable[[RecordedRequest], Mapping[str, Any]]


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
    ) -> None:
        super().__init__()
        self.responder: Responder = responder or (lambda r: default_tool_input(r.tool_name))
        self.usage = dict(usage or DEFAULT_USAGE)
        self._ids = itertools.count(1)

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

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.path.rstrip("/").endswith("/count_tokens"):
            return Reply(200, {"input_tokens": len(request.raw) // 4})
        if not request.path.split("?")[0].rstrip("/").endswith("/v1/messages"):
            return self.error_reply(404, message=f"no route {request.path}")
        return self.tool_reply(self.responder(request))

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
