"""Any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama, LM Studio, OpenAI).

The contract's one forced tool is asked for in one of three modes (see
`openai_modes`): `response_format` json_schema first, because servers that
support it constrain decoding to the schema; llama-cpp-python's json_object
with a schema; one function with a named `tool_choice` where the server
rejects `response_format` or ignores it. Which mode works is remembered per
endpoint; a call whose mode fails in a way that says "this server does not do
it that way" tries the next mode once.

Local servers differ in how faithfully they answer: some return tool arguments
as an object instead of a JSON string, some ignore `tools` and answer in
`content`, often in a code fence; all are accepted.

Uses the project's own httpx (not the SDK's httpx2), imported lazily.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from learn.models.base import (
    REFUSAL_STOPS,
    CallUsage,
    KeyRefused,
    MalformedAnswer,
    ModelError,
    ModelRequest,
    ModelResponse,
    PromptTooLong,
    RefusedAnswer,
    error_line,
)
from learn.models.catalog import model_info
from learn.models.json_text import extract_json_object
from learn.models.network import (
    NOT_THE_API,
    body_kind,
    is_html,
    proxy_auth_failure,
    proxy_auth_fix,
    proxy_for,
)
from learn.models.openai_modes import (
    EndpointMemo,
    Mode,
    default_memo_path,
    mode_order,
    strict_schema,
    strip_optional_nulls,
)
from learn.models.ratelimit import RateLimiter, limiter_for
from learn.models.retry import (
    DEFAULT_BUDGET_SECONDS,
    TIMED_OUT,
    Outage,
    RetryPolicy,
    TransientError,
    is_retryable_status,
    is_too_long,
    parse_retry_after,
    run_with_retries,
    within,
)

# Local models on a laptop are slow: a large chunk can take minutes to prefill.
DEFAULT_TIMEOUT = 600.0

# Chat-completions finish reasons, in the Messages vocabulary the callers read.
_STOP_REASONS = {"length": "max_tokens", "tool_calls": "tool_use", "stop": "end_turn"}

# Final statuses that say nothing about the request's shape: a bad key, a
# wrong URL, a prompt too large, a proxy wanting credentials. Trying the other
# mode would fail the same way.
_NOT_ABOUT_MODE = frozenset({401, 403, 404, 407, 413})


class ModeFailure(ModelError):
    """This mode does not work at this endpoint: rejected (4xx) or answered without the object."""

    def __init__(self, message: str, *, usage: CallUsage | None = None, stop_reason: str | None = None) -> None:
        super().__init__(message, usage=usage)
        self.stop_reason = stop_reason


def chat_completions_url(base_url: str) -> str:
    """Accept `http://host:8080`, `.../v1` or the full endpoint."""
    url = base_url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/chat/completions"
    return url + "/v1/chat/completions"


def build_payload(request: ModelRequest, model: str, mode: Mode = "tools") -> dict[str, Any]:
    """The chat-completions body asking for `request`'s answer object in `mode`."""
    tool = request.tool
    payload: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
            *correction_turns(request, mode),
        ],
    }
    if mode == "json_schema":
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": tool.name,
                "description": tool.description,
                "schema": strict_schema(tool.input_schema),
                "strict": True,
            },
        }
        return payload
    if mode == "json_object":
        # No strict dialect here: the plain schema, so optional keys stay optional.
        payload["response_format"] = {"type": "json_object", "schema": dict(tool.input_schema)}
        return payload
    payload["tools"] = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.input_schema),
            },
        }
    ]
    payload["tool_choice"] = {"type": "function", "function": {"name": tool.name}}
    return payload


def correction_turns(request: ModelRequest, mode: Mode) -> list[dict[str, Any]]:
    """Each earlier invalid answer as the assistant's turn, then what was wrong with it.

    In tools mode the answer is the assistant's tool call and the error its
    tool result, the way any tool error comes back; with response_format the
    answer is the assistant's content and the error a user turn.
    """
    name = request.tool.name
    turns: list[dict[str, Any]] = []
    for n, fix in enumerate(request.corrections, start=1):
        answer = json.dumps(dict(fix.answer), ensure_ascii=False)
        problem = f"The answer does not match the {name} schema: {fix.error}."
        if mode == "tools":
            call_id = f"call_learn_repair_{n}"
            turns.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": answer}},
            ]})
            turns.append({"role": "tool", "tool_call_id": call_id,
                          "content": f"{problem} Call {name} again with the whole corrected answer."})
        else:
            turns.append({"role": "assistant", "content": answer})
            turns.append({"role": "user", "content": f"{problem} Answer again with the whole corrected object."})
    return turns


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
        return _content_object(args)
    return None


def _content_object(content: str) -> dict[str, Any] | None:
    """The JSON object a json_schema answer is, or one buried in prose.

    Content that starts as an object but does not parse is a cut-off or broken
    answer: digging inside it would return one of its rows as if it were the
    whole answer, so it is None.
    """
    try:
        value = json.loads(content)
    except RecursionError:
        return None  # nested past the recursion limit: nothing in it is readable
    except ValueError:
        if content.lstrip().startswith("{"):
            return None
        return extract_json_object(content)
    return value if isinstance(value, dict) else None


def usage_of(data: Any, model: str) -> CallUsage:
    """Tokens and cost of one completion (1 call), priced by the model that answered."""
    usage_data = _as_mapping(_as_mapping(data).get("usage"))
    prompt = int(usage_data.get("prompt_tokens") or 0)
    completion = int(usage_data.get("completion_tokens") or 0)
    details = usage_data.get("prompt_tokens_details")
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, Mapping) else 0
    # prompt_tokens includes the cached ones; price them apart so a known
    # model is not charged twice. Unknown (local) models cost 0.
    cost = model_info(model).cost(prompt - cached, completion, 0, cached)
    return CallUsage(prompt, completion, cached, 0, cost, 1)


def response_from_completion(
    request: ModelRequest, model: str, data: Any, mode: Mode = "tools"
) -> ModelResponse:
    """Pick the answer object out of a completion: the forced function's
    arguments, or the JSON object in content.

    Raises `ModeFailure` when the reply shows the server did not answer this
    way at all (no tool call and no object; prose where the schema was asked
    for), and `MalformedAnswer` when it did but the object is cut off (stop
    reason "max_tokens": the caller asks again with a larger budget) or broken.
    Both carry the call's usage.
    """
    what = f"openai {request.tool.name}"
    choices = data.get("choices") if isinstance(data, Mapping) else None
    if not choices or not isinstance(choices[0], Mapping):
        raise ModelError(f"{what}: the reply has no choices")
    answered_by = str(data.get("model") or model)
    usage = usage_of(data, answered_by)
    choice = choices[0]
    message = _as_mapping(choice.get("message"))
    finish = choice.get("finish_reason")
    stop_reason = _STOP_REASONS.get(str(finish), finish) if finish is not None else None
    if stop_reason in REFUSAL_STOPS:
        # Filtered: whatever tool call came with it is not the answer (learn.models.call).
        raise RefusedAnswer(f"{what}: the model refused to answer (finish_reason {finish})",
                            usage=usage, stop_reason=stop_reason)
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c, Mapping)]
    named = [c for c in calls if (c.get("function") or {}).get("name") == request.tool.name]
    if mode == "tools" and calls and not named:
        # Only the offered function is an answer (learn.models.anthropic_backend). With
        # response_format no function is offered, and a server that answers with a call
        # anyway (the object as its arguments) is read as before.
        others = ", ".join(sorted({str((c.get("function") or {}).get("name")) for c in calls}))
        raise MalformedAnswer(f"{what}: the model called a function learn did not offer "
                              f"({others}), not {request.tool.name}", usage=usage,
                              stop_reason=stop_reason)
    tool_input: dict[str, Any] | None = None
    for call in named if mode == "tools" else named or calls:
        tool_input = _arguments(call)
        if tool_input is not None:
            break
    content = message.get("content")
    if tool_input is None and isinstance(content, str):
        tool_input = _content_object(content)
    if tool_input is None:
        started = isinstance(content, str) and content.lstrip().startswith("{")
        if calls or (mode != "tools" and started):
            cut = " (cut off at max_tokens)" if stop_reason == "max_tokens" else ""
            raise MalformedAnswer(f"{what}: the answer is not valid JSON{cut}", usage=usage, stop_reason=stop_reason)
        if mode != "tools":
            raise ModeFailure(
                f"{what}: the server ignored response_format and answered in prose (finish_reason {finish})",
                usage=usage, stop_reason=stop_reason,
            )
        raise ModeFailure(
            f"{what}: the model answered without calling the tool (finish_reason {finish})",
            usage=usage, stop_reason=stop_reason,
        )
    return ModelResponse(
        tool_input=strip_optional_nulls(tool_input, request.tool.input_schema),
        model=answered_by,
        usage=usage,
        stop_reason=stop_reason,
    )


class OpenAIBackend:
    """`Backend` over POST <base_url>/v1/chat/completions, json_schema first, tools as fallback."""

    name = "openai"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int | None = None,
        retry_seconds: float | None = None,
        limiter: RateLimiter | None = None,
        retry: RetryPolicy | None = None,
        memo_path: Path | None = None,
        remember: bool = True,
        only: Mode | None = None,
    ) -> None:
        url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not url:
            # No learn command has a --base-url: `learn run` passes [backend]
            # openai_base_url (LEARN_OPENAI_BASE_URL), `learn eval --live` hands the same
            # setting over as OPENAI_BASE_URL (learn.commands.eval). Those are named.
            raise ModelError(
                "openai backend needs a server: set [backend] openai_base_url in learn's "
                "config or LEARN_OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1)"
            )
        self.url = chat_completions_url(url)
        # The model the server should run. The pipeline's default model names
        # are Claude ids a local server does not know, so this one wins.
        self.model = model
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        self.timeout = timeout
        self._limiter = limiter if limiter is not None else limiter_for("openai")
        self._retry = retry if retry is not None else RetryPolicy(
            max_attempts=max_attempts,
            budget_seconds=DEFAULT_BUDGET_SECONDS if retry_seconds is None else retry_seconds)
        self.memo = EndpointMemo((memo_path or default_memo_path()) if remember else None)
        # One mode and no fallback: for measuring each mode on its own.
        self.only = only
        # Requests sent and answers got per mode: the benchmark reports them.
        self.requests: Counter[Mode] = Counter()
        self.answers: Counter[Mode] = Counter()
        self._count_lock = threading.Lock()

    @property
    def outage(self) -> Outage:
        """The failures its calls share (learn.models.retry.Outage): budget, reports, abort."""
        return self._retry.outage

    def abort(self) -> None:
        """Interrupted: every call waiting to retry stops waiting, and none retries again."""
        self._retry.outage.abort()

    def mode_for(self, model: str) -> Mode | None:
        """The mode remembered for this endpoint and model, None before the first answer."""
        return self.memo.get(self.url, model)

    def call(self, request: ModelRequest) -> ModelResponse:
        model = self.model or request.model
        remembered = self.only or self.mode_for(model)
        modes = (self.only,) if self.only else mode_order(remembered)
        what = f"openai {request.tool.name}"
        spent = CallUsage()
        failures: list[str] = []
        answered: ModeFailure | None = None
        for mode in modes:
            try:
                response = self._call_in_mode(request, model, mode)
            except ModeFailure as exc:
                spent = spent + exc.usage
                failures.append(f"{mode}: {str(exc).removeprefix(what + ': ')}")
                answered = exc if exc.usage.calls else answered
                continue
            except ModelError as exc:
                # Re-raised as it is (its type may say "truncated" to the caller),
                # carrying what the earlier mode's failure cost too.
                exc.usage = spent + exc.usage
                raise
            with self._count_lock:
                self.answers[mode] += 1
            if mode != remembered:
                self.memo.set(self.url, model, mode)
            return replace(response, usage=spent + response.usage)
        tried = f"none of {', '.join(modes)} gave an" if len(modes) > 1 else f"{modes[0]} gave no"
        message = f"{what}: {tried} answer ({'; '.join(failures)})"
        if answered is not None:
            # The model did answer, just not usably: worth another attempt upstream.
            raise MalformedAnswer(message, usage=spent, stop_reason=answered.stop_reason)
        raise ModelError(message, usage=spent)

    def _call_in_mode(self, request: ModelRequest, model: str, mode: Mode) -> ModelResponse:
        import httpx

        payload = build_payload(request, model, mode)
        headers = {"content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"

        def attempt() -> ModelResponse:
            with self._count_lock:
                self.requests[mode] += 1
            timeout = self._retry.attempt_timeout(self.timeout)
            with self._limiter.slot():
                try:
                    # httpx's timeout is per read; `within` bounds the whole exchange.
                    reply = within(timeout, lambda: httpx.post(
                        self.url, json=payload, headers=headers, timeout=timeout))
                except httpx.TimeoutException as exc:
                    raise TransientError(TIMED_OUT) from exc
                except httpx.HTTPError as exc:
                    # A transport failure, or a body that cannot be decoded (a gzip
                    # stream cut or garbled on the way: DecodingError is no TransportError).
                    raise TransientError(f"connection error to {self.url} ({type(exc).__name__})") from exc
            status = reply.status_code
            if status >= 400:
                reason = _error_text(reply)
                if status == 407:
                    proxy = proxy_for(self.url, os.environ)
                    raise ModelError(f"openai: {proxy_auth_failure(proxy, self.url)}; "
                                     f"fix: {proxy_auth_fix(proxy)}")
                if is_too_long(status, reason):
                    # The same in every mode: the request, not its shape, is too big.
                    raise PromptTooLong(f"openai: HTTP {status} {reason}")
                if mode != "tools" and status >= 500 and "response_format" in reply.text:
                    # llama-cpp-python answers a response_format it does not
                    # know with a 500 naming it: retrying cannot help.
                    raise ModeFailure(f"openai: HTTP {status} {reason}")
                if not is_retryable_status(status, reply.headers):
                    failed = (KeyRefused if status in (401, 403)
                              else ModeFailure if status not in _NOT_ABOUT_MODE else ModelError)
                    raise failed(f"openai: HTTP {status} {reason}{self._fix_for(status, reason)}")
                retry_after = parse_retry_after(reply.headers)
                pause = None if retry_after is None else self._retry.pause_for(retry_after)
                if status == 429 and pause is not None:
                    # Never past the budget: asking for more fails the call (pause_for).
                    self._limiter.pause(pause)
                raise TransientError(reason, status=status, retry_after=retry_after)
            try:
                data = reply.json()
            except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
                kind_of = str(reply.headers.get("content-type") or "")
                if is_html(reply.text, kind_of):  # a login page, not the server's answer
                    raise ModelError(f"openai {request.tool.name}: the reply from {self.url} is "
                                     f"{body_kind(reply.text, kind_of)} ({NOT_THE_API})") from exc
                if isinstance(exc, RecursionError):  # the same every time: final
                    raise ModelError(f"openai {request.tool.name}: the reply is not JSON "
                                     "(nested too deep to read)") from exc
                # Cut or replaced on the way (a gateway's text error page): the next
                # request may be answered, as an Anthropic reply cut the same way.
                raise TransientError(
                    f"the reply from {self.url} is not JSON",
                    fix="if it recurs, something between learn and the server cuts or "
                        "replaces its answers: check [backend] openai_base_url and HTTPS_PROXY",
                ) from exc
            return response_from_completion(request, model, data, mode)

        return run_with_retries(attempt, self._retry, what=f"openai {request.tool.name}")

    def _fix_for(self, status: int, reason: str) -> str:
        """What to change for a refusal that will not change by itself ("" when unsure)."""
        if status in (401, 403):
            return "; fix: set OPENAI_API_KEY to a key this server accepts"
        if status == 404:
            if "model" in reason.lower():
                return ("; fix: check the model name (the one the server runs: [models] mine, "
                        "or --model)")
            return (f"; fix: {self.url} is not there: check [backend] openai_base_url / "
                    "LEARN_OPENAI_BASE_URL (the server's address, ending in /v1)")
        return ""


def _error_text(reply: Any) -> str:
    try:
        data = reply.json()
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        kind_of = str(reply.headers.get("content-type") or "")
        if is_html(reply.text, kind_of):
            return f"with {body_kind(reply.text, kind_of)}"
        return error_line(reply.text) or reply.reason_phrase or "error"
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, Mapping):
        return error_line(str(error.get("message") or error.get("type") or "error"))
    if isinstance(error, str):
        return error_line(error)
    return reply.reason_phrase or "error"
