"""The model backends' network edges, as a flaky network or a proxy serves them.

Every fault is a real socket on 127.0.0.1 (tests/fakes/http_server.py: a reply cut,
reset, trickled, an HTML page, a 407; the fake as an HTTP proxy) in front of the
real clients: the anthropic SDK and httpx. The bar: a failed call is retried, then
said in one line naming what to fix, never a client's exception type escaping, and
never the key or a proxy's password on the line.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import FakeHTTPServer, RecordedRequest, Reply, free_port
from fakes.openai_server import FakeOpenAIServer

from learn.config import Config, checked
from learn.mining.parse import check_answer
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import Backend, ModelError, ModelRequest, PromptTooLong, ToolSpec
from learn.models.call import call_checked
from learn.models.openai_backend import OpenAIBackend
from learn.models.preflight import check_backend_ready
from learn.models.ratelimit import RateLimiter
from learn.models.retry import MAX_SAME_FAILURES, RetryPolicy

KEY = "sk-ant-api03-network-audit-key-0123456789"
PROXY_PASSWORD = "proxy-pw-7f3a9c2e1b"
TOOL = ToolSpec("record_candidates", "Record.", {
    "type": "object", "properties": {"candidates": {"type": "array"}}, "required": ["candidates"]})
BACKENDS = ["anthropic", "openai"]


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, "USER: use bun",
                        max_tokens=256)


@pytest.fixture(autouse=True)
def _no_proxy_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture(scope="module", autouse=True)
def _sdk_loaded() -> None:
    # The SDK's import (2-3 s) is paid at a backend's first call, inside the time a
    # test measures: paid here instead.
    import anthropic  # noqa: F401


@pytest.fixture(params=BACKENDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server(kind: str) -> Iterator[FakeHTTPServer]:
    # The openai fake answers every request (json_schema mode too) with a valid answer.
    fake: FakeHTTPServer = FakeAnthropicServer() if kind == "anthropic" else FakeOpenAIServer(
        responder=lambda r: {"candidates": []})
    with fake:
        yield fake


def _backend(kind: str, url: str, *, timeout: float = 10.0, budget: float = 10.0) -> Backend:
    policy = RetryPolicy(budget_seconds=budget, sleep=lambda s: None)
    if kind == "anthropic":
        return AnthropicBackend(api_key=KEY, base_url=url, timeout=timeout,
                                limiter=RateLimiter(None, None), retry=policy)
    return OpenAIBackend(url + "/v1", "qwen3-coder", KEY, timeout=timeout,
                         limiter=RateLimiter(None, None), retry=policy, remember=False)


def _answer_bytes(kind: str) -> bytes:
    """A whole, valid answer of either API, as bytes on the wire."""
    if kind == "anthropic":
        return json.dumps({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "record_candidates",
                         "input": {"candidates": []}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}).encode()
    return json.dumps({
        "id": "c1", "object": "chat.completion", "model": "qwen3-coder",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function", "function": {
                    "name": "record_candidates", "arguments": "{\"candidates\": []}"}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).encode()


def _fails(backend: Backend) -> tuple[str, float]:
    """The one line a failed, checked call ends with, and how long it took."""
    started = time.monotonic()
    with pytest.raises(ModelError) as info:
        call_checked(backend, _request(), check_answer)
    line = str(info.value)
    assert "\n" not in line and KEY not in line and PROXY_PASSWORD not in line, line
    return line, time.monotonic() - started


# -- the connection breaks: retried, and an answer that then comes is used ---------

# A gzip header, then bytes no inflater accepts ("invalid code lengths set").
GZIP_GARBAGE = b"\x1f\x8b\x08\x00garbagegarbage"


@pytest.mark.parametrize("fault", [
    Reply(200, b'{"id": "msg_1", "type": "message", "content": [{"type": "tool_use"',
          cut=40, reset=True),  # connection reset in the middle of the body
    Reply(200, b'{"id": "msg_1"}', cut=0),  # the server closes after the headers
    Reply(200, b'{"id": "msg_1", "type": "message", "content": [', cut=20),  # cut mid-JSON
    Reply(200, GZIP_GARBAGE, {"content-encoding": "gzip"}),
], ids=["reset-mid-body", "closed-after-headers", "cut-mid-json", "gzip-garbage"])
def test_a_broken_reply_is_retried_and_the_next_answer_is_used(
        kind: str, server: FakeHTTPServer, fault: Reply) -> None:
    server.enqueue(fault, fault)
    response = _backend(kind, server.base_url).call(_request())
    assert response.tool_input == {"candidates": []}
    assert len(server.requests) == 3


def test_gzip_garbage_every_time_is_one_line_not_an_http_client_exception(
        kind: str, server: FakeHTTPServer) -> None:
    # openai: httpx's DecodingError is no TransportError; it escaped the backend as
    # itself, a traceback in any stage but mining.
    server.enqueue(*[Reply(200, GZIP_GARBAGE, {"content-encoding": "gzip"})] * 10)
    line, _ = _fails(_backend(kind, server.base_url))
    assert "gave up after" in line and "DecodingError" in line
    assert len(server.requests) == MAX_SAME_FAILURES


# -- a hung or trickling endpoint ends within the budget ----------------------------

def test_a_reply_that_trickles_in_ends_within_the_budget(kind: str, server: FakeHTTPServer) -> None:
    # A byte every 50 ms keeps every read inside a 0.5 s timeout, so the HTTP clients
    # never time out: 300 bytes held each attempt 15 s; a real answer, hours.
    slow = Reply(200, b" " * 300 + _answer_bytes(kind), trickle=0.05)
    server.enqueue(*[slow] * 5)
    line, took = _fails(_backend(kind, server.base_url, timeout=0.5, budget=1.5))
    assert "timed out" in line
    assert took < 6.0


# -- a 200 that is not the API's answer -----------------------------------------------

PORTAL = (b"<!DOCTYPE html><html><head><title>Guest Wi-Fi - please sign in</title></head>"
          b"<body><form>...</form></body></html>")


def test_a_captive_portal_page_is_named_and_not_asked_again(kind: str, server: FakeHTTPServer) -> None:
    # anthropic: "the model answered without calling the tool", asked three times.
    server.enqueue(*[Reply(200, PORTAL, {"content-type": "text/html; charset=utf-8"})] * 3)
    line, _ = _fails(_backend(kind, server.base_url))
    assert 'an HTML page "Guest Wi-Fi - please sign in"' in line and "captive portal" in line
    assert "without calling the tool" not in line
    assert len(server.requests) == 1


def test_a_login_page_labelled_json_is_named_too(kind: str, server: FakeHTTPServer) -> None:
    server.enqueue(Reply(200, PORTAL, {"content-type": "application/json"}))
    line, _ = _fails(_backend(kind, server.base_url))
    assert "an HTML page" in line and "captive portal" in line
    assert len(server.requests) == 1


@pytest.mark.parametrize("body", [
    {"id": "chatcmpl-1", "object": "chat.completion", "choices": []},  # another API's answer
    [1, 2, 3],
    None,
], ids=["another-api", "a-list", "null"])
def test_json_that_is_not_a_messages_answer_is_not_blamed_on_the_model(
        body: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeAnthropicServer() as fake:
        fake.enqueue(*[Reply(200, json.dumps(body).encode())] * 3)
        line, _ = _fails(_backend("anthropic", fake.base_url))
        assert "is not the API's JSON" in line and "ANTHROPIC_BASE_URL" in line
        assert "without calling the tool" not in line
        assert len(fake.requests) == 1


def test_an_empty_answer_from_a_real_model_is_still_asked_again() -> None:
    """The shape check does not catch a model's own empty answer (content [])."""
    with FakeAnthropicServer() as fake:
        fake.enqueue_text("")
        fake.enqueue_answer({"candidates": []})
        checked = call_checked(_backend("anthropic", fake.base_url), _request(), check_answer)
        assert checked.value == [] and len(fake.requests) == 2


# -- refusals that retrying cannot fix: said once, with the fix ------------------------

def test_a_refused_key_names_the_variable_to_fix(kind: str, server: FakeHTTPServer) -> None:
    if isinstance(server, FakeAnthropicServer):
        server.enqueue_status(401, message="invalid x-api-key")
    else:
        server.enqueue(Reply(401, {"error": {"message": "Incorrect API key provided"}}))
    line, _ = _fails(_backend(kind, server.base_url))
    variable = "ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY"
    assert "HTTP 401" in line and "fix: " in line and variable in line.split("fix: ")[1]
    assert len(server.requests) == 1


def test_a_404_on_messages_names_the_base_url_to_fix() -> None:
    with FakeAnthropicServer() as fake:
        line, _ = _fails(_backend("anthropic", fake.base_url + "/v1"))
        assert "HTTP 404" in line and "ANTHROPIC_BASE_URL" in line and "without /v1" in line
        assert len(fake.probes) == 1  # not retried


def test_a_404_for_an_unknown_model_names_the_model_not_the_url() -> None:
    with FakeAnthropicServer() as fake:
        fake.enqueue_status(404, message="model: claude-haiku-9-9")
        line, _ = _fails(_backend("anthropic", fake.base_url))
        assert "model name" in line and "ANTHROPIC_BASE_URL" not in line


def test_openai_404_names_the_server_address_to_fix() -> None:
    with FakeOpenAIServer() as fake:
        fake.enqueue(Reply(404, b"File Not Found", {"content-type": "text/plain"}))
        line, _ = _fails(_backend("openai", fake.base_url + "/api"))
        assert "HTTP 404" in line and "openai_base_url" in line
        assert len(fake.requests) == 1


@pytest.mark.parametrize("refusal", [
    (400, "prompt is too long: 210000 tokens > 200000 maximum"),
    (413, "Request exceeds the maximum allowed number of bytes."),
    (400, "the request exceeds the available context size, try increasing it"),
    (400, "This model's maximum context length is 8192 tokens. However, your messages "
          "resulted in 9000 tokens."),
], ids=["anthropic-400", "413", "llama-cpp-400", "openai-400"])
def test_a_prompt_too_long_is_sent_once_not_again_in_every_mode(
        kind: str, server: FakeHTTPServer, refusal: tuple[int, str]) -> None:
    # openai: the same request went out in all three modes (json_schema, json_object,
    # tools), each refused the same way.
    status, message = refusal
    server.enqueue(*[Reply(status, {"type": "error", "error": {
        "type": "invalid_request_error", "message": message}})] * 3)
    with pytest.raises(PromptTooLong):
        call_checked(_backend(kind, server.base_url), _request(), check_answer)
    assert len(server.requests) == 1


# -- proxies ---------------------------------------------------------------------------

def _proxy_url(port: int) -> str:
    return f"http://learn:{PROXY_PASSWORD}@127.0.0.1:{port}"


def test_a_proxy_asking_for_credentials_is_named_once_without_its_password(
        kind: str, server: FakeHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake is the proxy: an http endpoint's request goes to it whole, and it
    # answers 407. anthropic said "HTTP 407 407 <html>..."; openai sent it in three modes.
    monkeypatch.setenv("HTTP_PROXY", _proxy_url(server.port))
    server.enqueue(*[Reply(407, b"<html>Proxy Authentication Required</html>",
                           {"content-type": "text/html",
                            "proxy-authenticate": 'Basic realm="corp"'})] * 3)
    line, _ = _fails(_backend(kind, "http://model-gateway.internal"))
    assert f"the proxy http://127.0.0.1:{server.port} (HTTP_PROXY) asks for credentials" in line
    assert "user:password@" in line  # the fix
    assert len(server.requests) == 1


def _preflight(monkeypatch: pytest.MonkeyPatch, base_url: str, **env: str) -> str:
    """The preflight's line for the anthropic backend at `base_url` with `env` set (the
    HTTP client reads the proxy from the process's environment, so it is set there)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ready = check_backend_ready("anthropic", Config())
    line = ready.line()
    assert not ready.ok and KEY not in line and PROXY_PASSWORD not in line, line
    return line


def test_preflight_blames_a_dead_proxy_not_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    # Was: "nothing answers at https://api.anthropic.example (connection refused); fix:
    # check ANTHROPIC_BASE_URL", an endpoint never reached.
    port = free_port()
    line = _preflight(monkeypatch, "https://api.anthropic.example", HTTPS_PROXY=_proxy_url(port))
    assert line.startswith(f"anthropic: the proxy http://127.0.0.1:{port} (HTTPS_PROXY) "
                           "refuses connections")
    assert "fix: check HTTPS_PROXY" in line


class AuthProxy(FakeHTTPServer):
    """A proxy that wants credentials: 407 to everything, tunnels (CONNECT) included."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        return Reply(407, b"<html>Proxy Authentication Required</html>",
                     {"content-type": "text/html", "proxy-authenticate": 'Basic realm="corp"'})


def test_preflight_says_an_https_tunnel_refused_with_407_wants_credentials(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with AuthProxy() as proxy:
        port = proxy.port
        line = _preflight(monkeypatch, "https://api.anthropic.example",
                          https_proxy=_proxy_url(port))
        assert proxy.requests[0].method == "CONNECT"
    assert f"the proxy http://127.0.0.1:{port} (https_proxy) asks for credentials" in line
    assert "fix: put the proxy's user and password in its URL (https_proxy=" in line


def test_preflight_stops_at_a_407_from_a_plain_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Was: "answers (HTTP 407)", a pass, then one HTTP 407 per session.
    with AuthProxy() as proxy:
        line = _preflight(monkeypatch, "http://model-gateway.internal",
                          HTTP_PROXY=_proxy_url(proxy.port))
        assert proxy.requests[0].path == "http://model-gateway.internal/v1/models?limit=1"
    assert "(HTTP_PROXY) asks for credentials (HTTP 407" in line


def test_preflight_keeps_no_proxy_hosts_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")
        monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        assert check_backend_ready("anthropic", Config()).ok


def test_preflight_catches_a_base_url_ending_in_v1(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK adds /v1/messages itself: a gateway's address copied with its /v1 sent
    # every call to /v1/v1/messages, a 404 per session; the preflight passed.
    with FakeAnthropicServer() as fake:
        url = fake.base_url
        line = _preflight(monkeypatch, url + "/v1/")
    assert f"ends in /v1, so every call would go to {url}/v1/v1/messages" in line
    assert f"fix: set ANTHROPIC_BASE_URL / [backend] base_url to {url}:" in line


def test_openai_preflight_names_a_dead_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setenv("HTTP_PROXY", _proxy_url(port))
    config = checked(Config, {"backend": {"name": "openai",
                                          "openai_base_url": "http://llm.lan:8080/v1"}})
    ready = check_backend_ready("openai", config, env=os.environ)
    assert not ready.ok and PROXY_PASSWORD not in ready.line()
    assert ready.line().startswith(f"openai: the proxy http://127.0.0.1:{port} (HTTP_PROXY) "
                                   "refuses connections")
