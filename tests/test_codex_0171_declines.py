"""What Codex 0.171 writes when the person says no, or a rule does, and how learn reads it.

Driven for real (0.171.0's TUI and `codex exec` against a fake Responses server, 2026-12):
the TUI's only "no" at an approval prompt is "No, and tell Codex what to do differently",
which aborts the turn and is written exactly as an Esc while the command runs: the call's
output "Wall time: 9.5 seconds\\naborted by user" (apply_patch: "aborted by user after
8.8s"), a `<turn_aborted>` note, `turn_aborted`. learn read that output as a successful
one, so no detector saw the call stopped or what the person said after it; and `codex
exec`'s "approval policy is Never; reject command" as a successful output, not a rule's
refusal. `fixtures/codex_0171/_build_declines.py` says what the two fixtures hold.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fixtures.codex_0171._build_declines import (
    ABORT_NOTE,
    APPROVED,
    EXEC_ID,
    EXEC_PROMPTS,
    FEEDBACK,
    PROJECT,
    TIDY,
    TUI_ID,
    TUI_PROMPTS,
)

from learn.cli import cli
from learn.detect.detectors import mine
from learn.transcripts import UserEvent, parse
from learn.transcripts.blocks import ToolResultBlock
from learn.transcripts.claude.literals import is_interrupt_text
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

HERE = Path(__file__).parent / "fixtures" / "codex_0171"
TUI = HERE / "rollout_0171_tui_declines.jsonl"
EXEC = HERE / "rollout_0171_exec_refused.jsonl"


def _results(path: Path) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for e in parse(path).events if isinstance(e, UserEvent)
            for b in e.blocks if isinstance(b, ToolResultBlock)}


def _signals(path: Path, detector: str) -> list[tuple[Any, str]]:
    return [(s.evidence.get("tool"), s.text) for s in mine(list(parse(path).events),
                                                             provider="codex")
            if s.detector == detector]


def test_a_no_at_the_tui_prompt_is_one_interrupt_never_a_denial_nor_a_failure() -> None:
    s: Session = build_session(parse(TUI))
    assert [(h.text, h.origin) for h in s.human_turns] == [(t, "typed") for t in TUI_PROMPTS]
    assert [c.name for c in s.tool_calls] == ["exec_command", "apply_patch", "exec_command",
                                              "exec_command", "exec_command"]
    # The declined command, the declined patch, the command stopped while it ran.
    assert len(s.interrupts) == 3
    assert s.denials == ()
    # Only the command the read-only sandbox stopped failed.
    assert [f.tool_use_id for f in s.failures] == ["call_5"]


def test_the_stopped_calls_read_as_interrupted_calls_and_the_rest_as_they_were() -> None:
    results = _results(TUI)
    for stopped in ("call_1", "call_2", "call_4"):
        block = results[stopped]
        assert is_interrupt_text(block.content) and block.is_error, stopped
        assert block.denial_kind is None
    assert not results["call_3"].is_error and "exited with code 0" in results["call_3"].content
    assert results["call_5"].is_error and "Read-only file system" in results["call_5"].content


def test_the_interrupt_detector_sees_each_stopped_call_and_what_was_typed_next() -> None:
    # Before: Codex interrupts reached no detector (the call read as a success and
    # `turn_aborted` lowers to no marker text), so "no, scratch files belong under tmp"
    # said right after a declined command was mined as an ordinary message only.
    assert _signals(TUI, "interrupt") == [
        ("exec_command", FEEDBACK), ("apply_patch", APPROVED), ("exec_command", TIDY)]
    assert _signals(TUI, "denial") == []


def test_the_harness_turn_aborted_note_is_never_typed_nor_a_second_interrupt() -> None:
    s = build_session(parse(TUI))
    assert not any(ABORT_NOTE[:20] in h.text for h in s.human_turns)
    assert len(s.interrupts) == sum(
        1 for line in TUI.read_text().splitlines()
        if json.loads(line)["payload"].get("type") == "turn_aborted")


def test_exec_refusals_by_policy_sandbox_and_rule_are_rules_denials_not_the_persons() -> None:
    s = build_session(parse(EXEC))
    assert [h.text for h in s.human_turns] == list(EXEC_PROMPTS)
    assert [(d.tool_use_id, d.kind, d.reason) for d in s.denials] == [
        ("call_1", "permission-rule", None), ("call_2", "permission-rule", None),
        ("call_3", "permission-rule", None)]
    assert s.failures == () and s.interrupts == ()
    assert _signals(EXEC, "denial") == []


@pytest.mark.parametrize("output", [
    "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\naborted by user\n",
    "aborted by user after three retries",
    "job aborted by user after 2.0s",
    "Wall time: 9.5 seconds\naborted by user, rolling back",
])
def test_an_output_that_only_mentions_an_abort_is_an_ordinary_output(
    tmp_path: Path, output: str
) -> None:
    lines = [json.loads(x) for x in TUI.read_text().splitlines()]
    for line in lines:
        if line["payload"].get("call_id") == "call_1" and "output" in line["payload"]:
            line["payload"]["output"] = output
    path = tmp_path / f"rollout-2026-11-30T10-00-00-{TUI_ID}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    block = _results(path)["call_1"]
    # What the command printed, past the header a shell call's output opens with.
    assert block.content == output.split("Output:\n")[-1] and not block.is_error


# --- `learn show` over a HOME holding both rollouts -----------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "work" / "quarry"
    project.mkdir(parents=True)
    day = Path.home() / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    for sid, path in ((TUI_ID, TUI), (EXEC_ID, EXEC)):
        text = path.read_text().replace(PROJECT, str(project))
        (day / f"rollout-2026-11-30T10-00-00-{sid}.jsonl").write_text(text)
    monkeypatch.chdir(project)
    return project


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_show_counts_each_prompt_once_the_interrupts_and_no_denials(home: Path) -> None:
    out = run("show", TUI_ID)
    for said in TUI_PROMPTS:
        assert out.count("YOU: " + said) == 1, out
    assert "human 6" in out and "denials 0" in out and "failures 1" in out
    assert "interrupts 3" in out and out.count("⏎ interrupted") == 3
    data = json.loads(run("show", TUI_ID, "--json"))
    assert (data["human_turns"], data["denials"], data["interrupts"]) == (6, 0, 3)
    assert [i["text"] for i in data["timeline"] if i["type"] == "human"] == list(TUI_PROMPTS)


def test_show_lists_the_exec_refusals_as_permission_rule_denials(home: Path) -> None:
    out = run("show", EXEC_ID)
    assert "denials 3" in out and "failures 0" in out
    assert out.count("denied (permission-rule)") == 3
    data = json.loads(run("show", EXEC_ID, "--json"))
    assert [d["kind"] for d in data["denial_details"]] == ["permission-rule"] * 3


def test_the_fixtures_are_what_the_builder_writes(tmp_path: Path) -> None:
    from fixtures.codex_0171 import _build_declines

    shutil.copytree(HERE, tmp_path / "copy")
    _build_declines.HERE = tmp_path / "copy"
    try:
        _build_declines.main()
    finally:
        _build_declines.HERE = HERE
    for path in (TUI, EXEC):
        assert (tmp_path / "copy" / path.name).read_text() == path.read_text(), path.name


def test_a_failure_reads_as_what_the_command_printed_not_its_header() -> None:
    # 0.171 opens a shell call's output with "Chunk ID: ...\nWall time: ...\nProcess exited
    # with code 1\n...Output:\n": the failure's excerpt was "Chunk ID: fe05c6".
    [failure] = [f for f in build_session(parse(TUI)).failures if f.tool_use_id == "call_5"]
    assert failure.excerpt.startswith("rm: cannot remove 'build/cache'"), failure.excerpt
    block = _results(TUI)["call_5"]
    assert block.is_error and not block.content.startswith("Chunk ID")
