"""The OpenAI-compatible backend against a fake /v1/chat/completions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.http_server import Reply, free_port
from fakes.openai_modes_server import ModesServer
from fakes.openai_server import FakeOpenAIServer
from pydantic import BaseModel

from learn.mining.parse import parse_candidates
from learn.mining.prompt import TOOL as MINE_TOOL
from learn.models.base import MalformedAnswer, ModelError, ModelRequest, ToolSpec
from learn.models.call import call_tool
from learn.models.meter import UsageMeter
from learn.models.openai_backend import OpenAIBackend, chat_completions_url
from learn.models.openai_modes import MEMO_FILE, Mode, strict_schema
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.reduce.answers import LabelsAnswer, VerdictsAnswer
from learn.reduce.commands import WRITE_COMMANDS, CommandsAnswer
from learn.reduce.coverage import CHECK_COVERAGE
from learn.reduce.judge import RECORD_VERDICTS
from learn.reduce.naming import ASSIGN_LABELS

SCHEMA = {"type": "object", "properties": {"labels": {"type": "array"}}}
TOOL = ToolSpec("assign_labels", "Name each item.", SCHEMA)
ANSWER = {"labels": [{"id": 1, "label": "use-bun"}]}


def request() -> ModelRequest:
    return ModelRequest("name", "claude-sonnet-4-6", "Name things.", TOOL, "ITEMS:\n1. [directive] use bun", 512)


def mine_request() -> ModelRequest:
    return ModelRequest("mine", "m", "Find directives.", MINE_TOOL, "USER: use bun, not npm", 512)


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def backend_for(
    fake: FakeOpenAIServer, waits: list[float] | None = None, *, mode: Mode | None = "tools", **kw: object
) -> OpenAIBackend:
    """A backend for `fake`; `mode` is what an earlier run remembered for it (None: nothing yet)."""
    backend = OpenAIBackend(
        fake.base_url + "/v1",
        "qwen3-coder",
        limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=3, sleep=(waits if waits is not None else []).append),
        **kw,  # type: ignore[arg-type]
    )
    if mode is not None:
        backend.memo.set(backend.url, "qwen3-coder", mode)
    return backend


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


def test_cut_tool_arguments_are_a_cut_answer_not_their_first_whole_row(fake: FakeOpenAIServer) -> None:
    fake.enqueue_answer('{"labels": [{"id": 1, "label": "use-bun"}, {"id": 2, "lab', finish_reason="length")
    with pytest.raises(MalformedAnswer, match="cut off at max_tokens") as info:
        backend_for(fake).call(request())
    assert info.value.stop_reason == "max_tokens" and len(fake.requests) == 1


def test_length_finish_maps_to_max_tokens(fake: FakeOpenAIServer) -> None:
    fake.enqueue_answer({"labels": []}, finish_reason="length")
    assert backend_for(fake).call(request()).stop_reason == "max_tokens"


def test_no_tool_call_and_no_json_in_any_mode_is_a_model_error(fake: FakeOpenAIServer) -> None:
    fake.enqueue_content("I am not sure what you mean.")
    fake.enqueue_content("Still not sure.")
    fake.enqueue_content("Really not sure.")
    with pytest.raises(ModelError, match=r"none of tools, json_schema, json_object gave an answer.*without calling the tool"):
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


def test_bad_request_is_final_once_every_mode_was_refused(fake: FakeOpenAIServer) -> None:
    fake.enqueue_status(400, times=3)
    with pytest.raises(ModelError, match="HTTP 400"):
        backend_for(fake).call(request())
    assert len(fake.requests) == 3  # one per mode, never retried


def test_auth_error_does_not_try_the_other_mode(fake: FakeOpenAIServer) -> None:
    fake.enqueue_status(401)
    with pytest.raises(ModelError, match="HTTP 401"):
        backend_for(fake, mode=None).call(request())
    assert len(fake.requests) == 1


def test_connection_refused_gives_up() -> None:
    waits: list[float] = []
    backend = OpenAIBackend(
        f"http://127.0.0.1:{free_port()}", "m", limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=2, sleep=waits.append),
    )
    with pytest.raises(ModelError, match="gave up after 2 attempts: connection error"):
        backend.call(request())
    assert len(waits) == 1  # a dead server is not a reason to try the other mode


def test_missing_base_url_is_a_clear_error() -> None:
    with pytest.raises(ModelError, match="OPENAI_BASE_URL"):
        OpenAIBackend()


def test_base_url_forms() -> None:
    assert chat_completions_url("http://h:8080") == "http://h:8080/v1/chat/completions"
    assert chat_completions_url("http://h:8080/v1/") == "http://h:8080/v1/chat/completions"
    assert chat_completions_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


# -- json_schema first, tools as fallback, remembered per endpoint ---------------

MINE_ROW = {"kind": "directive", "text": "use bun, not npm", "rationale": None, "command": None,
            "error_excerpt": None, "intervening_commands": None, "edited_files": None}


def modes_backend(fake: ModesServer, model: str = "gemma", **kw: object) -> OpenAIBackend:
    return OpenAIBackend(
        fake.base_url, model, limiter=RateLimiter(None, None),
        retry=RetryPolicy(max_attempts=2, sleep=[].append), **kw,  # type: ignore[arg-type]
    )


def test_json_schema_is_asked_first_with_a_strict_closed_schema() -> None:
    with ModesServer() as fake:
        modes_backend(fake).call(mine_request())
    (sent,) = fake.requests
    body = sent.json
    assert "tools" not in body and "tool_choice" not in body
    spec = body["response_format"]
    assert spec["type"] == "json_schema"
    assert spec["json_schema"]["name"] == "record_candidates" and spec["json_schema"]["strict"] is True
    row = spec["json_schema"]["schema"]["properties"]["candidates"]["items"]
    assert row["additionalProperties"] is False
    assert set(row["required"]) == set(row["properties"])  # strict: every key present...
    assert row["properties"]["command"] == {"anyOf": [{"type": "string", "description": "fix: the command that failed"}, {"type": "null"}]}
    assert row["properties"]["kind"]["enum"] == ["directive", "fix", "request"]  # ...required ones unchanged


def test_json_schema_content_is_the_answer_without_the_optional_nulls() -> None:
    with ModesServer(answer=lambda name, r: {"candidates": [MINE_ROW]}) as fake:
        response = modes_backend(fake).call(mine_request())
    assert response.tool_input == {"candidates": [{"kind": "directive", "text": "use bun, not npm"}]}
    assert response.stop_reason == "end_turn"
    assert (response.usage.calls, response.usage.input_tokens) == (1, 120)


def test_a_server_rejecting_response_format_falls_back_to_tools_and_is_remembered() -> None:
    with ModesServer(json_schema="reject") as fake:
        backend = modes_backend(fake)
        first = backend.call(request())
        assert fake.modes == ["json_schema", "json_object", "tools"]
        assert first.tool_input == {"labels": []}
        assert first.usage.calls == 1  # the 400s produced no completion
        backend.call(request())
        assert fake.modes[3:] == ["tools"]  # no probe the second time
        # The next run (a new backend, same cache dir) starts with tools too.
        modes_backend(fake).call(request())
        assert fake.modes[4:] == ["tools"] and len(fake.requests) == 5
    assert backend.requests == {"json_schema": 1, "json_object": 1, "tools": 2}
    assert backend.answers == {"tools": 2}


def test_a_server_ignoring_response_format_falls_back_to_tools() -> None:
    with ModesServer(json_schema="ignore") as fake:
        backend = modes_backend(fake)
        response = backend.call(request())
        assert fake.modes == ["json_schema", "json_object", "tools"]
        assert response.tool_input == {"labels": []}
        assert response.usage.calls == 3  # the prose answers were completions too
        assert backend.mode_for("gemma") == "tools"


def test_tools_that_ramble_to_max_tokens_switch_to_json_schema_and_count_the_ramble() -> None:
    with ModesServer(tools="ramble", answer=lambda name, r: {"candidates": [MINE_ROW]}) as fake:
        backend = modes_backend(fake)
        backend.memo.set(backend.url, "gemma", "tools")  # what an earlier run learnt
        response = backend.call(mine_request())
        assert fake.modes == ["tools", "json_schema"]
        assert response.tool_input["candidates"][0]["text"] == "use bun, not npm"
        u = response.usage
        assert (u.calls, u.output_tokens) == (2, 512 + 30)  # the rambled max_tokens are counted
        assert backend.mode_for("gemma") == "json_schema"
        backend.call(mine_request())
        assert fake.modes == ["tools", "json_schema", "json_schema"]


def test_the_mode_is_remembered_per_endpoint_and_model() -> None:
    with ModesServer(json_schema="reject") as fake:
        modes_backend(fake, "small").call(request())
        other = modes_backend(fake, "big")
        assert other.mode_for("big") is None and other.mode_for("small") == "tools"


def test_the_memo_is_a_private_file_in_the_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_CACHE_DIR", str(tmp_path / "cache"))
    with ModesServer() as fake:
        modes_backend(fake).call(request())
        url = fake.base_url
    memo = tmp_path / "cache" / MEMO_FILE
    assert json.loads(memo.read_text()) == {f"{url}/v1/chat/completions gemma": "json_schema"}
    assert memo.stat().st_mode & 0o777 == 0o600


def test_an_unreadable_memo_only_costs_a_probe(tmp_path: Path) -> None:
    memo = tmp_path / "endpoints.json"
    memo.write_text("{not json")
    with ModesServer(json_schema="reject") as fake:
        modes_backend(fake, memo_path=memo).call(request())
        assert fake.modes == ["json_schema", "json_object", "tools"]
    assert "tools" in memo.read_text()


def test_failing_in_every_mode_reports_what_the_failed_calls_cost() -> None:
    with ModesServer(json_schema="ignore", tools="ramble") as fake, pytest.raises(
        ModelError, match="none of json_schema, json_object, tools gave an answer"
    ) as info:
        modes_backend(fake).call(request())
    u = info.value.usage
    assert (u.calls, u.input_tokens, u.output_tokens) == (3, 360, 30 + 30 + 512)


def test_llama_cpp_python_500_on_json_schema_moves_to_json_object_without_retrying() -> None:
    with ModesServer(json_schema="crash", json_object="ok", tools="ramble") as fake:
        backend = modes_backend(fake)
        response = backend.call(mine_request())
        assert fake.modes == ["json_schema", "json_object"]  # the 500 was not retried
        assert response.tool_input == {"candidates": []}
        assert backend.mode_for("gemma") == "json_object"
    sent = fake.requests[1].json["response_format"]
    assert sent == {"type": "json_object", "schema": dict(MINE_TOOL.input_schema)}


def test_an_ordinary_500_is_still_retried_in_the_same_mode() -> None:
    with ModesServer() as fake:
        fake.enqueue_status(500)
        modes_backend(fake).call(request())
        assert fake.modes == ["json_schema", "json_schema"]


def test_a_truncated_json_schema_answer_is_a_cut_answer_not_a_mode_switch() -> None:
    with ModesServer() as fake:
        fake.enqueue(Reply(200, lambda r: fake.completion_body(
            r, {"role": "assistant", "content": '{"labels": [{"id": 1, "label": "use-b'}, finish_reason="length")))
        backend = modes_backend(fake)
        with pytest.raises(MalformedAnswer, match="not valid JSON \\(cut off at max_tokens\\)") as info:
            backend.call(request())
        assert fake.modes == ["json_schema"] and backend.mode_for("gemma") is None
    assert info.value.usage.calls == 1
    assert info.value.stop_reason == "max_tokens"  # call_checked asks again with a larger budget


def test_a_cut_json_schema_answer_is_asked_again_with_a_larger_budget_through_call_tool() -> None:
    with ModesServer(answer=lambda name, r: {"labels": [{"id": 1, "label": "use-bun"}]}) as fake:
        fake.enqueue(Reply(200, lambda r: fake.completion_body(
            r, {"role": "assistant", "content": '{"labels": [{"id": 1, "lab'}, finish_reason="length")))
        parsed, response = call_tool(modes_backend(fake), request(), LabelsAnswer)
        budgets = [r.json["max_tokens"] for r in fake.requests]
    assert parsed.labels == [{"id": 1, "label": "use-bun"}]
    assert fake.modes == ["json_schema", "json_schema"] and budgets[1] > budgets[0]
    assert response.usage.calls == 2  # the cut answer is billed too


def test_every_mode_answering_prose_is_a_malformed_answer_worth_another_attempt() -> None:
    with ModesServer(json_schema="ignore", tools="ramble") as fake, pytest.raises(MalformedAnswer) as info:
        modes_backend(fake).call(request())
    assert info.value.stop_reason == "max_tokens"  # the last answer (tools) rambled to the limit


def test_every_mode_rejected_is_a_plain_model_error() -> None:
    with ModesServer(json_schema="reject", tools="reject") as fake, pytest.raises(ModelError) as info:
        modes_backend(fake).call(request())
    assert not isinstance(info.value, MalformedAnswer) and info.value.usage.calls == 0


def test_a_schema_invalid_answer_is_corrected_in_a_follow_up_turn_per_mode() -> None:
    """call_tool sends the invalid answer back with the error; each mode in its own form."""
    bad = {"labels": [{"id": "one", "label": "use-bun"}]}
    good = {"labels": [{"id": 1, "label": "use-bun"}]}
    for way, expected_roles in (("json_schema", ["assistant", "user"]), ("tools", ["assistant", "tool"])):
        answers = iter([bad, good])
        server = ModesServer(json_schema="ok" if way == "json_schema" else "reject",
                             answer=lambda name, r, a=answers: next(a))  # type: ignore[misc]
        with server as fake:
            backend = modes_backend(fake)
            backend.memo.set(backend.url, "gemma", way)  # type: ignore[arg-type]
            labels = ModelRequest("name", "m", "Name things.", ASSIGN_LABELS, "ITEMS:\n1. [directive] use bun", 512)
            parsed, _ = call_tool(backend, labels, LabelsAnswer)
        assert parsed.labels == [good["labels"][0]] and len(fake.requests) == 2
        follow_up = fake.requests[-1].json["messages"][2:]
        assert [m["role"] for m in follow_up] == expected_roles, way
        said = follow_up[0]["content"] or follow_up[0]["tool_calls"][0]["function"]["arguments"]
        assert json.loads(said) == bad
        assert "does not match the assign_labels schema" in follow_up[1]["content"]
        if way == "tools":
            assert follow_up[1]["tool_call_id"] == follow_up[0]["tool_calls"][0]["id"]


def test_a_run_of_failed_calls_reports_them_in_the_usage() -> None:
    with ModesServer(json_schema="ignore", tools="ramble") as fake:
        meter = UsageMeter(modes_backend(fake))
        for _ in range(2):
            with pytest.raises(ModelError):
                meter.call(request())
    assert meter.usage.calls == 6 and meter.usage.output_tokens == 2 * (30 + 30 + 512)


def test_only_one_mode_means_no_fallback_and_no_memo() -> None:
    with ModesServer(tools="ramble") as fake:
        backend = modes_backend(fake, only="tools")
        with pytest.raises(ModelError, match="tools gave no answer"):
            backend.call(request())
        assert fake.modes == ["tools"] and backend.mode_for("gemma") is None


@pytest.mark.parametrize("tool", [MINE_TOOL, ASSIGN_LABELS, CHECK_COVERAGE, RECORD_VERDICTS,
                                  WRITE_COMMANDS], ids=lambda t: t.name)
def test_every_contract_schema_becomes_a_strict_one(tool: ToolSpec) -> None:
    """OpenAI's strict mode: every object closed, every property required."""
    def objects(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(strict_schema(tool.input_schema)))
    assert len(found) == 2  # the answer and its rows
    for node in found:
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])


STRICT_ANSWERS: dict[str, dict[str, Any]] = {
    "record_candidates": {"candidates": [MINE_ROW]},
    "assign_labels": {"labels": [{"id": 0, "label": "use-bun"}]},
    "check_coverage": {"verdicts": [{"id": 0, "verdict": "new", "rule_index": None, "skill_index": None}]},
    "record_verdicts": {"verdicts": [{"id": 0, "accepted": True, "category": "tooling", "scope": "user",
                                      "confidence": 0.9, "summary": "Use bun.", "rationale": "said twice",
                                      "canonical_key": None}]},
    "write_commands": {"commands": [{"id": 0, "description": "Open a release PR",
                                     "body": "Open a release PR for $ARGUMENTS."}]},
}


@pytest.mark.parametrize(
    ("tool", "answer_model"),
    [(MINE_TOOL, None), (ASSIGN_LABELS, LabelsAnswer), (CHECK_COVERAGE, VerdictsAnswer),
     (RECORD_VERDICTS, VerdictsAnswer), (WRITE_COMMANDS, CommandsAnswer)],
    ids=lambda v: getattr(v, "name", ""),
)
def test_a_strict_json_schema_answer_maps_to_the_same_contract(tool: ToolSpec, answer_model: type[BaseModel] | None) -> None:
    step = {"record_candidates": "mine", "assign_labels": "name", "check_coverage": "coverage",
            "write_commands": "command"}.get(tool.name, "judge")
    req = ModelRequest(step, "m", "sys", tool, "ITEMS:\n0. [directive] use bun", 512)  # type: ignore[arg-type]
    with ModesServer(answer=lambda name, r: STRICT_ANSWERS[name]) as fake:
        if answer_model is None:
            response = modes_backend(fake).call(req)
            (candidate,) = parse_candidates(response.tool_input)
            assert (candidate.kind, candidate.text) == ("directive", "use bun, not npm")
        else:
            parsed, response = call_tool(modes_backend(fake), req, answer_model)
            assert len(next(iter(parsed.model_dump().values()))) == 1
    assert None not in _values(response.tool_input)


def _values(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        for value in node.values():
            yield value
            yield from _values(value)
    elif isinstance(node, list):
        for value in node:
            yield from _values(value)
