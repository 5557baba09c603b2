from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from _mining_helpers import make_session, user
from click.testing import CliRunner

from learn.cli import cli
from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.mining.plan import PlanRefused, confirm_plan, plan_mining
from learn.models.base import CallUsage, ModelRequest, ModelResponse

MODEL = "claude-haiku-4-5"


def _line(kind: str, uuid: str, parent: str | None, sid: str, content: Any) -> str:
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": sid,
                       "cwd": "/proj", "timestamp": now,
                       "message": {"role": kind, "content": content, **({"model": "m"} if kind == "assistant" else {})}})


def write_transcript(home: Path, sid: str, said: str) -> Path:
    d = home / ".claude" / "projects" / "-proj"
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{sid}.jsonl"
    lines = [
        _line("user", f"{sid}-u1", None, sid, said),
        _line("assistant", f"{sid}-a1", f"{sid}-u1", sid,
              [{"type": "text", "text": "ok"},
               {"type": "tool_use", "id": f"{sid}-t1", "name": "Bash", "input": {"command": "npm test"}}]),
        _line("user", f"{sid}-u2", f"{sid}-a1", sid,
              [{"type": "tool_result", "tool_use_id": f"{sid}-t1", "content": "boom", "is_error": True}]),
    ]
    p.write_text("\n".join(lines) + "\n")
    return p


class Echo:
    name = "echo"

    def __init__(self) -> None:
        self.calls = 0

    def call(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        return ModelResponse({"candidates": []}, request.model, CallUsage(calls=1))


def test_plan_counts_calls_and_cost_then_cached_after_mining(_isolated_home: Path) -> None:
    files = [write_transcript(_isolated_home, f"s{i}", f"session {i}: we use bun here") for i in range(3)]
    missing = _isolated_home / "gone.jsonl"
    cache = MineCache()
    plan = plan_mining([*files, missing], cache, MODEL)
    assert len(plan.to_mine) == 3 and plan.calls == 3 and plan.cached == ()
    assert plan.unreadable == (missing,)
    assert plan.est_input_tokens > 0 and plan.est_output_tokens > 0 and plan.est_cost_usd > 0
    assert plan.rendered_chars < plan.raw_bytes

    backend = Echo()
    mine_sessions([p.session for p in plan.to_mine if p.session], backend, model=MODEL, cache=cache)
    assert backend.calls == 3
    again = plan_mining(files, cache, MODEL)
    assert len(again.cached) == 3 and again.to_mine == () and again.calls == 0
    assert again.est_cost_usd == 0


def test_plan_for_a_small_window_needs_more_calls(_isolated_home: Path) -> None:
    f = write_transcript(_isolated_home, "big", "keep it tidy. " * 3000)
    big = plan_mining([f], None, MODEL)
    small = plan_mining([f], None, "local-model", context_window=8_192)
    assert big.calls == 1
    assert small.chunk_chars < big.chunk_chars
    assert small.to_mine[0].chunks >= 1


def _plan(n: int) -> Any:
    sessions = [make_session([user("x")], sid=f"s{i}") for i in range(n)]
    from learn.mining.plan import MiningPlan, PlannedSession

    return MiningPlan(MODEL, 200_000, 1000,
                      tuple(PlannedSession(Path(f"{s.id}.jsonl"), s.id, "claude", None, 1, chunks=1) for s in sessions),
                      (), (), (), 0, 0, n, 0, 0, 0.5)


def test_confirm_plan_small_plans_and_yes_go_ahead() -> None:
    assert confirm_plan(_plan(2), False, confirm_above=3, interactive=False)
    assert confirm_plan(_plan(50), True, confirm_above=3, interactive=False)


def test_confirm_plan_refuses_without_a_terminal() -> None:
    with pytest.raises(PlanRefused, match="--yes"):
        confirm_plan(_plan(50), False, confirm_above=3, interactive=False)


def test_confirm_plan_asks_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    asked: list[str] = []

    def fake_confirm(text: str, default: bool = False) -> bool:
        asked.append(text)
        return False

    monkeypatch.setattr(click, "confirm", fake_confirm)
    assert confirm_plan(_plan(50), False, confirm_above=3, interactive=True) is False
    assert asked and "50 uncached sessions" in asked[0]


def test_learn_plan_command(_isolated_home: Path) -> None:
    for i in range(2):
        write_transcript(_isolated_home, f"s{i}", f"we use bun here {i}")
    runner = CliRunner()
    result = runner.invoke(cli, ["plan", "--all-projects"])
    assert result.exit_code == 0, result.output
    assert "2 sessions: 2 to mine" in result.output
    assert "2 model calls" in result.output
    js = runner.invoke(cli, ["plan", "--all-projects", "--json"])
    data = json.loads(js.output)
    assert data["calls"] == 2 and len(data["to_mine"]) == 2


def test_learn_plan_rejects_a_window_too_small(_isolated_home: Path) -> None:
    write_transcript(_isolated_home, "s", "hello there")
    result = CliRunner().invoke(cli, ["plan", "--all-projects", "--model", "tiny", "--context-window", "1100"])
    assert result.exit_code == 2 and "window" in result.output
