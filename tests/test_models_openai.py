"""The OpenAI-compatible backend against a fake /v1/chat/completions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.http_server import free_port
from fakes.openai_server import FakeOpenAIServer

from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.openai_backend import OpenAIBackend, chat_completions_url
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

SCHEMA = {"type": "object", "properties": {"labels": {"type": "array"}}}
TOOL = ToolSpec("assign_labels", "Name each item.", SCHEMA)
ANSWER = {"labels": [{"id": 1, "label": "use-bun"}]}


def request() -> ModelRequest:
    return ModelRequest("name", "claude-sonnet-4-6", "Name things.", TOOL, "ITEMS:\n1. [directive] use bun", 512)


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def backend_for(fake: FakeOpenAIServer, waits: list[float] | None = None, **kw: object) -> OpenAIBackend:
    return OpenAIBackend(
        fake.base_url + "/v1",
        "qwen3-coder",
        limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=3, sleep=(waits if waits is not None else []).append),
        **kw,  # type: ignore[arg-type]
    )


def test_function_call_arguments_are_the_answer(fake: FakeOpenAIServer) -> None:
    fake.enqueue_answer(ANSWER)
    response = backend_for(fake).call(request())
    assert response.tool_input == ANSWER
    assert response.stop_reason == "tool_use"
    assert response.model == "qwen3-coder"
    u = response.usage
    assert (u.input_tokens, u.output_tokens, u.calls, u.cost_usd) == (120, 30, 1, 0.0)


def test_request_offers_one_function_and_forces_it(fake: FakeOpenAIServer) -> None:
    backend_for(fake, api_key="sk-local").call(request())
    (sent,) = fake.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-local"
    body = sent.json
    assert body["model"] == "qwen3-coder"  # the server's model, not the Claude default
    assert body["messages"] == [
        {"role": "system", "content": "Name things."},
        {"role": "user", "content": "ITEMS:\n1. [directive] use bun"},
    ]
    assert body["tools"] == [
        {"type": "function", "function": {"name": "assign_labels", "description": "Name each item.", "parameters": SCHEMA}}
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "assign_labels"}}
    assert body["max_tokens"] == 512
    assert sent.tool_name == "assign_labels" and sent.system_text == "Name things."


def test_no_key_sends_no_authorization(fake: FakeOpenAIServer) -> None:
    backend_for(fake).call(request())
    assert "authorization" not in fake.requests[0].headers


def test_fenced_json_in_content_is_accepted(fake: FakeOpenAIServer) -> None:
    fake.enqueue_content('Sure!\n```json\n{"labels": [{"id": 1, "label": "use-bun"}]}\n```')
    response = backend_for(fake).call(request())
    assert response.tool_input == ANSWER
    assert response.stop_reason == "end_turn"


def test_prefixed_json_arguments_are_accepted(fake: FakeOpenAIServer) -> None:
    fake.enqueue_answer('<tool_call> {"labels": []}')
    assert backend_for(fake).call(request()).tool_input == {"labels": []}


def test_length_finish_maps_to_max_tokens(fake: FakeOpenAIServer) -> None:
    fake.enqueue_answer({"labels": []}, finish_reason="length")
    assert backend_for(fake).call(request()).stop_reason == "max_tokens"


def test_no_tool_call_and_no_json_is_a_model_error(fake: FakeOpenAIServer) -> None:
    fake.enqueue_content("I am not sure what you mean.")
    with pytest.raises(ModelError, match="without calling the tool"):
        backend_for(fake).call(request())


def test_server_errors_are_retried_with_retry_after(fake: FakeOpenAIServer) -> None:
    waits: list[float] = []
    fake.enqueue_status(503, headers={"retry-after": "2"})
    fake.enqueue_status(500)
    fake.enqueue_answer(ANSWER)
    assert backend_for(fake, waits).call(request()).tool_input == ANSWER
    assert len(fake.requests) == 3
    assert waits[0] == 2.0 and len(waits) == 2


def test_exhaustion_names_the_status(fake: FakeOpenAIServer) -> None:
    fake.enqueue_status(503, times=3)
    with pytest.raises(ModelError, match="gave up after 3 attempts: HTTP 503 fake error 503"):
        backend_for(fake).call(request())


def test_bad_request_is_final(fake: FakeOpenAIServer) -> None:
    fake.enqueue_status(400)
    with pytest.raises(ModelError, match="HTTP 400"):
        backend_for(fake).call(request())
    assert len(fake.requests) == 1


def test_connection_refused_gives_up() -> None:
    waits: list[float] = []
    backend = OpenAIBackend(
        f"http://127.0.0.1:{free_port()}", "m", limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=2, sleep=waits.append),
    )
    with pytest.raises(ModelError, match="gave up after 2 attempts: connection error"):
        backend.call(request())
    assert len(waits) == 1


def test_missing_base_url_is_a_clear_error() -> None:
    with pytest.raises(ModelError, match="OPENAI_BASE_URL"):
        OpenAIBackend()


def test_base_url_forms() -> None:
    assert chat_completions_url("http://h:8080") == "http://h:8080/v1/chat/completions"
    assert chat_completions_url("http://h:8080/v1/") == "http://h:8080/v1/chat/completions"
    assert chat_completions_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
