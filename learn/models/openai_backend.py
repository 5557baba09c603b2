"""Any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama, LM Studio).

The contract's one forced tool becomes one function with `tool_choice`
naming it; the answer is `tool_calls[0].function.arguments`. Local servers
differ in how faithfully they do this: some return arguments as an object
instead of a JSON string, some ignore `tools` and answer in `content`, often
in a code fence; all three are accepted.

Uses the project's own httpx (not the SDK's httpx2), imported lazily.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse
from learn.models.catalog import model_info
from learn.models.json_text import extract_json_object
from learn.models.ratelimit import RateLimiter
from learn.models.retry import (
    RetryPolicy,
    TransientError,
    is_retryable_status,
    parse_retry_after,
    run_with_retries,
)

# Local models on a laptop are slow: a large chunk can take minutes to prefill.
DEFAULT_TIMEOUT = 600.0

# Chat-completions finish reasons, in the Messages vocabulary the callers read.
_STOP_REASONS = {"length": "max_tokens", "tool_calls": "tool_use", "stop": "end_turn"}


def chat_completions_url(base_url: str) -> str:
    """Accept `http://host:8080`, `.../v1` or the full endpoint."""
    url = base_url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/chat/completions"
    return url + "/v1/chat/completions"


def build_payload(request: ModelRequest, model: str) -> dict[str, Any]:
    tool = request.tool
    return {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": dict(tool.input_schema),
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": tool.name}},
    }


def _as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _arguments(call: Mapping[str, Any]) -> dict[str, Any] | None:
    function = call.get("function")
    if not isinstance(function, Mapping):
        return None
    args = function.get("arguments")
    if isinstance(args, Mapping):
        return dict(args)
    if isinstance(args, str):
        try:
            value = json.loads(args)
        except ValueError:
            return extract_json_object(args)
        return value if isinstance(value, dict) else None
    return None


def response_from_completion(request: ModelRequest, model: str, data: Any) -> ModelResponse:
    """Pick the forced function's arguments (or a JSON object in content) out of a completion."""
    what = f"openai {request.tool.name}"
    choices = data.get("choices") if isinstance(data, Mapping) else None
    if not choices or not isinstance(choices[0], Mapping):
        raise ModelError(f"{what}: the reply has no choices")
    choice = choices[0]
    message = _as_mapping(choice.get("message"))
    finish = choice.get("finish_reason")
    stop_reason = _STOP_REASONS.get(str(finish), finish) if finish is not None else None
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, Mapping)]
    named = [c for c in calls if (c.get("function") or {}).get("name") == request.tool.name]
    tool_input: dict[str, Any] | None = None
    for call in named or calls:
        tool_input = _arguments(call)
        if tool_input is not None:
            break
    content = message.get("content")
    if tool_input is None and isinstance(content, str):
        tool_input = extract_json_object(content)
    if tool_input is None:
        raise ModelError(
            f"{what}: the model answered without calling the tool (finish_reason {finish})"
        )
    usage_data = _as_mapping(data.get("usage"))
    prompt = int(usage_data.get("prompt_tokens") or 0)
    completion = int(usage_data.get("completion_tokens") or 0)
    details = usage_data.get("prompt_tokens_details")
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, Mapping) else 0
    answered_by = str(data.get("model") or model)
    # prompt_tokens includes the cached ones; price them apart so a known
    # model is not charged twice. Unknown (local) models cost 0.
    cost = model_info(answered_by).cost(prompt - cached, completion, 0, cached)
    return ModelResponse(
        tool_input=tool_input,
        model=answered_by,
        usage=CallUsage(prompt, completion, cached, 0, cost, 1),
        stop_reason=stop_reason,
    )


class OpenAIBackend:
    """`Backend` over POST <base_url>/v1/chat/completions with function calling."""

    name = "openai"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = 5,
        limiter: RateLimiter | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not url:
            raise ModelError(
                "openai backend needs a server: pass --base-url (e.g. http://127.0.0.1:8080/v1) "
                "or set OPENAI_BASE_URL"
            )
        self.url = chat_completions_url(url)
        # The model the server should run. The pipeline's default model names
        # are Claude ids a local server does not know, so this one wins.
        self.model = model
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        self.timeout = timeout
        self._limiter = limiter if limiter is not None else RateLimiter(None, 4)
        self._retry = retry if retry is not None else RetryPolicy(max_attempts=max_attempts)

    def call(self, request: ModelRequest) -> ModelResponse:
        import httpx

        model = self.model or request.model
        payload = build_payload(request, model)
        headers = {"content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"

        def attempt() -> ModelResponse:
            with self._limiter.slot():
                try:
                    reply = httpx.post(self.url, json=payload, headers=headers, timeout=self.timeout)
                except httpx.TimeoutException as exc:
                    raise TransientError("request timed out") from exc
                except httpx.TransportError as exc:
                    raise TransientError(f"connection error to {self.url} ({type(exc).__name__})") from exc
            if reply.status_code >= 400:
                reason = _error_text(reply)
                if not is_retryable_status(reply.status_code, reply.headers):
                    raise ModelError(f"openai: HTTP {reply.status_code} {reason}")
                retry_after = parse_retry_after(reply.headers)
                if reply.status_code == 429 and retry_after is not None:
                    self._limiter.pause(retry_after)
                raise TransientError(reason, status=reply.status_code, retry_after=retry_after)
            try:
                data = reply.json()
            except ValueError as exc:
                raise ModelError(f"openai {request.tool.name}: the reply is not JSON") from exc
            return response_from_completion(request, model, data)

        return run_with_retries(attempt, self._retry, what=f"openai {request.tool.name}")


def _error_text(reply: Any) -> str:
    try:
        data = reply.json()
    except ValueError:
        return _short(reply.text) or reply.reason_phrase or "error"
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping):
        return _short(str(error.get("message") or error.get("type") or "error"))
    if isinstance(error, str):
        return _short(error)
    return reply.reason_phrase or "error"


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:200]
