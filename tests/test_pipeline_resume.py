"""A resumed session copies the earlier conversation into a new file; what was
said before the resume must not count as said in two sessions."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input
from fakes.http_server import RecordedRequest

from evals.builder import ClaudeSession, session_id
from learn.config import load_config
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.pipeline import RunOptions, run_pipeline
from learn.transcripts import parse
from learn.transcripts.view.model import ToolCall, ToolFailure
from learn.transcripts.view.resume import own_turns
from learn.transcripts.view.session import build_session


def _t(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 0, tzinfo=UTC)


def _sessions(home: Path) -> tuple[Path, Path, Path]:
    claude = home / ".claude"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    a = ClaudeSession(session_id("resume-a"), str(project), _t(2))
    a.user("fix the flaky login test")
    a.denied_tool("Edit", {"file_path": f"{project}/src/generated/api.ts"},
                  "leave the generated files alone")
    b = ClaudeSession(session_id("resume-b"), str(project), _t(3))
    b.resume_from(a)  # copies a's turns, including the denial reason
    b.user("now the signup test")
    b.denied_tool("Bash", {"command": "git push --force"}, "never force push")
    c = ClaudeSession(session_id("resume-c"), str(project), _t(5))
    c.user("release it")
    c.denied_tool("Bash", {"command": "git push -f origin main"}, "never force push")
    return a.write(claude), b.write(claude), c.write(claude)


def test_copied_turns_belong_to_the_session_that_typed_them(tmp_path: Path) -> None:
    home = Path.home()
    pa, pb, _ = _sessions(home)
    sa, sb = build_session(parse(pa)), build_session(parse(pb))
    assert "leave the generated files alone" in [t.text for t in sb.human_turns]
    own = own_turns([sb, sa])  # order of the input does not matter
    assert own[sa.id] is sa
    assert [t.text for t in own[sb.id].human_turns] == ["now the signup test", "never force push"]


def test_a_resume_does_not_double_count_in_a_run(tmp_path: Path) -> None:
    _sessions(Path.home())
    result, _ = run_pipeline(
        RunOptions(all_projects=True, offline=True, show_all=True), load_config()
    )
    by_text = {p.text: p for p in result.proposals}
    # Said in b and in c: two sessions, proposed.
    assert by_text["never force push"].sessions == 2
    # Said once in a, copied into b by the resume: one session, not proposed.
    assert "leave the generated files alone" not in by_text
    assert result.extra["copied_from_resumed"] == 1


def test_copied_tool_calls_and_failures_belong_to_the_first_session(tmp_path: Path) -> None:
    home = Path.home()
    pa, pb, _ = _fix_sessions(home)
    sa, sb = build_session(parse(pa)), build_session(parse(pb))
    own = own_turns([sa, sb])
    assert [c.summary for c in sb.tool_calls] == ["npm test", "npm test", "ls"]
    # b copied a's failing and passing runs; only its own `ls` ran in b.
    assert [c.summary for c in own[sb.id].tool_calls] == ["ls"]
    assert own[sb.id].failures == ()
    assert not any(isinstance(i, ToolCall | ToolFailure) and i.event_index < 4
                   for i in own[sb.id].timeline)


def _fix_sessions(home: Path) -> tuple[Path, Path, Path]:
    claude = home / ".claude"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    a = ClaudeSession(session_id("fix-a"), str(project), _t(2))
    a.user("make the tests pass")
    a.tool("Bash", {"command": "npm test"}, "1 failing: missing env", is_error=True)
    a.tool("Bash", {"command": "npm test"}, "all passing")
    b = ClaudeSession(session_id("fix-b"), str(project), _t(3))
    b.resume_from(a)  # copies a's failing and passing runs
    b.user("what files are there")
    b.tool("Bash", {"command": "ls"}, "src")
    c = ClaudeSession(session_id("fix-c"), str(project), _t(5))
    c.user("run the tests")
    c.tool("Bash", {"command": "npm test"}, "1 failing: missing env", is_error=True)
    c.tool("Bash", {"command": "npm test"}, "all passing")
    return a.write(claude), b.write(claude), c.write(claude)


def test_a_fix_copied_by_a_resume_is_not_a_second_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fix_sessions(Path.home())

    def responder(request: RecordedRequest) -> Mapping[str, Any]:
        if request.tool_name == "record_candidates" and "ERROR: 1 failing" in request.user_text:
            return {"candidates": [{"kind": "fix", "text": "set the env before npm test",
                                    "command": "npm test", "error_excerpt": "1 failing"}]}
        return default_tool_input(request.tool_name)

    with FakeAnthropicServer(responder=responder) as server:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        backend = AnthropicBackend(
            retry=RetryPolicy(max_attempts=1, initial_backoff=0, jitter=0, sleep=lambda s: None),
            limiter=RateLimiter(None, 4, sleep=lambda s: None),
        )
        result, _ = run_pipeline(RunOptions(all_projects=True, show_all=True), load_config(),
                                 backend=backend)
    fixes = [p for p in result.proposals if p.kind == "fix"]
    # a and c ran the fix; b only copied a's runs: two sessions, not three.
    assert [p.sessions for p in fixes] == [2]
    # b's copies of a's turns are not sent to the miner at all (learn.mining.sent
    # .SentViews): nothing of them comes back to drop.
    assert result.extra["copied_from_resumed"] == 0
