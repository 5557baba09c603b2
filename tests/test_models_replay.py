"""Recorded answers: keyed on (tool, user message) only; record, replay, miss."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest
from pydantic import BaseModel

from learn.models.base import (
    CallUsage,
    ModelError,
    ModelRequest,
    ModelResponse,
    ReplayMissError,
    ToolSpec,
)
from learn.models.call import call_tool
from learn.models.replay import (
    RecordingBackend,
    ReplayBackend,
    answer_path,
    replay_key,
    write_answer,
)

TOOL = ToolSpec("assign_labels", "Name each item.", {"type": "object"})


class Label(BaseModel):
    id: int
    label: str


class Labels(BaseModel):
    labels: list[Label]


def request(user: str = "ITEMS:\n1. [directive] use bun", *, system: str = "v1 prompt", model: str = "m1") -> ModelRequest:
    return ModelRequest("name", model, system, TOOL, user)


class ScriptedBackend:
    name = "scripted"

    def __init__(self, *answers: ModelResponse | ModelError) -> None:
        self.answers = list(answers)
        self.calls: list[ModelRequest] = []

    def call(self, req: ModelRequest) -> ModelResponse:
        self.calls.append(req)
        answer = self.answers.pop(0)
        if isinstance(answer, ModelError):
            raise answer
        return answer


ANSWER = ModelResponse(
    {"labels": [{"id": 1, "label": "use-bun"}]},
    "claude-sonnet-4-6",
    CallUsage(1200, 40, 900, 300, 0.0123, 1),
    "tool_use",
)


def test_key_is_sha256_of_tool_and_user() -> None:
    expected = hashlib.sha256(b"assign_labels\0hello").hexdigest()
    assert replay_key("assign_labels", "hello") == expected
    assert replay_key("assign_labels", "hello") != replay_key("record_verdicts", "hello")


def test_record_then_replay_round_trip(tmp_path: Path) -> None:
    inner = ScriptedBackend(ANSWER)
    recorded = RecordingBackend(inner, tmp_path).call(request())
    assert recorded == ANSWER

    replayed = ReplayBackend(tmp_path).call(request())
    assert replayed.tool_input == ANSWER.tool_input
    assert replayed.model == ANSWER.model and replayed.stop_reason == "tool_use"
    # Tokens as recorded; cost 0 because nothing was paid this run.
    u = replayed.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (1200, 40, 900, 300)
    assert u.cost_usd == 0.0 and u.calls == 1


def test_file_layout_and_content(tmp_path: Path) -> None:
    req = request("x" * 300)
    path = write_answer(tmp_path, req, ANSWER)
    key = replay_key("assign_labels", "x" * 300)
    assert path == tmp_path / "assign_labels" / key[:2] / f"{key}.json"
    assert path == answer_path(tmp_path, "assign_labels", key)
    text = path.read_text()
    record = json.loads(text)
    assert record["tool"] == "assign_labels" and record["key"] == key
    assert record["user_excerpt"] == "x" * 200
    assert record["tool_input"] == ANSWER.tool_input
    assert text == json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_system_prompt_and_model_do_not_change_the_key(tmp_path: Path) -> None:
    write_answer(tmp_path, request(system="old prompt", model="m1"), ANSWER)
    replay = ReplayBackend(tmp_path)
    assert replay.call(request(system="edited prompt", model="other-model")).tool_input == ANSWER.tool_input


def test_miss_names_the_key_and_tool(tmp_path: Path) -> None:
    write_answer(tmp_path, request("ITEMS:\n1. [directive] use bun"), ANSWER)
    with pytest.raises(ReplayMissError) as info:
        ReplayBackend(tmp_path).call(request("ITEMS:\n1. [directive] use pnpm"))
    key = replay_key("assign_labels", "ITEMS:\n1. [directive] use pnpm")
    assert info.value.key == key and info.value.tool == "assign_labels"
    assert key in str(info.value) and "--record" in str(info.value)
    assert isinstance(info.value, ModelError)


def test_recording_fills_only_misses(tmp_path: Path) -> None:
    inner = ScriptedBackend(ANSWER)
    recorder = RecordingBackend(inner, tmp_path)
    recorder.call(request())
    recorder.call(request())  # second time from the recording
    assert len(inner.calls) == 1
    overwrite = RecordingBackend(ScriptedBackend(ANSWER), tmp_path, overwrite=True)
    overwrite.call(request())
    assert len(overwrite.inner.calls) == 1  # type: ignore[attr-defined]


def test_failures_are_not_recorded(tmp_path: Path) -> None:
    recorder = RecordingBackend(ScriptedBackend(ModelError("HTTP 529")), tmp_path)
    with pytest.raises(ModelError, match="529"):
        recorder.call(request())
    with pytest.raises(ReplayMissError):
        ReplayBackend(tmp_path).call(request())


def test_malformed_recorded_answer_is_returned_as_recorded(tmp_path: Path) -> None:
    malformed = ModelResponse({"labels": [{"id": "one"}]}, "m", CallUsage(), "tool_use")
    write_answer(tmp_path, request(), malformed)
    replay = ReplayBackend(tmp_path)
    assert replay.call(request()).tool_input == {"labels": [{"id": "one"}]}
    with pytest.raises(ModelError, match="did not match the schema"):
        call_tool(replay, request(), Labels)


def test_truncated_answer_replays_its_stop_reason(tmp_path: Path) -> None:
    write_answer(tmp_path, request(), ModelResponse({"labels": []}, "m", CallUsage(), "max_tokens"))
    assert ReplayBackend(tmp_path).call(request()).stop_reason == "max_tokens"


def test_corrupt_recording_is_a_clear_error_and_recording_replaces_it(tmp_path: Path) -> None:
    path = write_answer(tmp_path, request(), ANSWER)
    path.write_text("{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        ReplayBackend(tmp_path).call(request())
    RecordingBackend(ScriptedBackend(ANSWER), tmp_path).call(request())
    assert ReplayBackend(tmp_path).call(request()).tool_input == ANSWER.tool_input
