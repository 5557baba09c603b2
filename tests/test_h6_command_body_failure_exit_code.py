"""Found on real Claude Code sessions (an end-to-end check with a careful model answering):
when the call that writes an accepted request's command body fails (refused, an outage,
a bad answer), `learn run` lists it under "## What failed" and on stderr ("command: 1
command(s) left without a body: ...") but exits 0, and the digest's header has no
"Failed after retries: stage ..." line. A failed judge call in the same run exits 1 and
says "Failed after retries: stage judge". The README's contract: exit 1 when something
failed (the rest still reported); `--exit-zero` exists to ask for 0.

learn.reduce.stage.reduce_failures names naming, coverage and judging only, never the
command stage (learn.reduce.commands records its failures in `failures` alone), and
learn.commands.run's exit code reads `failed_stages`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _weekly_asks import learn, learn_env, weekly_asks
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input, items_in
from fakes.http_server import RecordedRequest, Reply

ASK = "draft the weekly release notes from the merged pull requests"


class _NoCommandWriter(FakeAnthropicServer):
    """Answers every call but the one that writes command bodies, which it refuses."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.tool_name == "write_commands":
            return self.error_reply(400, message="refused for the test")
        return super().default_reply(request)


def _responder(request: Any) -> Any:
    tool = request.tool_name
    if tool == "record_candidates" and ASK in request.user_text:
        return {"candidates": [{"kind": "request", "text": ASK}]}
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": "weekly-release-notes"}
                           for i, _, _ in items_in(request.user_text)]}
    if tool == "record_verdicts":
        return {"verdicts": [{"id": i, "accepted": True, "category": "workflow",
                              "scope": "project", "confidence": 0.9,
                              "summary": "Draft the weekly release notes from merged PRs",
                              "rationale": "asked for in general terms every week"}
                             for i, _, _ in items_in(request.user_text)]}
    return default_tool_input(tool)


def test_a_failed_command_body_fails_the_run(tmp_path: Path) -> None:
    project = weekly_asks(tmp_path, "site", ASK, "Here are the notes.")
    with _NoCommandWriter(responder=_responder) as fake:
        env = learn_env(tmp_path, fake.base_url)
        run = learn(["run", "--since", "2026-01-01", "--yes", "--quiet"], env, project)
    assert "weekly-release-notes" in run.stdout, run.stdout + run.stderr
    assert "command(s) left without a body" in run.stdout  # reported ...
    assert "Failed after retries: stage command" in run.stdout, run.stdout
    assert run.returncode == 1, run.stdout  # ... and the run says it failed
