"""What `opencode run` leaves in the store that is not what the person typed, and a `run`
killed mid-answer (OpenCode 1.18.33, driven for real offline against a fake OpenAI-compatible
server on 127.0.0.1, 2026-12):

- the one text part of its message is its arguments, each holding a space in quotes, then
  a newline and whatever stdin held when it was piped (`cat log | opencode run "why"`);
- killed (SIGTERM, or Ctrl-C at a terminal), its reply stays as it was: no completed time,
  no `finish`, no error; nothing else says it stopped.

The stores are real SQLite files in a temp HOME (`test_opencode_client_records.Store`); the
texts are this project's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_opencode_client_records import RUN_RULES, T0, Store, _data, _project, _view

from learn.transcripts.models import UserEvent
from learn.transcripts.opencode.lower import PIPED_INPUT
from learn.transcripts.opencode.run_message import split_run_message
from learn.transcripts.parser import parse

# Piped in: a build log, as `cat build.log | opencode run ...` appends it.
LOG = ("step 3/7: compiling the ledger module\n"
       "error: the rounding helper takes two arguments, one was given\n"
       "build stopped after 41 seconds\n")


def _run_session(project: Path, text: str, *, rules: list[Any] | None = RUN_RULES) -> Path:
    store = Store(_data() / "opencode.db", project)
    store.session("ses_run1", T0, permission=rules)
    store.user("ses_run1", T0 + 1_000, text)
    store.reply("ses_run1", T0 + 2_000, {"type": "text", "text": "The helper lost an argument."})
    return store.close() / "ses_run1"


def _piped(path: Path) -> list[str]:
    return [e.text for e in parse(path).events
            if isinstance(e, UserEvent) and e.origin_kind == PIPED_INPUT and e.meta.is_meta]


def test_what_opencode_run_appends_from_stdin_is_not_typed_only_its_argument(
        tmp_path: Path) -> None:
    """`cat build.log | opencode run "why does the build stop"`: the person typed the
    question; the log is context, and says it was piped."""
    path = _run_session(_project(tmp_path), f'"why does the build stop"\n{LOG}')
    assert [t.text for t in _view(path).human_turns] == ["why does the build stop"]
    assert _piped(path) == [LOG]


@pytest.mark.parametrize(("stored", "typed", "piped"), [
    # Bare words are joined as they came; stdin after a newline.
    (f"why does it stop\n{LOG}", ["why does it stop"], [LOG]),
    # No argument: the message is stdin alone (`echo "..." | opencode run`): one line
    # ending in a newline, which no argument line does.
    ("fix the flaky login test\n", [], ["fix the flaky login test\n"]),
    # ... or stdin whose first line no argument line could be (a run of spaces).
    ("  File \"ledger.py\", line 9\nTypeError: round()\n", [],
     ["  File \"ledger.py\", line 9\nTypeError: round()\n"]),
    # Not piped: only `run`'s quotes come off (its `\"` back to `"`).
    ('"rename \\"total\\" to subtotal" everywhere', ['rename "total" to subtotal everywhere'],
     []),
    # A message typed into the same session from the TUI, several lines and no newline at
    # its end: no argument line and no stdin, left whole.
    ("keep the old name\nas an alias for one release", [
        "keep the old name\nas an alias for one release"], []),
])
def test_an_opencode_run_message_is_split_into_arguments_and_stdin(
        stored: str, typed: list[str], piped: list[str], tmp_path: Path) -> None:
    path = _run_session(_project(tmp_path), stored)
    assert [t.text for t in _view(path).human_turns] == typed
    assert _piped(path) == piped


def test_a_message_outside_opencode_run_is_never_split(tmp_path: Path) -> None:
    """A TUI session (none of `run`'s rules) with the same text: the person wrote all of
    it there (a pasted log is their paste, as in every other agent's TUI)."""
    text = f'"why does the build stop"\n{LOG}'
    path = _run_session(_project(tmp_path), text, rules=None)
    assert [t.text for t in _view(path).human_turns] == [text.strip()]
    assert _piped(path) == []


def test_the_split_follows_how_run_joins_its_arguments() -> None:
    assert split_run_message('"a b" c\nd\n') == ("a b c", "d\n")
    assert split_run_message('"two\nlines here"') == ("two\nlines here", "")
    # A run of spaces or a leading one is no joined argument line: stdin alone.
    assert split_run_message("  indented output\n") == ("", "  indented output\n")
    # Stdin alone whose first line could be a line of bare arguments is the same text as
    # those arguments and that stdin: read so (the rest is still no typed turn).
    assert split_run_message(LOG) == (LOG.split("\n", 1)[0], LOG.split("\n", 1)[1])
    # An argument ending in a backslash keeps it (`run` does not escape backslashes).
    assert split_run_message('"dir a\\"\nlisting\n') == ("dir a\\", "listing\n")


# ---------------------------------------------------------------- a `run` killed mid-answer


def _reply(store: Store, sid: str, at: int, info: dict[str, Any],
           parts: list[dict[str, Any]]) -> None:
    """An assistant message with the `time` and end fields given (Store.message sets
    `created` only)."""
    store.n += 1
    mid = f"msg_{store.n:04d}"
    cwd = str(store.project)
    data = {"role": "assistant", "modelID": "m", "mode": "build",
            "path": {"cwd": cwd, "root": cwd}, **info}
    with store.conn:
        store.conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                           (mid, sid, at, at, json.dumps(data)))
        for i, part in enumerate(parts):
            store.conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                               (f"prt_{store.n:04d}{i:02d}", mid, sid, at, at, json.dumps(part)))


def _ended(tmp_path: Path, info: dict[str, Any]) -> Any:
    store = Store(_data() / "opencode.db", _project(tmp_path))
    store.session("ses_kill", T0, permission=RUN_RULES)
    store.user("ses_kill", T0 + 1_000, '"walk me through the migration"')
    # What a killed run leaves: the step started, an empty text part, nothing ended.
    _reply(store, "ses_kill", T0 + 2_000, info,
           [{"type": "step-start"}, {"type": "text", "text": "", "time": {"start": T0 + 2_500}}])
    return _view(store.close() / "ses_kill")


def test_an_opencode_run_killed_mid_answer_is_an_interrupt(tmp_path: Path) -> None:
    view = _ended(tmp_path, {"time": {"created": T0 + 2_000}})
    assert [t.text for t in view.human_turns] == ["walk me through the migration"]
    assert len(view.interrupts) == 1


@pytest.mark.parametrize("info", [
    {"time": {"created": T0 + 2_000, "completed": T0 + 9_000}, "finish": "stop"},
    # A failure is no interrupt: it carries its error (and its end).
    {"time": {"created": T0 + 2_000, "completed": T0 + 3_000},
     "error": {"name": "APIError", "data": {"message": "bad gateway"}}},
])
def test_a_reply_that_ended_is_no_interrupt(info: dict[str, Any], tmp_path: Path) -> None:
    assert _ended(tmp_path, info).interrupts == ()


def test_an_aborted_reply_is_one_interrupt_not_two(tmp_path: Path) -> None:
    """The TUI's abort writes MessageAbortedError (read before this change): the end it
    lacks does not count it again."""
    view = _ended(tmp_path, {"time": {"created": T0 + 2_000},
                             "error": {"name": "MessageAbortedError", "data": {}}})
    assert len(view.interrupts) == 1
