"""Backend by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from learn.models.base import ModelRequest, ReplayMissError, ToolSpec
from learn.models.registry import BACKEND_NAMES, get_backend
from learn.models.replay import ReplayBackend, replay_key


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ValueError) as info:
        get_backend("gpt")
    for name in BACKEND_NAMES:
        assert name in str(info.value)


def test_each_name_builds_its_backend(tmp_path: Path) -> None:
    assert get_backend("replay", cache_dir=tmp_path).name == "replay"
    assert get_backend("claude-cli").name == "claude-cli"
    assert get_backend("openai", base_url="http://127.0.0.1:9").name == "openai"
    assert get_backend("anthropic", api_key="k", base_url="http://127.0.0.1:9").name == "anthropic"


def test_replay_defaults_under_the_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LEARN_CACHE_DIR", str(tmp_path / "c"))
    backend = get_backend("replay")
    assert isinstance(backend, ReplayBackend) and backend.cache_dir == tmp_path / "c" / "replay"


def test_record_wraps_a_real_backend_and_fills_the_replay(tmp_path: Path) -> None:
    tool = ToolSpec("record_candidates", "", {"type": "object"})
    req = ModelRequest("mine", "claude-haiku-4-5", "s", tool, "USER: chunk")
    with pytest.raises(ReplayMissError):
        get_backend("replay", cache_dir=tmp_path).call(req)
    with FakeAnthropicServer() as fake:
        fake.enqueue_answer({"candidates": [{"kind": "directive", "text": "t"}]})
        recorder = get_backend("anthropic", cache_dir=tmp_path, record=True, api_key="k", base_url=fake.base_url)
        assert recorder.name == "record:anthropic"
        recorder.call(req)
    replayed = get_backend("replay", cache_dir=tmp_path).call(req)
    assert replayed.tool_input == {"candidates": [{"kind": "directive", "text": "t"}]}
    key = replay_key("record_candidates", "USER: chunk")
    assert (tmp_path / "record_candidates" / key[:2] / f"{key}.json").exists()


def test_record_with_replay_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="real backend"):
        get_backend("replay", cache_dir=tmp_path, record=True)
