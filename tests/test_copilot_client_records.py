"""What Copilot CLI 1.0.102 writes that a reader must not miscount (an audit that drove the
real client offline): a `--deny-tool` rule's refusal with no permission event, and the
system prompt that tells a `copilot -p` session. Real `events.jsonl` files in a temp dir;
the texts are this project's own.
"""

from __future__ import annotations

from pathlib import Path

from fixtures.fidelity.agent_writers import CopilotEvents

from learn.transcripts.blocks import ToolResultBlock
from learn.transcripts.claude.literals import (
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
)
from learn.transcripts.copilot.events import PROMPT_ENTRYPOINT
from learn.transcripts.models import UserEvent
from learn.transcripts.parser import parse
from learn.transcripts.view.origin import is_headless
from learn.transcripts.view.session import build_session

SID = "c0ffee00-0000-4000-8000-00000000c1c2"


def _results(path: Path) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for e in parse(path).events if isinstance(e, UserEvent)
            for b in e.blocks if isinstance(b, ToolResultBlock)}


def test_a_deny_tool_rules_refusal_is_a_rules_denial_not_a_failure(tmp_path: Path) -> None:
    """`--deny-tool` writes no permission event: only the call's completion, failed with
    `error.code` "denied". A call that failed on its own stays a failure; the person's
    decline (`code` "rejected", after its permission decision) stays theirs."""
    s = CopilotEvents(SID, version="1.0.102", cwd=str(tmp_path))
    s.user("clear out the old build output")
    s.reply("", calls=[("c_rule", "bash", {"command": "rm -rf out"}),
                       ("c_fail", "bash", {"command": "make"}),
                       ("c_person", "bash", {"command": "git push"})])
    s.add("tool.execution_complete", {"toolCallId": "c_rule", "success": False, "error": {
        "message": "Denied by the rule `shell(rm)`.", "code": "denied"}})
    s.add("tool.execution_complete", {"toolCallId": "c_fail", "success": False, "error": {
        "message": "make: no rule to make target", "code": "failure"}})
    s.decide("c_person", "denied-interactively-by-user")
    s.add("tool.execution_complete", {"toolCallId": "c_person", "success": False, "error": {
        "message": "Declined.", "code": "rejected"}})
    path = s.write(tmp_path / SID / "events.jsonl")

    results = _results(path)
    assert results["c_rule"].denial_kind == DENIAL_KIND_PERMISSION_RULE
    assert results["c_rule"].content == "Denied by the rule `shell(rm)`."
    assert results["c_fail"].denial_kind is None and results["c_fail"].is_error
    assert results["c_person"].denial_kind == DENIAL_KIND_USER_REJECTED
    view = build_session(parse(path))
    assert [f.tool_use_id for f in view.failures] == ["c_fail"]
    assert sorted(d.tool_use_id for d in view.denials) == ["c_person", "c_rule"]


def test_a_copilot_prompt_session_is_headless(tmp_path: Path) -> None:
    """`copilot -p`'s system prompt says it runs non-interactively; it is written after the
    first prompt. An interactive session's says nothing of the kind, nor does a person
    typing the words."""
    p = CopilotEvents(SID, version="1.0.102", cwd=str(tmp_path))
    p.user("list the flaky tests")
    p.add("system.message", {"role": "system", "content": (
        "You are a coding assistant in a terminal. You are running in non-interactive mode "
        "and cannot ask the user anything.")})
    p.reply("Three tests are flaky.")
    headless = build_session(parse(p.write(tmp_path / "p" / SID / "events.jsonl")))
    assert headless.entrypoint == PROMPT_ENTRYPOINT and is_headless(headless.entrypoint)
    assert [t.text for t in headless.human_turns] == ["list the flaky tests"]

    i = CopilotEvents(SID, version="1.0.102", cwd=str(tmp_path))
    i.user("why does it say: You are running in non-interactive mode")
    i.add("system.message", {"role": "system", "content": "You are a coding assistant."})
    interactive = build_session(parse(i.write(tmp_path / "i" / SID / "events.jsonl")))
    assert interactive.entrypoint is None
