"""Codex 0.171 rollouts give learn the same facts as the rollouts before them.

0.171 stopped writing `event_msg/user_message`, the one record learn read as what the
person typed: every current Codex session listed `human 0` and mined nothing, and a reply
like the previous turn's ("Done.") was dropped as a copy of it, so resumed sessions lost
turns (audit of the real clients, 2026-12, D1). The fixtures under
`fixtures/codex_0171/` hold one made-up session written as 0.171, as 0.14x and with both
records of each prompt (`_build.py` there says how).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fixtures.codex_0171._build import AGENTS, CONTEXT, IDS, PROJECT, RULE, STOP, TOOLS

from learn.cli import cli
from learn.transcripts import AssistantEvent, UserEvent, parse
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

HERE = Path(__file__).parent / "fixtures" / "codex_0171"
ERAS = ("0171", "older", "mixed")


def view(era: str) -> Session:
    return build_session(parse(HERE / ("rollout_" + era + ".jsonl")))


def _facts(s: Session) -> dict[str, Any]:
    return {
        "typed": [(h.text, h.origin) for h in s.human_turns],
        "calls": [(c.id, c.name) for c in s.tool_calls],
        "failures": [f.tool_use_id for f in s.failures],
        "denials": [(d.tool_use_id, d.kind) for d in s.denials],
        "interrupts": len(s.interrupts),
        "turns": s.turns,
        "project": s.project,
    }


def test_a_0171_rollouts_prompts_are_typed_turns_each_once() -> None:
    s = view("0171")
    assert [h.text for h in s.human_turns] == [RULE, TOOLS, STOP]
    typed = [e for e in parse(HERE / "rollout_0171.jsonl").events
             if isinstance(e, UserEvent) and e.prompt_source == "typed"]
    assert [e.text for e in typed] == [RULE, TOOLS, STOP]


@pytest.mark.parametrize("era", ERAS)
def test_the_injected_context_and_agents_md_are_never_typed(era: str) -> None:
    texts = [h.text for h in view(era).human_turns]
    assert not any(CONTEXT[:20] in t or AGENTS[:20] in t or "<turn_aborted>" in t for t in texts)
    assert len(texts) == 3


def test_a_rollout_with_both_records_of_each_prompt_counts_each_once() -> None:
    # Turn 1 writes user_message first, turn 2 the item first.
    assert [h.text for h in view("mixed").human_turns] == [RULE, TOOLS, STOP]
    typed = [e.text for e in parse(HERE / "rollout_mixed.jsonl").events
             if isinstance(e, UserEvent) and e.prompt_source == "typed"]
    assert typed == [RULE, TOOLS, STOP]


@pytest.mark.parametrize("era", ("0171", "mixed"))
def test_every_era_gives_the_same_facts(era: str) -> None:
    assert _facts(view(era)) == _facts(view("older"))
    assert _facts(view("older"))["turns"] == 12
    assert _facts(view(era))["project"] == PROJECT


@pytest.mark.parametrize("era", ERAS)
def test_commands_denials_and_interrupts_read_as_before(era: str) -> None:
    s = view(era)
    assert [(c.id, c.name) for c in s.tool_calls] == [
        ("call_lint", "exec_command"), ("call_patch", "apply_patch"),
        ("call_mcp", "mcp__tickets__lookup")]
    assert [f.tool_use_id for f in s.failures] == ["call_lint"]
    assert [(d.tool_use_id, d.kind) for d in s.denials] == [("call_patch", "user-rejected")]
    assert len(s.interrupts) == 1


@pytest.mark.parametrize("era", ERAS)
def test_a_reply_like_the_last_turns_is_its_own_turn(era: str) -> None:
    t = parse(HERE / ("rollout_" + era + ".jsonl"))
    replies = [e.text for e in t.events if isinstance(e, AssistantEvent) and e.text]
    assert replies == ["Noted.", "Noted."]


def _jsonl(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / f"rollout-2026-11-24T14-00-00-{IDS['0171']}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


META = {"timestamp": "2026-11-24T14:00:00Z", "type": "session_meta",
        "payload": {"id": IDS["0171"], "cwd": PROJECT, "cli_version": "0.171.0", "source": "cli"}}


def _item(at: int, content: Any, turn: str = "t1") -> dict[str, Any]:
    return {"timestamp": f"2026-11-24T14:00:{at:02d}Z", "type": "event_msg",
            "payload": {"type": "item_completed", "turn_id": turn,
                        "item": {"type": "UserMessage", "id": f"u{at}", "content": content}}}


def _started(at: int) -> dict[str, Any]:
    return {"timestamp": f"2026-11-24T14:00:{at:02d}Z", "type": "event_msg",
            "payload": {"type": "task_started", "turn_id": f"t{at}"}}


def test_text_parts_join_as_codex_joins_them_and_images_are_left_out(tmp_path: Path) -> None:
    s = build_session(parse(_jsonl(tmp_path, [META, _item(1, [
        {"type": "text", "text": "rename the ", "text_elements": []},
        {"type": "image", "image_url": "data:image/png;base64,AAAA"},
        {"type": "text", "text": "cache module", "text_elements": []},
        {"type": "local_image", "path": "/tmp/x.png"}])])))
    assert [h.text for h in s.human_turns] == ["rename the cache module"]


def test_the_same_words_typed_again_in_a_new_turn_are_lowered_again(tmp_path: Path) -> None:
    # Only a second record of one prompt is dropped; the view decides what a repeat is.
    said = [{"type": "text", "text": "try again", "text_elements": []}]
    t = parse(_jsonl(tmp_path, [META, _started(1), _item(2, said), _started(3), _item(4, said, "t3")]))
    typed = [e.meta.timestamp.second for e in t.events
             if isinstance(e, UserEvent) and e.prompt_source == "typed"]
    assert typed == [2, 4]


def test_other_completed_items_and_hook_prompts_are_not_typed(tmp_path: Path) -> None:
    rows = [META, {"timestamp": "2026-11-24T14:00:01Z", "type": "event_msg", "payload": {
        "type": "item_completed", "item": {"type": "HookPrompt", "id": "h1", "fragments": [
            {"text": "a hook said this", "hookRunId": "r1"}]}}},
        {"timestamp": "2026-11-24T14:00:02Z", "type": "event_msg", "payload": {
            "type": "item_completed", "item": {"type": "AgentMessage", "id": "m1",
                                               "content": [{"type": "Text", "text": "hi"}]}}}]
    t = parse(_jsonl(tmp_path, rows))
    assert t.skipped == {}
    assert not [e for e in t.events if isinstance(e, (UserEvent, AssistantEvent))]


def test_a_flattened_item_completed_reads_as_if_wrapped(tmp_path: Path) -> None:
    flat = {"timestamp": "2026-11-24T14:00:01Z", "type": "item_completed", "turn_id": "t1",
            "item": {"type": "UserMessage", "id": "u1",
                     "content": [{"type": "text", "text": "bump the version"}]}}
    s = build_session(parse(_jsonl(tmp_path, [META, flat])))
    assert [h.text for h in s.human_turns] == ["bump the version"]


# --- `learn sessions` and `learn show` over a HOME holding the three rollouts -----------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "work" / "kiln"
    project.mkdir(parents=True)
    day = Path.home() / ".codex" / "sessions" / "2026" / "11" / "24"
    day.mkdir(parents=True)
    for era, sid in IDS.items():
        text = (HERE / f"rollout_{era}.jsonl").read_text().replace(PROJECT, str(project))
        (day / f"rollout-2026-11-24T14-00-00-{sid}.jsonl").write_text(text)
    monkeypatch.chdir(project)
    return project


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_sessions_lists_each_eras_rollout_with_its_three_typed_turns(home: Path) -> None:
    rows = json.loads(run("sessions", "--json"))["sessions"]
    assert sorted((r["id"], r["human_turns"], r["turns"]) for r in rows) == sorted(
        (sid, 3, 12) for sid in IDS.values())
    assert {r["provider"] for r in rows} == {"codex"}


@pytest.mark.parametrize("era", ERAS)
def test_show_prints_each_prompt_once_and_the_calls(home: Path, era: str) -> None:
    out = run("show", IDS[era])
    for said in (RULE, TOOLS, STOP):
        assert out.count("YOU: " + said) == 1, out
    assert "human 3" in out and "denials 1" in out and "failures 1" in out
    assert "exec_command: ruff check src" in out
    assert "environment_context" not in out
    data = json.loads(run("show", IDS[era], "--json"))
    assert [i["text"] for i in data["timeline"] if i["type"] == "human"] == [RULE, TOOLS, STOP]


def test_the_fixtures_are_what_the_builder_writes(tmp_path: Path) -> None:
    from fixtures.codex_0171 import _build

    shutil.copytree(HERE, tmp_path / "copy")
    _build.HERE = tmp_path / "copy"
    try:
        _build.main()
    finally:
        _build.HERE = HERE
    for era in ERAS:
        name = f"rollout_{era}.jsonl"
        assert (tmp_path / "copy" / name).read_text() == (HERE / name).read_text(), name


def test_the_same_record_twice_is_the_person_typing_it_again(tmp_path: Path) -> None:
    # Only a prompt's two records (user_message beside item_completed) are one turn: a
    # rollout with no turn markers between two `user_message`s of the same words holds
    # the person typing them twice ("try again" after a failed turn).
    sid = "01a2f000-1111-7222-8333-0000000000aa"
    rows: list[dict[str, Any]] = [
        {"timestamp": "2026-11-24T14:00:00Z", "type": "session_meta",
         "payload": {"id": sid, "cwd": PROJECT, "cli_version": "0.120.0", "source": "cli"}},
        {"timestamp": "2026-11-24T14:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "try again"}},
        {"timestamp": "2026-11-24T14:00:05Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "try again"}},
    ]
    path = tmp_path / f"rollout-2026-11-24T14-00-00-{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    typed = [e for e in parse(path).events
             if isinstance(e, UserEvent) and e.prompt_source == "typed"]
    assert [e.text for e in typed] == ["try again", "try again"]
