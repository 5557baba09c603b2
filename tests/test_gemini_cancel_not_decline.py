"""A Gemini CLI call stopped while it ran is an interrupt, never a denial.

Found on a real Gemini CLI 0.39.1 session: Esc on two running shell commands showed as
"denials 2 · interrupts 2" where the person had refused nothing. That client's cancelled
call carries the tool's output beside an error "[Operation Cancelled] User cancelled tool
execution." (`ToolExecutor.createCancelledResult`), and its "Request cancelled." note is
written before the record holding the call: the call's results are recorded once it has
stopped, and a last message that is no reply makes the client open a new reply for them
(`ChatRecordingService.recordToolCalls`). A "no" at the approval prompt stays a denial.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.fidelity.agent_writers import GeminiChat

from learn.transcripts.claude.literals import DENIAL_KIND_USER_REJECTED
from learn.transcripts.parser import parse
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

STOPPED_RUNNING = "[Operation Cancelled] User cancelled tool execution."
REFUSED = "[Operation Cancelled] Reason: User denied execution."
REFUSED_BEFORE_0_20 = "[Operation Cancelled] Reason: User did not allow tool call"


def _cancelled(chat: GeminiChat, call_id: str, command: str, response: dict[str, Any]
               ) -> dict[str, Any]:
    call = chat.call(call_id, "run_shell_command", {"command": command}, status="cancelled")
    call["result"][0]["functionResponse"]["response"] = response
    call["resultDisplay"] = response.get("output", "")
    return call


def _stopped(chat: GeminiChat, call_id: str, command: str, output: str) -> dict[str, Any]:
    """What 0.39 records for a command stopped mid-run: its output so far, then the error."""
    return _cancelled(chat, call_id, command, {"output": output, "error": STOPPED_RUNNING})


def _session(chat: GeminiChat, tmp_path: Path, era: str) -> Session:
    name = f"session-2026-11-20T09-00-{chat.session[:8]}.{era}"
    path = tmp_path / "chats" / name
    written = chat.write_jsonl(path) if era == "jsonl" else chat.write_json(path)
    return build_session(parse(written))


def _stop_with_note_before(chat: GeminiChat, ask: str, call_id: str, command: str,
                           output: str) -> None:
    chat.user([{"text": ask}])
    chat.gemini("Running it now.")
    chat.note("info", "Request cancelled.")  # Esc: the note lands first
    chat.gemini("", [_stopped(chat, call_id, command, output)])


@pytest.mark.parametrize("era", ["jsonl", "json"])
def test_a_command_stopped_with_the_note_before_it_is_an_interrupt_not_a_denial(
        tmp_path: Path, era: str) -> None:
    chat = GeminiChat("6c000001-0000-4000-8000-000000000001")
    _stop_with_note_before(chat, "rebuild the search index", "s1", "make index",
                           "Command was cancelled by user before it could complete.\n"
                           "indexing 312 of 9000 documents")
    _stop_with_note_before(chat, "then just run the fast checks", "s2", "make quick",
                           "Command was cancelled by user before it could complete.")
    chat.user([{"text": "leave it for today"}])

    session = _session(chat, tmp_path, era)
    assert session.denials == ()
    assert len(session.interrupts) == 2
    assert session.failures == ()


def test_a_command_stopped_with_the_note_after_it_is_the_same_one_interrupt(
        tmp_path: Path) -> None:
    chat = GeminiChat("6c000002-0000-4000-8000-000000000002")
    chat.user([{"text": "profile the importer"}])
    reply = chat.gemini("Profiling.")
    chat.reappend(reply, toolCalls=[_stopped(chat, "s1", "py-spy record -- python imp.py",
                                             "sampling...")])
    chat.note("info", "Request cancelled.")
    chat.user([{"text": "skip the profile"}])

    session = _session(chat, tmp_path, "jsonl")
    assert session.denials == ()
    assert len(session.interrupts) == 1


@pytest.mark.parametrize("reason", [REFUSED, REFUSED_BEFORE_0_20])
@pytest.mark.parametrize("note", ["before", "after"])
def test_a_no_at_the_approval_prompt_stays_one_denial(tmp_path: Path, reason: str,
                                                      note: str) -> None:
    chat = GeminiChat("6c000003-0000-4000-8000-000000000003")
    chat.user([{"text": "tidy the build folder"}])
    chat.gemini("I will remove it.")
    refused = _cancelled(chat, "r1", "rm -rf build", {"error": reason})
    if note == "before":
        chat.note("info", "Request cancelled.")
        chat.gemini("", [refused])
    else:
        reply = chat.gemini("")
        chat.reappend(reply, toolCalls=[refused])
        chat.note("info", "Request cancelled.")
    chat.user([{"text": "keep the build folder"}])

    session = _session(chat, tmp_path, "jsonl")
    assert [(d.tool_use_id, d.kind) for d in session.denials] == [("r1", DENIAL_KIND_USER_REJECTED)]
    assert session.interrupts == ()


def test_the_error_part_alone_says_the_call_was_stopped(tmp_path: Path) -> None:
    """The output holds only what the command printed; the error part says it was stopped.
    Read from the output alone, the call was a denial."""
    chat = GeminiChat("6c000004-0000-4000-8000-000000000004")
    chat.user([{"text": "run the nightly export"}])
    reply = chat.gemini("Starting the export.")
    chat.reappend(reply, toolCalls=[_stopped(chat, "s1", "make export", "exported 40 rows")])
    chat.user([{"text": "stop, wrong database"}])

    session = _session(chat, tmp_path, "jsonl")
    assert session.denials == ()
    assert len(session.interrupts) == 1


def test_a_later_esc_after_a_stopped_call_is_its_own_interrupt(tmp_path: Path) -> None:
    """One note goes with one stopped call: a second Esc in the next exchange still counts."""
    chat = GeminiChat("6c000005-0000-4000-8000-000000000005")
    _stop_with_note_before(chat, "run the load test", "s1", "k6 run load.js", "ramping up")
    chat.user([{"text": "explain the last result instead"}])
    chat.note("info", "Request cancelled.")  # Esc while the model answered
    chat.user([{"text": "never mind"}])

    session = _session(chat, tmp_path, "jsonl")
    assert session.denials == ()
    assert len(session.interrupts) == 2
