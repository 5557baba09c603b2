"""The validated call shared by every step: cut and malformed answers are retried,
never accepted whole, and every attempt is paid for in the usage. Through the
real anthropic SDK against the fake Messages server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from pydantic import BaseModel

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import MalformedAnswer, ModelError, ModelRequest, ToolSpec, TruncatedAnswer
from learn.models.call import AnswerInvalid, call_checked, call_tool, grown_budget
from learn.models.meter import UsageMeter
from learn.models.ratelimit import RateLimiter
from learn.models.replay import RecordingBackend, ReplayBackend
from learn.models.retry import RetryPolicy

TOOL = ToolSpec("assign_labels", "Label every item.", {"type": "object"})


class Row(BaseModel):
    id: int
    label: str


class Labels(BaseModel):
    labels: list[Row]


def request(max_tokens: int = 1024) -> ModelRequest:
    return ModelRequest("name", "claude-haiku-4-5", "You name things.", TOOL,
                        "ITEMS:\n0. [directive] use bun", max_tokens=max_tokens)


GOOD = {"labels": [{"id": 0, "label": "use-bun"}]}


@pytest.fixture
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=lambda r: GOOD) as server:
        yield server


def backend(fake: FakeAnthropicServer, attempts: int = 2) -> AnthropicBackend:
    return AnthropicBackend(
        api_key="k", base_url=fake.base_url,
        retry=RetryPolicy(max_attempts=attempts, initial_backoff=0, jitter=0, sleep=lambda s: None),
        limiter=RateLimiter(None, 4, sleep=lambda s: None),
    )


def test_schema_invalid_answer_is_retried_with_the_error_sent_back_as_a_tool_result(
    fake: FakeAnthropicServer,
) -> None:
    bad = {"labels": [{"id": "first", "label": "use-bun"}]}
    fake.enqueue_answer(bad)
    parsed, response = call_tool(backend(fake), request(), Labels)
    assert parsed.labels[0].label == "use-bun"
    assert len(fake.requests) == 2
    retry = fake.requests[1].json
    # The question, the model's own bad answer as its tool call, the error as that call's result.
    assert [m["role"] for m in retry["messages"]] == ["user", "assistant", "user"]
    assert retry["messages"][0] == fake.requests[0].json["messages"][0]
    [use] = retry["messages"][1]["content"]
    assert use["type"] == "tool_use" and use["input"] == bad
    [result] = fake.requests[1].tool_results
    assert result["tool_use_id"] == use["id"] and result["is_error"] is True
    assert "labels.0.id" in result["content"]
    assert retry["tool_choice"] == {"type": "tool", "name": "assign_labels"}
    # Both answers were billed.
    assert response.usage.calls == 2 and response.usage.input_tokens == 200


def test_still_invalid_after_two_repairs_fails_with_its_cost(fake: FakeAnthropicServer) -> None:
    for _ in range(3):
        fake.enqueue_answer({"labels": "none"})
    with pytest.raises(ModelError, match="after 3 attempts") as info:
        call_tool(backend(fake), request(), Labels)
    assert len(fake.requests) == 3
    assert len(fake.requests[2].tool_results) == 2  # every earlier error went back
    assert info.value.usage is not None and info.value.usage.calls == 3


def test_answer_without_a_tool_call_is_asked_again(fake: FakeAnthropicServer) -> None:
    fake.enqueue_text("Here are the labels: use-bun")
    parsed, response = call_tool(backend(fake), request(), Labels)
    assert parsed.labels[0].id == 0 and len(fake.requests) == 2
    assert len(fake.requests[1].json["messages"]) == 1  # nothing to correct: the same question
    assert response.usage.calls == 2


def test_cut_answer_is_retried_with_a_larger_budget_and_the_whole_answer_used(
    fake: FakeAnthropicServer,
) -> None:
    fake.enqueue_truncated({"labels": [{"id": 0, "label": "use-b"}]})
    checked = call_checked(backend(fake), request(1024), lambda d: Labels.model_validate(d))
    assert checked.value.labels[0].label == "use-bun" and not checked.truncated
    assert [r.json["max_tokens"] for r in fake.requests] == [1024, 2048]


def test_cut_twice_is_a_truncated_answer_unless_the_caller_takes_partial_ones(
    fake: FakeAnthropicServer,
) -> None:
    for _ in range(2):
        fake.enqueue_truncated({"labels": [{"id": 0, "label": "use-b"}]})
    with pytest.raises(TruncatedAnswer, match="max_tokens=2048"):
        call_checked(backend(fake), request(1024), lambda d: Labels.model_validate(d))
    for _ in range(2):
        fake.enqueue_truncated({"labels": [{"id": 0, "label": "use-b"}]})
    checked = call_checked(backend(fake), request(1024), lambda d: Labels.model_validate(d),
                           accept_truncated=True)
    assert checked.truncated and checked.response.stop_reason == "max_tokens"


def test_partial_json_tool_input_counts_as_cut_and_is_retried_larger(fake: FakeAnthropicServer) -> None:
    fake.enqueue_raw_input('{"labels": [{"id": 0, "lab')
    parsed, _ = call_tool(backend(fake), request(1024), Labels)
    assert parsed.labels[0].label == "use-bun"
    assert [r.json["max_tokens"] for r in fake.requests] == [1024, 2048]


def test_budget_grows_only_up_to_the_models_limits() -> None:
    assert grown_budget(request(1024)) == 2048
    assert grown_budget(request(64_000)) == 64_000  # haiku-4-5 writes at most 64k
    assert grown_budget(request(1024), ceiling=1500) == 1500


def test_a_check_can_reject_what_pydantic_accepts(fake: FakeAnthropicServer) -> None:
    fake.enqueue_answer({"labels": []})

    def non_empty(d: object) -> Labels:
        parsed = Labels.model_validate(d)
        if not parsed.labels:
            raise AnswerInvalid("labels: one row per item, 1 item given")
        return parsed

    checked = call_checked(backend(fake), request(), non_empty)
    assert checked.attempts == 2
    assert "one row per item" in fake.requests[1].tool_results[0]["content"]


def test_failed_calls_still_count_in_the_usage(fake: FakeAnthropicServer) -> None:
    meter = UsageMeter(backend(fake, attempts=2))
    fake.enqueue_status(500, times=2)  # a call that never got an answer
    with pytest.raises(ModelError):
        call_tool(meter, request(), Labels)
    for _ in range(3):  # a call whose three answers were all unusable
        fake.enqueue_answer({"labels": "none"})
    with pytest.raises(ModelError):
        call_tool(meter, request(), Labels)
    fake.enqueue_text("no tool")  # billed although it called no tool
    call_tool(meter, request(), Labels)
    assert meter.usage.calls == 1 + 3 + 2
    assert meter.usage.input_tokens == 100 * 5  # the HTTP failure returned no usage
    assert meter.failed_calls == 2


def test_recording_keeps_the_repaired_answer_and_never_a_cut_one(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    fake.enqueue_answer({"labels": "none"})
    fake.enqueue_truncated({"labels": [{"id": 0, "label": "use-b"}]})  # the repair, cut
    recording = RecordingBackend(backend(fake), tmp_path)
    parsed, _ = call_tool(recording, request(), Labels)
    assert parsed.labels[0].label == "use-bun" and len(fake.requests) == 3
    replayed, _ = call_tool(ReplayBackend(tmp_path), request(), Labels)
    assert replayed == parsed


def test_malformed_answer_error_is_a_model_error_with_usage(fake: FakeAnthropicServer) -> None:
    fake.enqueue_text("no tool")
    with pytest.raises(MalformedAnswer) as info:
        backend(fake).call(request())
    assert info.value.usage is not None and info.value.usage.calls == 1


ROWS_TOOL = ToolSpec("record_verdicts", "Judge.", {
    "type": "object", "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "required": ["id", "scope"],
        "properties": {"id": {"type": "integer"}, "scope": {"type": "string", "enum": ["user", "project"]},
                       "confidence": {"type": "number", "minimum": 0, "maximum": 1}}}}},
})


class Verdicts(BaseModel):
    verdicts: list[dict[str, object]]


def rows_request() -> ModelRequest:
    return ModelRequest("judge", "claude-haiku-4-5", "Judge.", ROWS_TOOL, "ITEMS:\n0. [directive] x")


def test_rows_that_break_the_tools_declared_schema_are_sent_back_for_repair(
    fake: FakeAnthropicServer,
) -> None:
    fake.enqueue_answer({"verdicts": [{"id": "zero", "scope": "team"}, {"scope": "user"}]})
    fake.enqueue_answer({"verdicts": [{"id": 0, "scope": "user", "confidence": 1.7}]})
    parsed, response = call_tool(backend(fake), rows_request(), Verdicts)
    # Out-of-range numbers are the reader's to clamp, not worth a call.
    assert parsed.verdicts == [{"id": 0, "scope": "user", "confidence": 1.7}]
    error = fake.requests[1].tool_results[0]["content"]
    for problem in ("verdicts.0.id: expected integer", "verdicts.0.scope: 'team' is not one of",
                    "verdicts.1.id: required"):
        assert problem in error
    assert response.usage.calls == 2


def test_rows_still_bad_after_the_repairs_are_read_leniently_not_failed(
    fake: FakeAnthropicServer,
) -> None:
    for _ in range(3):
        fake.enqueue_answer({"verdicts": [{"id": 0, "scope": "user"}, {"id": "one"}]})
    parsed, _ = call_tool(backend(fake), rows_request(), Verdicts)
    assert parsed.verdicts[0] == {"id": 0, "scope": "user"} and len(fake.requests) == 3


def test_an_array_sent_as_a_json_string_needs_no_repair(fake: FakeAnthropicServer) -> None:
    from learn.reduce.answers import VerdictsAnswer  # the reducers' tolerant reader

    fake.enqueue_answer({"verdicts": '[{"id": 0, "scope": "project"}]'})
    parsed, _ = call_tool(backend(fake), rows_request(), VerdictsAnswer)
    assert parsed.verdicts == [{"id": 0, "scope": "project"}] and len(fake.requests) == 1
