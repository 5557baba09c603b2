"""The Anthropic Messages API backend, through the official SDK.

One request per call: the fixed prompt as a cached system block, exactly one
tool (also cached), `tool_choice` forcing it, and the chunk or item list as the
only user message. The answer is the tool_use block's input.

The SDK is imported at the first call (or in the constructor when no key is
given, to report a missing credential at once): `import anthropic` takes 2.2–2.8 s
(measured, SDK 2.14) and `learn --help` must not pay it. Its own retries are
off (`max_retries=0`); `learn.models.retry` owns retrying so the waits honour
`retry-after`, are shared with the other workers through the rate limiter, and
are visible to tests.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

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
    shown_url,
)
from learn.models.ratelimit import RateLimiter, Sent, limiter_for
from learn.models.ratelimit_headers import parse_limits
from learn.models.retry import (
    DEFAULT_BUDGET_SECONDS,
    Outage,
    RetryPolicy,
    TransientError,
    is_retryable_status,
    is_too_long,
    parse_retry_after,
    run_with_retries,
    within,
)

T = TypeVar("T")

MISSING_KEY_HINT = (
    "no Anthropic API key: set ANTHROPIC_API_KEY, or use --backend claude-cli, or --offline"
)

# A mining call writes at most a few thousand tokens; three minutes is slow
# enough for a loaded API and short enough that a stuck socket gets retried.
DEFAULT_TIMEOUT = 180.0

_EPHEMERAL: dict[str, str] = {"type": "ephemeral"}


def build_message_params(request: ModelRequest, *, forced: bool = True) -> dict[str, Any]:
    """The `messages.create` keyword arguments for one forced-tool call.

    cache_control sits on the tool and on the system block: tools come first in
    the cached prefix, then system, so both breakpoints together cache the whole
    fixed part and only the user message is paid at full price on repeat calls.
    `forced=False` is for models that reject a forced tool_choice: the one tool
    is still the only one offered, with tool_choice "auto".
    """
    tool = request.tool
    choice: dict[str, str] = {"type": "tool", "name": tool.name} if forced else {"type": "auto"}
    return {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "system": [{"type": "text", "text": request.system, "cache_control": _EPHEMERAL}],
        "tools": [
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": dict(tool.input_schema),
                "cache_control": _EPHEMERAL,
            }
        ],
        "tool_choice": choice,
        "messages": [{"role": "user", "content": request.user}, *correction_turns(request)],
    }


def correction_turns(request: ModelRequest) -> list[dict[str, Any]]:
    """Each earlier invalid answer as the assistant's tool call, then the error as its result.

    The model sees its own answer and exactly what was wrong with it, the way
    any tool error comes back to it, and is forced to call the tool again.
    """
    turns: list[dict[str, Any]] = []
    for n, fix in enumerate(request.corrections, start=1):
        tool_use_id = f"toolu_learn_repair_{n}"
        turns.append({
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": request.tool.name,
                         "input": dict(fix.answer)}],
        })
        turns.append({
            "role": "user",
            "content": [{
                "type": "tool_result", "tool_use_id": tool_use_id, "is_error": True,
                "content": f"The answer does not match the {request.tool.name} schema: {fix.error}. "
                f"Call {request.tool.name} again with the whole corrected answer.",
            }],
        })
    return turns


def usage_from_message(model: str, usage: Any) -> CallUsage:
    """Tokens and cost from an SDK `Usage` (cache fields may be missing or None)."""
    input_tokens = int(getattr(usage, "input_tokens", 0) or 0)
    output_tokens = int(getattr(usage, "output_tokens", 0) or 0)
    cache_write = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    cache_read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    cost = model_info(model).cost(input_tokens, output_tokens, cache_write, cache_read)
    return CallUsage(input_tokens, output_tokens, cache_read, cache_write, cost, 1)


def response_from_message(
    request: ModelRequest, message: Any, *, forced: bool = True
) -> ModelResponse:
    """Pick the forced tool's input out of an SDK `Message`.

    Unforced (a model that rejects tool_choice), a JSON object in the text is
    accepted when the model wrote its answer instead of calling the tool.
    Only the offered tool's block is an answer: a block naming another tool
    (`web_search` with `{"candidates": []}`) passed the schema and was cached
    as "nothing found". A refusal (`REFUSAL_STOPS`) is no answer, whatever
    block came with it (`RefusedAnswer`).
    """
    model = str(getattr(message, "model", None) or request.model)
    stop_reason = getattr(message, "stop_reason", None)
    if stop_reason in REFUSAL_STOPS:
        raise RefusedAnswer(
            f"{request.tool.name}: the model refused to answer (stop_reason {stop_reason})",
            usage=usage_from_message(model, getattr(message, "usage", None)), stop_reason=stop_reason,
        )
    blocks = list(getattr(message, "content", None) or [])
    tool_blocks = [b for b in blocks if getattr(b, "type", None) == "tool_use"]
    chosen = next((b for b in tool_blocks if getattr(b, "name", None) == request.tool.name), None)
    if chosen is None and not forced:
        text = "".join(str(getattr(b, "text", "")) for b in blocks if getattr(b, "type", None) == "text")
        found = extract_json_object(text)
        if found is not None:
            return ModelResponse(
                tool_input=found,
                model=model,
                usage=usage_from_message(model, getattr(message, "usage", None)),
                stop_reason=stop_reason,
            )
    # An unusable answer is still billed: the error carries its usage.
    if chosen is None and tool_blocks:
        others = ", ".join(sorted({str(getattr(b, "name", "?")) for b in tool_blocks}))
        raise MalformedAnswer(
            f"{request.tool.name}: the model called a tool learn did not offer ({others}), "
            f"not {request.tool.name} (stop_reason {stop_reason})",
            usage=usage_from_message(model, getattr(message, "usage", None)), stop_reason=stop_reason,
        )
    if chosen is None:
        raise MalformedAnswer(
            f"{request.tool.name}: the model answered without calling the tool (stop_reason {stop_reason})",
            usage=usage_from_message(model, getattr(message, "usage", None)), stop_reason=stop_reason,
        )
    tool_input = getattr(chosen, "input", None)
    if not isinstance(tool_input, dict):
        raise MalformedAnswer(
            f"{request.tool.name}: tool input is {type(tool_input).__name__}, not an object",
            usage=usage_from_message(model, getattr(message, "usage", None)), stop_reason=stop_reason,
        )
    return ModelResponse(
        tool_input=tool_input,
        model=model,
        usage=usage_from_message(model, getattr(message, "usage", None)),
        stop_reason=stop_reason,
    )


class AnthropicBackend:
    """`Backend` over the Anthropic Messages API (or anything speaking it at ANTHROPIC_BASE_URL)."""

    name = "anthropic"

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int | None = None,
        retry_seconds: float | None = None,
        limiter: RateLimiter | None = None,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or None
        self._timeout = timeout
        self._client_args: dict[str, Any] = {
            "base_url": base_url, "timeout": timeout, "max_retries": 0,
            **({"api_key": key} if key is not None else {}),
        }
        self._made: Any = None
        if key is None:
            # No key given: let the SDK look for its other credentials
            # (ANTHROPIC_AUTH_TOKEN, a profile) before calling it missing.
            self._make_client()
        # With a key, the SDK is imported at the first call: importing it took
        # 3.4 s of a warm `learn run` that makes no call at all (-X importtime).
        # Adaptive by default: the replies' headers replace the 50/minute guess.
        self._limiter = limiter if limiter is not None else limiter_for("anthropic")
        self._retry = retry if retry is not None else RetryPolicy(
            max_attempts=max_attempts,
            budget_seconds=DEFAULT_BUDGET_SECONDS if retry_seconds is None else retry_seconds)
        # Models seen rejecting a forced tool_choice (a 400 naming tool_choice).
        self._unforced: set[str] = set()

    @property
    def _client(self) -> Any:
        return self._made if self._made is not None else self._make_client()

    def _make_client(self) -> Any:
        import anthropic

        try:
            client = anthropic.Anthropic(**self._client_args)
        except anthropic.AnthropicError as exc:
            raise ModelError(f"{MISSING_KEY_HINT} ({exc})") from exc
        if client.api_key is None and client.auth_token is None and client.credentials is None:
            raise ModelError(MISSING_KEY_HINT)
        self._made = client
        return client

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    @property
    def endpoint(self) -> str:
        """The base URL as failures name it: without credentials (network.shown_url)."""
        return shown_url(self.base_url)

    @property
    def outage(self) -> Outage:
        """The failures its calls share (learn.models.retry.Outage): budget, reports, abort."""
        return self._retry.outage

    def abort(self) -> None:
        """Interrupted: every call waiting to retry stops waiting, and none retries again."""
        self._retry.outage.abort()

    def call(self, request: ModelRequest) -> ModelResponse:
        def attempt() -> ModelResponse:
            forced = self._forced(request.model)
            params = build_message_params(request, forced=forced)
            try:
                message = self._limited_send(params)
            except _ForcedToolRejected:
                # Learned once per model, then every later call goes unforced
                # straight away; this retry is not one of the counted attempts.
                self._unforced.add(request.model)
                params = build_message_params(request, forced=False)
                message = self._limited_send(params)
                forced = False
            return response_from_message(request, message, forced=forced)

        return run_with_retries(attempt, self._retry, what=f"anthropic {request.tool.name}")

    def _forced(self, model: str) -> bool:
        return model not in self._unforced and model_info(model).forced_tool_choice

    def _limited_send(self, params: dict[str, Any]) -> Any:
        """Send inside a limiter slot charged with the request's estimated input tokens."""
        chars = len(json.dumps(params, ensure_ascii=False))
        estimate = self._limiter.estimate_input_tokens(chars)
        with self._limiter.slot(estimate) as sent:
            return self._send(params, chars=chars, sent=sent)

    def _observe(
        self, headers: Mapping[str, str], *, chars: int, sent: Sent | None, usage: Any = None
    ) -> None:
        used: int | None = None
        if usage is not None:
            # What the input-token limit counts: uncached input and cache
            # writes; cache reads are not charged against it.
            used = int(getattr(usage, "input_tokens", 0) or 0) + int(
                getattr(usage, "cache_creation_input_tokens", 0) or 0
            )
            self._limiter.note_output(int(getattr(usage, "output_tokens", 0) or 0))
        limits = parse_limits(headers, now=time.time())
        self._limiter.observe(limits, chars=chars, used_tokens=used, sent=sent)

    def _send(self, params: dict[str, Any], *, chars: int = 0, sent: Sent | None = None) -> Any:
        client = self._client  # imports the SDK on the first call
        import anthropic  # loaded by now: a dict lookup

        timeout = self._retry.attempt_timeout(self._timeout)

        def exchange() -> tuple[Any, Any]:
            raw = client.messages.with_raw_response.create(**params, timeout=timeout)
            try:
                return raw, raw.parse()
            except ValueError as exc:
                body = str(raw.http_response.text)
                if is_html(body, str(raw.headers.get("content-type") or "")):
                    raise self._not_the_api(raw) from exc
                raise

        try:
            # The SDK's timeout is per read; `within` bounds the whole exchange.
            raw, message = within(timeout, exchange, endpoint=self.endpoint)
            self._observe(raw.headers, chars=chars, sent=sent,
                          usage=getattr(message, "usage", None))
            if not isinstance(getattr(message, "content", None), list):
                if getattr(message, "type", None) == "message":
                    # A Messages answer from the endpoint, in the wrong shape (a gateway's
                    # or the model server's bug): not the network's fault, and another
                    # sample may be whole, so it is asked again as a malformed answer is.
                    raise self._malformed_message(raw, message, str(params["model"]))
                # Not a Messages answer at all (a login page, another API's JSON):
                # no model was asked, and asking again gets the same page.
                raise self._not_the_api(raw)
            return message
        except anthropic.APIStatusError as exc:
            self._observe(exc.response.headers, chars=chars, sent=sent)
            what = _error_text(exc)
            if (
                exc.status_code == 400
                and "tool_choice" in what.lower()
                and params["tool_choice"].get("type") == "tool"
            ):
                raise _ForcedToolRejected(what) from exc
            raise self._translate(exc) from exc
        # RecursionError: a body nested past json's limit (~1,000 levels), raised from
        # inside the SDK's parse; an unparseable reply like any other.
        except (anthropic.AnthropicError, ValueError, RecursionError) as exc:
            raise self._translate(exc) from exc

    def _translate(self, exc: Exception, *, what: str = "anthropic") -> Exception:
        """An SDK failure as a `TransientError` (worth another attempt) or a final `ModelError`."""
        import anthropic

        if isinstance(exc, anthropic.APIStatusError):
            headers = exc.response.headers
            # Named as a connection error names it: behind a gateway (ANTHROPIC_BASE_URL)
            # "HTTP 500 api_error: api error" did not say whose 500 it was (audit61 F5).
            text = _error_text(exc)
            said = f"{text} from {self.endpoint}"
            status = exc.status_code
            if is_too_long(status, text):
                return PromptTooLong(f"{what}: HTTP {status} {said}", status=status)
            if status == 407:
                proxy = proxy_for(self.base_url, os.environ)
                return ModelError(f"{what}: {proxy_auth_failure(proxy, self.endpoint)}; "
                                  f"fix: {proxy_auth_fix(proxy)}")
            if not is_retryable_status(status, headers):
                failed = KeyRefused if status in (401, 403) else ModelError
                return failed(f"{what}: HTTP {status} {said}{self._fix_for(status, text, what)}",
                              status=status)
            retry_after = parse_retry_after(headers)
            pause = None if retry_after is None else self._retry.pause_for(retry_after)
            if exc.status_code == 429 and pause is not None:
                # Everyone waits, not just this worker: the limit is per account.
                # Never past the budget: asking for more fails the call (pause_for).
                self._limiter.pause(pause)
            return TransientError(said, status=exc.status_code, retry_after=retry_after)
        if isinstance(exc, anthropic.APITimeoutError):
            return TransientError(f"request timed out waiting for {self.endpoint}")
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({type(cause).__name__})" if cause is not None else ""
            return TransientError(f"connection error to {self.endpoint}{detail}")
        if isinstance(exc, anthropic.AnthropicError):
            # Anything else the SDK can raise (an unparseable 200, credentials
            # that failed to load) is final and must not escape as an SDK type.
            text = error_line(str(exc)) or type(exc).__name__
            return ModelError(f"{what}: {type(exc).__name__}: {text}")
        if type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "h11"):
            # A stream cut while its body was read (a batch's results): the
            # transport's own error, not wrapped by the SDK.
            return TransientError(f"connection error to {self.endpoint} ({type(exc).__name__})")
        if isinstance(exc, RecursionError):
            return ModelError(f"{what}: the reply from {self.endpoint} is nested too deep to read")
        # A 200 whose body claims JSON but is not whole JSON (cut by a gateway with a
        # matching content-length, or a proxy's text error page): the next request was
        # answered in the audit, so it is retried like a dropped connection. The
        # decoder's position stays out of the line, so the same fault reads the same.
        return TransientError(
            f"unparseable reply from {self.endpoint} (the body is not whole JSON)",
            fix="if it recurs, something between learn and the API cuts or replaces its "
                "answers: check ANTHROPIC_BASE_URL and HTTPS_PROXY")

    def _malformed_message(self, raw: Any, message: Any, model: str) -> MalformedAnswer:
        """A Messages-shaped 200 whose `content` is missing or not a list."""
        body = str(raw.http_response.text)
        try:
            keys = ", ".join(str(k) for k in json.loads(body)) or "none"
        except (ValueError, TypeError, RecursionError):
            keys = "unreadable"
        # Redacted whole, then cut (error_line): the body is the model's output.
        excerpt = error_line(body, 80)
        model = str(getattr(message, "model", None) or model)
        return MalformedAnswer(
            f"anthropic: the endpoint at {self.endpoint} sent a malformed Messages reply: no "
            f"content list (fields: {keys}; {excerpt!r}); fix: if it recurs, the endpoint "
            "at ANTHROPIC_BASE_URL (or a gateway in front of it) answers in the wrong shape: "
            "report it there, or unset ANTHROPIC_BASE_URL for api.anthropic.com",
            usage=usage_from_message(model, getattr(message, "usage", None)),
            stop_reason=getattr(message, "stop_reason", None))

    def _not_the_api(self, raw: Any) -> ModelError:
        """A 200 whose body is not a Messages answer: what it is, and where to look."""
        body, kind_of = str(raw.http_response.text), str(raw.headers.get("content-type") or "")
        why = f" ({NOT_THE_API})" if is_html(body, kind_of) else ""
        return ModelError(f"anthropic: the reply from {self.endpoint} is {body_kind(body, kind_of)}"
                          f"{why}; fix: check the network (a Wi-Fi login, HTTPS_PROXY) and "
                          "ANTHROPIC_BASE_URL")

    def _fix_for(self, status: int, text: str, what: str) -> str:
        """What to change for a refusal that will not change by itself ("" when unsure)."""
        if status in (401, 403):
            return ("; fix: check ANTHROPIC_API_KEY (a key from console.anthropic.com), or the "
                    "credentials the endpoint at ANTHROPIC_BASE_URL expects")
        if status == 404 and what == "anthropic":
            if "model" in text.lower():
                return "; fix: check the model name ([models] in the config, or --model)"
            return (f"; fix: {self.endpoint.rstrip('/')}/v1/messages is not there: check "
                    "ANTHROPIC_BASE_URL (the address without /v1: the client adds /v1/messages)")
        return ""

    def batch_call(self, what: str, fn: Callable[[Any], T]) -> T:
        """`fn(client)`, one Message Batches call (create, retrieve, results), under the
        retry policy and the rate limiter of a direct call: a 529 on a status poll
        is waited out like one on a mining call, and never escapes as an SDK type.

        Bounded as a direct call is: the SDK's timeout is per read, and a server
        trickling its reply held a status poll (or a results stream) for as long as it
        trickled; `within` ends the attempt at its timeout, as a TransientError retried
        under the same budget. A results stream is one attempt, so the timeout is its
        whole read's, as a direct call's is its whole answer's."""
        def attempt() -> T:
            client = self._client
            import anthropic

            timeout = self._retry.attempt_timeout(self._timeout)
            bounded = client.with_options(timeout=timeout)
            with self._limiter.slot():
                try:
                    return within(timeout, lambda: fn(bounded), endpoint=self.endpoint)
                except TransientError:  # cut at its deadline: retried as it is
                    raise
                except (anthropic.AnthropicError, ValueError, RecursionError) as exc:
                    raise self._translate(exc, what=f"anthropic batches {what}") from exc
                except Exception as exc:
                    err = self._translate(exc, what=f"anthropic batches {what}")
                    if isinstance(err, TransientError):
                        raise err from exc
                    raise

        return run_with_retries(attempt, self._retry, what=f"anthropic batches {what}")


class _ForcedToolRejected(Exception):
    """The model refused tool_choice forcing a tool (400); retry with "auto"."""


def _error_text(exc: Any) -> str:
    """A short reason for an API error: the error type and message from the body, or
    what the body is when it is not the API's (a gateway's or a proxy's HTML page)."""
    kind = getattr(exc, "type", None)
    message = getattr(exc, "api_message", None)
    parts = [str(p) for p in (kind, message) if p]
    if parts:
        text = ": ".join(parts)
    else:
        response = getattr(exc, "response", None)
        try:
            body = str(response.text) if response is not None else ""
            kind_of = str(response.headers.get("content-type") or "") if response is not None else ""
        except Exception:  # a body that cannot be read: the SDK's own words
            body, kind_of = "", ""
        text = (f"with {body_kind(body, kind_of)}" if is_html(body, kind_of)
                else str(getattr(exc, "message", "") or "error"))
    return error_line(text) or "error"
