"""A flaky Messages endpoint's odd answers (the network audit, F1-F3, F6, F7): a refused
answer, a tool learn did not offer, a 200 whose body is cut or not JSON, a Messages reply
without `content`, and the words a call uses when it gives up. Every case through the real
anthropic SDK (or learn's httpx client for the OpenAI-compatible backend) against the fake
servers on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _mining_helpers import make_session, tool, user
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import Reply
from fakes.openai_server import FakeOpenAIServer

from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.mining.parse import check_answer
from learn.mining.prompt import build_request
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import MalformedAnswer, ModelError, RefusedAnswer
from learn.models.call import call_checked
from learn.models.openai_backend import OpenAIBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy, TransientError, run_with_retries
from learn.transcripts.view.model import Session

MODEL = "claude-haiku-4-5"
FOUND = {"candidates": [{"kind": "directive", "text": "we use bun here"}]}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=lambda r: FOUND) as server:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        yield server


def _backend(fake: FakeAnthropicServer) -> AnthropicBackend:
    return AnthropicBackend(api_key="sk-ant-api03-dummy", base_url=fake.base_url,
                            limiter=RateLimiter(None, None),
                            retry=RetryPolicy(initial_backoff=0, jitter=0, sleep=lambda s: None))


def _request() -> object:
    return build_request("user: we use bun here", model=MODEL, max_tokens=1024)


def _session(tmp_path: Path) -> Session:
    p = tmp_path / "s0.jsonl"
    p.write_text("transcript 0")
    return make_session([user("we use bun here, ok?", 0), tool("Bash", "git status", 1)],
                        sid="s0", path=p)


# -- F1: a refusal is no answer ------------------------------------------------------


def test_a_refusal_with_an_empty_tool_call_is_asked_again_not_taken(fake: FakeAnthropicServer) -> None:
    fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
    got = call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    # Was: [] after 1 request ("nothing found"), with stop_reason "refusal".
    assert [c.text for c in got.value] == ["we use bun here"]
    assert got.response.stop_reason == "tool_use" and len(fake.requests) == 2


def test_a_refusal_twice_fails_the_call(fake: FakeAnthropicServer) -> None:
    fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
    fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
    with pytest.raises(RefusedAnswer, match="the model refused to answer") as caught:
        call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    assert len(fake.requests) == 2
    assert caught.value.usage.calls == 2  # both refusals were billed


def test_a_refused_session_is_not_cached_and_the_next_run_asks_again(
        fake: FakeAnthropicServer, tmp_path: Path) -> None:
    session, cache = _session(tmp_path), MineCache()
    fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
    fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
    [first] = mine_sessions([session], _backend(fake), model=MODEL, cache=cache, concurrency=1)
    # Was: complete, 0 candidates, cached as mined: never asked again.
    assert first.failed and "refused" in (first.error or "")
    assert cache.get(cache.key_for_file(session.path)) is None  # type: ignore[arg-type]
    [second] = mine_sessions([session], _backend(fake), model=MODEL, cache=cache, concurrency=1)
    assert not second.cached and [c.text for c in second.candidates] == ["we use bun here"]
    assert len(fake.requests) == 3


def test_naming_a_refusal_fails_the_call_so_the_stage_falls_back(fake: FakeAnthropicServer) -> None:
    from pydantic import BaseModel

    from learn.models.base import ToolSpec
    from learn.models.call import call_tool

    class Labels(BaseModel):
        labels: list[str]

    spec = ToolSpec("assign_labels", "names", {"type": "object", "properties": {
        "labels": {"type": "array", "items": {"type": "string"}}}, "required": ["labels"]})
    from learn.models.base import ModelRequest

    req = ModelRequest("name", MODEL, "name them", spec, "ITEMS:\n1. use bun")
    fake.enqueue_answer({"labels": []}, stop_reason="refusal")
    fake.enqueue_answer({"labels": []}, stop_reason="refusal")
    # Was: ([], …) taken as the model's names and stored for good.
    with pytest.raises(RefusedAnswer):
        call_tool(_backend(fake), req, Labels)


def test_an_openai_content_filter_stop_is_a_refusal_too() -> None:
    with FakeOpenAIServer() as fake:
        backend = OpenAIBackend(fake.base_url + "/v1", "qwen3-coder", "sk-dummy",
                                limiter=RateLimiter(None, None),
                                retry=RetryPolicy(sleep=lambda s: None), remember=False)
        fake.enqueue_answer({"candidates": []}, finish_reason="content_filter")
        fake.enqueue_answer({"candidates": []}, finish_reason="content_filter")
        # Was: [] accepted after 1 request, stop_reason "content_filter".
        with pytest.raises(RefusedAnswer, match="content_filter"):
            call_checked(backend, build_request("user: use bun", model="qwen3-coder",
                                                max_tokens=512), check_answer)
        assert len(fake.requests) == 2


# -- F2: only the offered tool is an answer --------------------------------------------


def test_a_tool_learn_did_not_offer_is_not_the_answer(fake: FakeAnthropicServer) -> None:
    fake.enqueue_answer({"candidates": []}, tool_name="web_search")
    got = call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    # Was: [] from the web_search block, after 1 request.
    assert [c.text for c in got.value] == ["we use bun here"] and len(fake.requests) == 2


def test_only_unoffered_tools_every_time_fails_as_malformed(fake: FakeAnthropicServer) -> None:
    for _ in range(3):
        fake.enqueue_answer({"command": "rm -rf /"}, tool_name="bash")
    with pytest.raises(MalformedAnswer, match="did not offer \\(bash\\)"):
        call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    # Never sent back as learn's own tool call in a repair turn.
    assert all("rm -rf" not in json.dumps(r.json.get("messages")) for r in fake.requests)


def test_openai_a_function_learn_did_not_offer_is_not_the_answer() -> None:
    with FakeOpenAIServer() as fake:
        backend = OpenAIBackend(fake.base_url + "/v1", "qwen3-coder", "sk-dummy",
                                limiter=RateLimiter(None, None),
                                retry=RetryPolicy(sleep=lambda s: None), remember=False,
                                only="tools")

        def other(request: object) -> dict[str, object]:
            call = {"id": "c1", "type": "function",
                    "function": {"name": "web_search", "arguments": '{"candidates": []}'}}
            return fake.completion_body(request, {"role": "assistant", "content": None,  # type: ignore[arg-type]
                                                  "tool_calls": [call]}, finish_reason="tool_calls")

        fake.enqueue(Reply(200, other))  # type: ignore[arg-type]
        fake.enqueue_answer(FOUND)
        got = call_checked(backend, build_request("user: we use bun here", model="qwen3-coder",
                                                  max_tokens=512), check_answer)
        assert [c.text for c in got.value] == ["we use bun here"] and len(fake.requests) == 2


# -- F3: a 200 whose body is cut or not JSON is retried ------------------------------


def _whole() -> bytes:
    return json.dumps({"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL,
                       "content": [{"type": "tool_use", "id": "t1", "name": "record_candidates",
                                    "input": FOUND}],
                       "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}
                       }).encode()


@pytest.mark.parametrize("body", [_whole()[: len(_whole()) // 2], b"upstream connect error"],
                         ids=["cut-json", "not-json"])
def test_a_200_that_is_not_whole_json_is_retried(fake: FakeAnthropicServer, body: bytes) -> None:
    fake.enqueue(Reply(200, body))
    got = call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    # Was: final "unparseable reply" after 1 request.
    assert [c.text for c in got.value] == ["we use bun here"] and len(fake.requests) == 2


def test_a_body_cut_every_time_gives_up_in_a_few_attempts_with_a_fix(fake: FakeAnthropicServer) -> None:
    fake.enqueue(*[Reply(200, _whole()[:100])] * 6)
    with pytest.raises(ModelError) as caught:
        call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    line = str(caught.value)
    assert "gave up after 4 attempts: unparseable reply" in line and "the same failure" in line
    assert "fix: if it recurs" in line and "ANTHROPIC_BASE_URL" in line
    assert len(fake.requests) == 4


def test_openai_a_200_that_is_not_json_is_retried() -> None:
    with FakeOpenAIServer() as fake:
        backend = OpenAIBackend(fake.base_url + "/v1", "qwen3-coder", "sk-dummy",
                                limiter=RateLimiter(None, None),
                                retry=RetryPolicy(sleep=lambda s: None), remember=False,
                                only="tools")
        fake.enqueue(Reply(200, b'{"choices": [{"message"'))
        fake.enqueue_answer(FOUND)
        got = call_checked(backend, build_request("user: we use bun here", model="qwen3-coder",
                                                  max_tokens=512), check_answer)
        # Was: final "the reply is not JSON" after 1 request.
        assert [c.text for c in got.value] == ["we use bun here"] and len(fake.requests) == 2


# -- F6: a Messages reply without content is the endpoint's malformed answer ------------


def test_a_message_without_content_is_a_malformed_reply_not_the_network(
        fake: FakeAnthropicServer) -> None:
    secret = "sk-ant-api03-" + "A" * 40
    body = {"id": "msg_x", "type": "message", "role": "assistant", "model": MODEL,
            "stop_reason": "end_turn", "note": secret,
            "usage": {"input_tokens": 1, "output_tokens": 1}}
    fake.enqueue(*[Reply(200, json.dumps(body).encode())] * 3)
    with pytest.raises(MalformedAnswer) as caught:
        call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]
    line = str(caught.value)
    # Was: "is not the API's JSON …; fix: check the network (a Wi-Fi login, HTTPS_PROXY)".
    assert "malformed Messages reply: no content list" in line
    assert "Wi-Fi" not in line and "HTTPS_PROXY" not in line
    assert secret not in line and "fields: id, type, role, model" in line
    assert len(fake.requests) == 3  # asked again as a malformed answer is


def test_another_apis_json_is_still_not_the_api(fake: FakeAnthropicServer) -> None:
    fake.enqueue(Reply(200, json.dumps({"object": "chat.completion", "choices": []}).encode()))
    with pytest.raises(ModelError, match="is not the API's JSON"):
        call_checked(_backend(fake), _request(), check_answer)  # type: ignore[arg-type]


# -- F7: the words of giving up ---------------------------------------------------------


def test_one_attempt_that_used_the_budget_does_not_say_it_retried() -> None:
    def stalled() -> None:
        raise TransientError("request timed out")

    policy = RetryPolicy(budget_seconds=0.0, sleep=lambda s: None)
    with pytest.raises(ModelError) as caught:
        run_with_retries(stalled, policy, what="anthropic record_candidates")
    line = str(caught.value)
    # Was: "gave up after 1 attempt: request timed out (retried for 0 s)".
    assert "gave up after 1 attempt: request timed out (not retried:" in line
    assert "retried for" not in line


def test_a_cap_on_attempts_is_said_as_one() -> None:
    def failing() -> None:
        raise TransientError("overloaded", status=529)

    with pytest.raises(ModelError, match=r"gave up after 2 attempts: HTTP 529 overloaded "
                                         r"\(at most 2 attempts\)"):
        run_with_retries(failing, RetryPolicy(max_attempts=2, sleep=lambda s: None), what="t")
