"""The judge sees what happened around a quote (the seed's capture_window)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from _reduce_helpers import ScriptedBackend, TopicEmbedder, items_of

from evals.builder import ClaudeSession, session_id
from evals.metrics import Occurrence
from evals.windows import reported_share
from learn.models.base import ModelRequest
from learn.records.proposal import Proposal, Quote
from learn.reduce.judge import judge_proposals
from learn.reduce.windows import TranscriptContext


def _session(tmp_path: Path) -> tuple[str, Path, str]:
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("add a retry to the uploader")
    s.tool("Bash", {"command": "npm install axios-retry"}, "added 1 package")
    s.user("no, use bun for installs, never npm")
    s.assistant("Switching to bun.")
    s.tool("Bash", {"command": "bun add axios-retry"}, "installed")
    path = s.write(tmp_path / ".claude")
    return s.session_id, path, cwd


def test_context_names_what_the_agent_had_just_done_and_what_came_after(tmp_path: Path) -> None:
    sid, path, cwd = _session(tmp_path)
    context = TranscriptContext({sid: path}, projects={sid: cwd})
    line = context(sid, "use bun for installs, never npm")
    assert line is not None
    before, _, after = line.partition("; ")
    assert before.startswith("agent before:") and "npm install axios-retry" in before
    assert after.startswith("agent after:") and "Switching to bun" in after
    # An ellipsis quote finds its turn by its fragments; an unknown quote has no context.
    assert context(sid, "no, use bun … never npm") == line
    assert context(sid, "something nobody typed here") is None
    assert context("other-session", "use bun") is None


def test_context_is_redacted_and_paths_are_relative(tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx2"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("start")
    s.tool("Read", {"file_path": f"{cwd}/src/app.py"}, "code")
    s.user("keep the config in one place please")
    path = s.write(tmp_path / ".claude")
    context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd},
                                redact=lambda t: t.replace("app.py", "[REDACTED]"))
    line = context(s.session_id, "keep the config in one place please")
    assert line is not None and cwd not in line and "src/[REDACTED]" in line


def test_the_context_line_is_the_same_wherever_the_checkout_lives(tmp_path: Path) -> None:
    # The recorded answers (the demo's, a replay cache) key on the judge's request:
    # a project folder deeper than a tool line's cut once lost its prefix there and
    # the line came out as `Read ~/code…(+24ch)` instead of `Read CONTRIBUTING.md`.
    lines = []
    for folder in (tmp_path / "a", tmp_path / ("deep-" * 30) / "b"):
        cwd = str(folder / "proj")
        s = ClaudeSession(session_id("ctx3"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
        s.user("start")
        s.tool("Read", {"file_path": f"{cwd}/CONTRIBUTING.md"}, "text")
        s.user("keep the config in one place please")
        path = s.write(folder / ".claude")
        context = TranscriptContext({s.session_id: path}, projects={s.session_id: cwd})
        lines.append(context(s.session_id, "keep the config in one place please"))
    assert lines[0] is not None and "[Read CONTRIBUTING.md]" in lines[0]
    assert lines[0] == lines[1]


def test_the_judge_item_carries_the_context_line(tmp_path: Path) -> None:
    sid, path, cwd = _session(tmp_path)
    proposal = Proposal(kind="directive", label="use-bun-not-npm", text="use bun for installs, never npm",
                        sessions=2, count=2, last_seen="2026-11-01",
                        quotes=(Quote(sid, "use bun for installs, never npm", "2026-11-01"),))
    seen: list[str] = []

    def answer(request: ModelRequest) -> dict[str, object]:
        seen.append(request.user)
        return {"verdicts": [{"id": i, "accepted": True, "category": "tooling", "scope": "project",
                              "confidence": 0.9, "summary": "Use bun.", "rationale": "r"}
                             for i, _, _ in items_of(request.user)]}

    judge_proposals([proposal], backend=ScriptedBackend(answer), model="m", embedder=TopicEmbedder(),
                    context=TranscriptContext({sid: path}, projects={sid: cwd}))
    (user,) = seen
    assert "context: agent before:" in user and "npm install axios-retry" in user


def test_the_context_reaches_the_model_through_the_sdk_redacted(tmp_path: Path) -> None:
    from fakes.anthropic_server import FakeAnthropicServer, items_in

    from learn.models.anthropic_backend import AnthropicBackend
    from learn.models.retry import RetryPolicy
    from learn.redaction.redact import redact

    cwd = str(tmp_path / "proj")
    s = ClaudeSession(session_id("ctx3"), cwd, datetime(2026, 11, 1, 9, tzinfo=UTC))
    s.user("deploy it")
    s.tool("Bash", {"command": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ./deploy.sh"}, "ok")
    s.user("never deploy from a dirty tree, commit first")
    path = s.write(tmp_path / ".claude")
    proposal = Proposal(kind="directive", label="commit-before-deploy",
                        text="never deploy from a dirty tree, commit first", sessions=2, count=2, last_seen=None,
                        quotes=(Quote(s.session_id, "never deploy from a dirty tree, commit first", None),))

    def responder(request: object) -> dict[str, object]:
        user = getattr(request, "user_text", "")
        return {"verdicts": [{"id": i, "accepted": True, "category": "git", "scope": "user",
                              "confidence": 0.8, "summary": "Commit before deploying.", "rationale": "r"}
                             for i, _, _ in items_in(user)]}

    with FakeAnthropicServer(responder=responder) as fake:
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
        result = judge_proposals([proposal], backend=backend, model="claude-sonnet-4-6",
                                 embedder=TopicEmbedder(),
                                 context=TranscriptContext({s.session_id: path}, redact=redact,
                                                           projects={s.session_id: cwd}))
        sent = fake.requests[0].user_text
    assert "context: agent before:" in sent and "deploy.sh" in sent
    assert "wJalrXUtnFEMI" not in sent
    assert result.proposals[0].verdict is not None


def test_reports_from_negative_windows_are_counted() -> None:
    replies = [("s1", "ok continue with the refund tests"), ("s2", "looks good, ship it")]
    said = [Occurrence("s1", "directive", "continue with the refund tests", "x")]
    assert reported_share(replies, said) == 0.5
    assert reported_share(replies, []) == 0.0
    # A fix is a command, not something read off the reply.
    assert reported_share(replies, [Occurrence("s2", "fix", "looks good", "y")]) == 0.0
