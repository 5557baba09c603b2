"""A Codex call the person declined at its approval prompt is a denial, as every agent's is.

Codex returns `exec command rejected by user` (a shell call) or `patch rejected by user`
(apply_patch) to the model in place of the output, with no exit code: read as a successful
output, a Codex decline was no denial and not even a failure, and the denial detectors never
saw one. Refused by a policy or the guardian instead, it is a rule's refusal, not the person's.
"""

from __future__ import annotations

import json
from pathlib import Path

from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

SID = "0199bbbb-2222-7333-8444-555566667777"


def _rollout(tmp_path: Path, outputs: list[tuple[str, str, str]]) -> Path:
    """A rollout where the person asks once and each (call kind, call id, output) follows."""
    lines: list[dict[str, object]] = []

    def line(at: int, kind: str, payload: dict[str, object]) -> None:
        lines.append({"timestamp": f"2026-03-02T09:00:{at:02d}.000Z", "type": kind,
                      "payload": payload})

    line(0, "session_meta", {"id": SID, "cwd": "/home/me/shop", "originator": "codex_cli_rs",
                             "cli_version": "0.50.0", "source": "cli"})
    line(1, "event_msg", {"type": "user_message", "message": "clear out the old build output"})
    at = 2
    for kind, call_id, output in outputs:
        if kind == "shell":
            line(at, "response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                       "arguments": json.dumps({"command": ["rm", "-rf", "dist"]})})
            line(at + 1, "response_item", {"type": "function_call_output", "call_id": call_id,
                                           "output": output})
        else:
            line(at, "response_item", {"type": "custom_tool_call", "name": "apply_patch",
                                       "call_id": call_id, "input": "*** Begin Patch\n*** End Patch"})
            line(at + 1, "response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                           "output": output})
        at += 2
    path = tmp_path / f"rollout-2026-03-02T09-00-00-{SID}.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_a_declined_shell_call_and_patch_are_the_persons_denials(tmp_path: Path) -> None:
    view = build_session(parse(_rollout(tmp_path, [
        ("shell", "call_a", "exec command rejected by user"),
        ("patch", "call_b", "patch rejected by user"),
        ("shell", "call_c", json.dumps({"output": "removed", "metadata": {"exit_code": 0}})),
    ])))
    assert [(d.tool_use_id, d.kind) for d in view.denials] == [
        ("call_a", "user-rejected"), ("call_b", "user-rejected")]
    assert view.failures == ()


def test_a_call_refused_by_policy_is_a_rules_refusal_not_the_persons(tmp_path: Path) -> None:
    view = build_session(parse(_rollout(tmp_path, [
        ("shell", "call_a", "exec command rejected: dangerous command detected"),
        ("shell", "call_b", "This action was rejected due to unacceptable risk."),
        # The person's words that only mention a rejection are output, not a refusal.
        ("shell", "call_c", "the reviewer said: exec command rejected by user"),
    ])))
    assert [(d.tool_use_id, d.kind) for d in view.denials] == [
        ("call_a", "permission-rule"), ("call_b", "permission-rule")]
