"""Gemini CLI records learn once misread, found by running the real client (0.61.0) offline.

- A history the client sets again (every tool call of a turn cancelled; `/chat resume`
  loading another session's) is written again as new lines, then a `$set.messages`
  naming them: a replay, not turns typed there.
- A shell-mode command (`!cmd`) is a user turn the client writes around the command and
  its output: a shell line, as Claude Code's `<bash-input>`.
- Esc while the model answers leaves the note "Request cancelled.": an interrupt. Esc on
  a running call cancels it "by user": an interrupted call, not a denial.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.fidelity.agent_writers import GeminiChat

from learn.transcripts.claude.literals import DENIAL_KIND_USER_REJECTED
from learn.transcripts.models import UserEvent
from learn.transcripts.parser import parse
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

CONTEXT = "<session_context>\nThe client's own opening context.\n</session_context>"
REVIEW_BODY = "Go over this file line by line and list what is wrong.\nFile: shop/cart.py"


def _write(chat: GeminiChat, tmp_path: Path) -> Path:
    return chat.write_jsonl(tmp_path / "chats" / f"session-2026-11-20T09-00-{chat.session[:8]}.jsonl")


def _session(chat: GeminiChat, tmp_path: Path) -> Session:
    return build_session(parse(_write(chat, tmp_path)))


def _typed(session: Session) -> list[str]:
    return [t.text for t in session.human_turns]


def _stamped(chat: GeminiChat) -> None:
    """What 0.61 writes after every message: a `$set` of `lastUpdated` alone."""
    chat.set(lastUpdated=f"2026-11-20T09:{chat.n:02d}:30.000Z")


def _opening(chat: GeminiChat) -> None:
    """Every 0.61 session opens with a `$set.messages` of its context turn."""
    chat.set(messages=[{"id": "ctx0", "timestamp": "2026-11-20T09:00:00.000Z", "type": "user",
                        "content": [{"text": CONTEXT}]}])


def _replay(chat: GeminiChat, prefix: str, at: str, turns: list[tuple[str, str]]) -> None:
    """`setHistory`: each turn again under a new id, one timestamp for all, no
    displayContent, a `lastUpdated` after each, then the list naming them."""
    listed: list[dict[str, Any]] = []
    for i, (kind, text) in enumerate(turns):
        record = {"id": f"{prefix}{i}", "timestamp": at, "type": kind, "content": [{"text": text}]}
        chat.records.append(record)
        listed.append(record)
        chat.set(lastUpdated=at)
    chat.set(messages=listed)


def _cancelled(chat: GeminiChat, call_id: str, command: str, reason: str) -> dict[str, Any]:
    call = chat.call(call_id, "run_shell_command", {"command": command}, status="cancelled")
    call["result"][0]["functionResponse"]["response"] = {
        "error": f"[Operation Cancelled] Reason: {reason}"}
    return call


# ---------------------------------------------------------------- F1: histories written again


def test_a_history_written_again_after_a_cancelled_call_adds_no_typed_turn(tmp_path: Path) -> None:
    """Esc at an approval prompt made 0.61 write the session's earlier turns again under
    new ids, a custom command as its expanded body: that body was counted as typed."""
    chat = GeminiChat("5a000001-0000-4000-8000-000000000001")
    _opening(chat)
    chat.user([{"text": "the cart total ignores discounts"}])
    _stamped(chat)
    chat.gemini("I see it.")
    _stamped(chat)
    chat.user([{"text": REVIEW_BODY}], display=[{"text": "/review shop/cart.py"}])
    _stamped(chat)
    chat.gemini("Three problems.")
    _stamped(chat)
    chat.user([{"text": "apply the fixes"}])
    _stamped(chat)
    reply = chat.gemini("")
    chat.reappend(reply, toolCalls=[_cancelled(chat, "k1", "git apply fix.diff",
                                               "User denied execution.")])
    chat.note("info", "Request cancelled.")
    _stamped(chat)
    _replay(chat, "again", "2026-11-20T09:20:00.000Z", [
        ("user", CONTEXT), ("user", "the cart total ignores discounts"),
        ("gemini", "I see it."), ("user", REVIEW_BODY), ("gemini", "Three problems.")])
    chat.user([{"text": "only the first fix then"}])

    session = _session(chat, tmp_path)
    assert _typed(session) == ["the cart total ignores discounts", "shop/cart.py",
                               "apply the fixes", "only the first fix then"]
    assert [t.command for t in session.human_turns][1] == "/review"
    assert len(session.denials) == 1 and session.interrupts == ()  # the denial's own note


def test_a_chat_loaded_from_another_session_is_typed_in_that_session_only(tmp_path: Path) -> None:
    """`/chat resume <tag>` copies the saved session's turns into this one under new ids
    and new times: they counted as typed in both, so one remark passed for a habit."""
    first = GeminiChat("5a000002-0000-4000-8000-000000000002")
    _opening(first)
    first.user([{"text": "run the linter before every commit"}])
    first.gemini("Noted.")
    first.user([{"text": REVIEW_BODY}], display=[{"text": "/review shop/cart.py"}])
    first.gemini("Done.")

    second = GeminiChat("5b000003-0000-4000-8000-000000000003")
    _opening(second)
    second.user([{"text": "start on the invoices"}])
    _stamped(second)
    second.gemini("Starting.")
    _stamped(second)
    _replay(second, "loaded", "2026-11-21T10:00:00.000Z", [
        ("user", CONTEXT + "run the linter before every commit"), ("gemini", "Noted."),
        ("user", REVIEW_BODY), ("gemini", "Done.")])
    second.user([{"text": "carry on from there"}])
    _stamped(second)
    second.gemini("Carrying on.")
    # The same words typed anew in this session are this session's.
    second.user([{"text": "run the linter before every commit"}])

    assert _typed(_session(first, tmp_path)) == ["run the linter before every commit",
                                                 "shop/cart.py"]
    assert _typed(_session(second, tmp_path)) == [
        "start on the invoices", "carry on from there", "run the linter before every commit"]


def test_turns_a_later_list_names_stay_typed_and_only_the_replay_is_not(tmp_path: Path) -> None:
    """The list after an Esc names the turns already written (old ids, their own times),
    and a list may follow a reply with only `lastUpdated` between: neither is a replay."""
    chat = GeminiChat("5a000004-0000-4000-8000-000000000004")
    _opening(chat)
    first = chat.user([{"text": "why is checkout slow"}])
    _stamped(chat)
    reply = chat.gemini("Two queries per item.")
    _stamped(chat)
    chat.set(messages=[dict(chat.messages[first]), dict(chat.messages[reply])])
    second = chat.user([{"text": "batch them"}])
    _stamped(chat)
    chat.note("info", "Request cancelled.")
    _stamped(chat)
    chat.set(messages=[dict(chat.messages[first]), dict(chat.messages[reply]),
                       dict(chat.messages[second])])
    chat.user([{"text": REVIEW_BODY}], display=[{"text": "/review shop/cart.py"}])
    _stamped(chat)
    _replay(chat, "again", "2026-11-20T09:30:00.000Z", [
        ("user", "why is checkout slow"), ("gemini", "Two queries per item."),
        ("user", REVIEW_BODY)])

    assert _typed(_session(chat, tmp_path)) == ["why is checkout slow", "batch them",
                                                "shop/cart.py"]


# ---------------------------------------------------------------- F2: shell mode


def test_a_shell_mode_turn_is_a_shell_line_and_its_output_is_never_typed(tmp_path: Path) -> None:
    chat = GeminiChat("5a000005-0000-4000-8000-000000000005")
    chat.user([{"text": "is the build green"}])
    chat.gemini("Let me see.")
    # What the client writes for `!grep -c \`x\` log.txt`: `\` and a backtick escaped.
    chat.user([{"text": "I ran the following shell command:\n```sh\ngrep -c \\`x\\` log.txt\n```"
                        "\n\nThis produced the following result:\n```\nnever use tabs in C:\\\\src"
                        "\n```"}])
    quoted = "I ran the following shell command: make, and it hung. Why?"
    chat.user([{"text": quoted}])  # the template's first words, typed: no shell line
    path = _write(chat, tmp_path)

    assert _typed(build_session(parse(path))) == ["is the build green", quoted]
    [shell] = [e.text for e in parse(path).events
               if isinstance(e, UserEvent) and e.text.startswith("<bash-input>")]
    assert shell == ("<bash-input>grep -c `x` log.txt</bash-input>"
                     "<bash-stdout>never use tabs in C:\\src</bash-stdout>")


# ---------------------------------------------------------------- F3: interrupts


def test_esc_while_the_model_answers_is_an_interrupt(tmp_path: Path) -> None:
    chat = GeminiChat("5a000007-0000-4000-8000-000000000007")
    chat.user([{"text": "write the migration guide"}])
    chat.note("info", "Request cancelled.")
    chat.user([{"text": "just the summary"}])
    chat.gemini("Here it is.")
    chat.note("info", "Memory is currently empty.")  # another note is bookkeeping

    session = _session(chat, tmp_path)
    assert len(session.interrupts) == 1
    assert _typed(session) == ["write the migration guide", "just the summary"]


def test_esc_on_a_running_call_is_an_interrupted_call_and_a_no_stays_a_denial(
        tmp_path: Path) -> None:
    chat = GeminiChat("5a000008-0000-4000-8000-000000000008")
    chat.user([{"text": "run the slow suite"}])
    stopped = chat.gemini("")
    chat.reappend(stopped, toolCalls=[_cancelled(chat, "k1", "pytest -x",
                                                 "Operation cancelled by user")])
    chat.note("info", "Request cancelled.")  # after the stopped call: the same Esc
    chat.user([{"text": "clear the cache"}])
    refused = chat.gemini("")
    chat.reappend(refused, toolCalls=[_cancelled(chat, "k2", "rm -rf .cache",
                                                 "User denied execution.")])
    chat.note("info", "Request cancelled.")  # the denial's own note
    chat.user([{"text": "run just the unit tests"}])
    quiet = chat.gemini("")  # a call stopped with no note after it is still one Esc
    chat.reappend(quiet, toolCalls=[_cancelled(chat, "k3", "pytest unit",
                                               "Operation cancelled by user")])

    session = _session(chat, tmp_path)
    assert [(d.tool_use_id, d.kind) for d in session.denials] == [("k2", DENIAL_KIND_USER_REJECTED)]
    assert len(session.interrupts) == 2
    assert session.failures == ()
