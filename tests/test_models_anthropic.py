"""The Anthropic backend: the real SDK against a fake Messages server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.anthropic_server import FakeAnthropicServer, items_in
from fakes.http_server import free_port
from pydantic import BaseModel

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.catalog import model_info
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

TOOL = ToolSpec(
    "record_candidates",
    "Record what the user keeps telling the agent.",
    {"type": "object", "properties": {"candidates": {"type": "array"}}, "required": ["candidates"]},
)


class Candidate(BaseModel):
    kind: str
    text: str


class Candidates(BaseModel):
    candidates: list[Candidate]


def request(user: str = "USER: use bun, not npm", model: str = "claude-haiku-4-5") -> ModelRequest:
    return ModelRequest("mine", model, "You read transcripts.", TOOL, user, max_tokens=1024)


@pytest.fixture
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


class Waits:
    """Records the retry waits instead of sleeping through them."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def backend_for(
    fake: FakeAnthropicServer, waits: Waits, *, attempts: int = 5, limiter: RateLimiter | None = None
) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="test-key",
        base_url=fake.base_url,
        limiter=limiter or RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=attempts, sleep=waits),
    )


def test_tool_use_answer_is_the_response(fake: FakeAnthropicServer) -> None:
    answer = {"candidates": [{"kind": "directive", "text": "use bun, not npm"}]}
    fake.enqueue_answer(answer)
    response = backend_for(fake, Waits()).call(request())
    assert response.tool_input == answer
    assert response.stop_reason == "tool_use"
    assert response.model == "claude-haiku-4-5"


def test_request_caches_the_fixed_prompt_and_forces_the_one_tool(fake: FakeAnthropicServer) -> None:
    backend_for(fake, Waits()).call(request("USER: chunk text"))
    (sent,) = fake.requests
    body = sent.json
    assert sent.path == "/v1/messages"
    assert sent.headers.get("authorization") == "Bearer test-key"
    assert body["system"] == [
        {"type": "text", "text": "You read transcripts.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [t["name"] for t in body["tools"]] == ["record_candidates"]
    assert body["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"] == dict(TOOL.input_schema)
    assert body["tool_choice"] == {"type": "tool", "name": "record_candidates"}
    assert body["messages"] == [{"role": "user", "content": "USER: chunk text"}]
    assert body["max_tokens"] == 1024
    assert sent.tool_name == "record_candidates" and sent.user_text == "USER: chunk text"


def test_usage_and_cost_come_from_the_reply(fake: FakeAnthropicServer) -> None:
    usage = {
        "input_tokens": 1000,
        "output_tokens": 200,
        "cache_creation_input_tokens": 3000,
        "cache_read_input_tokens": 40000,
    }
    fake.enqueue_answer({"candidates": []}, usage=usage)
    response = backend_for(fake, Waits()).call(request())
    u = response.usage
    assert (u.input_tokens, u.output_tokens, u.cache_write_tokens, u.cache_read_tokens, u.calls) == (
        1000, 200, 3000, 40000, 1,
    )
    expected = model_info("claude-haiku-4-5").cost(1000, 200, 3000, 40000)
    assert u.cost_usd == pytest.approx(expected)
    # haiku 4.5: $1 in, $5 out, $1.25 cache write, $0.10 cache read per MTok
    assert u.cost_usd == pytest.approx((1000 * 1.0 + 200 * 5.0 + 3000 * 1.25 + 40000 * 0.10) / 1e6)


def test_429_waits_the_retry_after_then_succeeds(fake: FakeAnthropicServer) -> None:
    waits = Waits()
    clock = [100.0]
    held: list[float] = []

    def limiter_sleep(seconds: float) -> None:  # a fake clock that moves when slept on
        held.append(seconds)
        clock[0] += seconds

    limiter = RateLimiter(None, None, clock=lambda: clock[0], sleep=limiter_sleep)
    fake.enqueue_status(429, headers={"retry-after": "7"})
    fake.enqueue_answer({"candidates": []})
    response = backend_for(fake, waits, limiter=limiter).call(request())
    assert response.tool_input == {"candidates": []}
    assert len(fake.requests) == 2
    # The retry waited what the server asked (not a backoff guess), and the
    # shared limiter was paused for every other worker too.
    assert waits.seconds == [7.0]
    assert limiter.paused_until == pytest.approx(107.0)
    assert held == [pytest.approx(7.0)]


def test_retry_after_ms_wins_over_retry_after(fake: FakeAnthropicServer) -> None:
    waits = Waits()
    fake.enqueue_status(429, headers={"retry-after-ms": "50", "retry-after": "9"})
    backend_for(fake, waits).call(request())
    assert waits.seconds[-1] == pytest.approx(0.05)


@pytest.mark.parametrize("status", [529, 500, 503])
def test_overloaded_and_server_errors_are_retried(fake: FakeAnthropicServer, status: int) -> None:
    waits = Waits()
    fake.enqueue_status(status, times=2)
    fake.enqueue_answer({"candidates": [{"kind": "fix", "text": "x"}]})
    response = backend_for(fake, waits).call(request())
    assert response.tool_input["candidates"][0]["kind"] == "fix"
    assert len(fake.requests) == 3
    assert len(waits.seconds) == 2  # backoff between attempts, no retry-after given
    assert all(0 < w <= 60 for w in waits.seconds)


def test_exhausted_retries_raise_model_error_naming_the_status(fake: FakeAnthropicServer) -> None:
    fake.enqueue_overloaded(times=3)
    with pytest.raises(ModelError, match=r"gave up after 3 attempts: HTTP 529 overloaded"):
        backend_for(fake, Waits(), attempts=3).call(request())
    assert len(fake.requests) == 3


def test_client_errors_are_not_retried(fake: FakeAnthropicServer) -> None:
    fake.enqueue_status(400, message="max_tokens: too large")
    with pytest.raises(ModelError, match=r"HTTP 400 .*too large"):
        backend_for(fake, Waits()).call(request())
    assert len(fake.requests) == 1


def test_malformed_tool_input_fails_validation_as_model_error(fake: FakeAnthropicServer) -> None:
    for _ in range(3):  # the answer and its two repairs
        fake.enqueue_answer({"candidates": [{"kind": "directive"}]})  # no text
    with pytest.raises(ModelError, match="record_candidates: answer did not match the schema after 3"):
        call_tool(backend_for(fake, Waits()), request(), Candidates)
    assert len(fake.requests) == 3


def test_valid_answer_passes_call_tool(fake: FakeAnthropicServer) -> None:
    fake.enqueue_answer({"candidates": [{"kind": "directive", "text": "use bun"}]})
    parsed, response = call_tool(backend_for(fake, Waits()), request(), Candidates)
    assert parsed.candidates[0].text == "use bun"
    assert response.usage.calls == 1


def test_truncated_answer_passes_stop_reason_through(fake: FakeAnthropicServer) -> None:
    fake.enqueue_truncated({"candidates": [{"kind": "directive", "text": "use b"}]})
    response = backend_for(fake, Waits()).call(request())
    assert response.stop_reason == "max_tokens"
    assert response.tool_input["candidates"][0]["text"] == "use b"


def test_answer_without_tool_use_is_a_model_error(fake: FakeAnthropicServer) -> None:
    fake.enqueue_text("I think the user likes bun.")
    with pytest.raises(ModelError, match="without calling the tool"):
        backend_for(fake, Waits()).call(request())


def test_connection_refused_gives_up_after_retries() -> None:
    waits = Waits()
    backend = AnthropicBackend(
        api_key="k",
        base_url=f"http://127.0.0.1:{free_port()}",
        limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=3, sleep=waits),
    )
    with pytest.raises(ModelError, match="gave up after 3 attempts: connection error"):
        backend.call(request())
    assert len(waits.seconds) == 2


def test_timeout_is_retried_then_fails(fake: FakeAnthropicServer) -> None:
    fake.enqueue_stall(2.0)
    fake.enqueue_stall(2.0)
    backend = AnthropicBackend(
        api_key="k",
        base_url=fake.base_url,
        timeout=0.2,
        limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=2, sleep=Waits()),
    )
    with pytest.raises(ModelError, match="gave up after 2 attempts: request timed out"):
        backend.call(request())
    assert len(fake.requests) == 2


def test_missing_key_is_a_one_line_hint() -> None:
    with pytest.raises(ModelError) as info:
        AnthropicBackend()
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "--backend claude-cli" in message
    assert "--offline" in message and "\n" not in message


def test_environment_points_the_backend_at_the_fake(
    fake: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in fake.env("env-key").items():
        monkeypatch.setenv(name, value)
    AnthropicBackend(limiter=RateLimiter(None, None)).call(request())
    assert fake.requests[0].headers["authorization"] == "Bearer env-key"


def test_default_responder_can_script_by_tool_and_items() -> None:
    def responder(req: object) -> dict[str, object]:
        items = items_in(getattr(req, "user_text", ""))
        return {"labels": [{"id": i, "label": f"{kind}-{i}"} for i, kind, _ in items]}

    tool = ToolSpec("assign_labels", "", {"type": "object"})
    user = "KNOWN LABELS:\n0. use-bun\n\nITEMS:\n1. [directive] use bun\n2. [fix] run tests"
    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url, limiter=RateLimiter(None, None))
        response = backend.call(ModelRequest("name", "claude-sonnet-4-6", "s", tool, user))
    assert response.tool_input == {
        "labels": [{"id": 1, "label": "directive-1"}, {"id": 2, "label": "fix-2"}]
    }


def test_model_rejecting_forced_tool_choice_is_asked_unforced(fake: FakeAnthropicServer) -> None:
    fake.enqueue_status(400, message="tool_choice forcing a tool is not supported with this model")
    fake.enqueue_answer({"candidates": []})
    fake.enqueue_answer({"candidates": []})
    backend = backend_for(fake, Waits())
    req = request(model="claude-somenew-9")
    assert backend.call(req).tool_input == {"candidates": []}
    backend.call(req)
    choices = [r.json["tool_choice"] for r in fake.requests]
    # Forced once, refused, then "auto" from then on without asking again.
    assert choices == [
        {"type": "tool", "name": "record_candidates"},
        {"type": "auto"},
        {"type": "auto"},
    ]


def test_catalog_unforced_model_accepts_json_written_as_text(fake: FakeAnthropicServer) -> None:
    fake.enqueue_text('Here it is:\n```json\n{"candidates": [{"kind": "fix", "text": "t"}]}\n```')
    response = backend_for(fake, Waits()).call(request(model="claude-sonnet-5-5"))
    assert fake.requests[0].json["tool_choice"] == {"type": "auto"}
    assert response.tool_input == {"candidates": [{"kind": "fix", "text": "t"}]}


def test_garbage_200_is_a_model_error(fake: FakeAnthropicServer) -> None:
    from fakes.http_server import Reply

    fake.enqueue(Reply(200, b"<html>proxy says hi</html>", {"content-type": "text/html"}))
    fake.enqueue(Reply(200, b"{not json", {"content-type": "application/json"}))
    backend = backend_for(fake, Waits())
    # A proxy's page is said for what it is, not blamed on the model
    # (tests/test_network_audit.py).
    with pytest.raises(ModelError, match="is an HTML page"):
        backend.call(request())
    # A body that is not whole JSON is retried (tests/test_flaky_answers.py): the next
    # request is answered; one that stays unparseable gives up saying so.
    assert backend.call(request()).tool_input
    assert len(fake.requests) == 3
    fake.enqueue(*[Reply(200, b"{not json", {"content-type": "application/json"})] * 5)
    with pytest.raises(ModelError, match="unparseable reply"):
        backend.call(request())
