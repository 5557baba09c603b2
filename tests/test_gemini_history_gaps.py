"""A Gemini CLI shell-mode line (`!cmd`) in a session known only from `logs.json`, whose
command has dropped out of `shell_history` (the client keeps the last 100).

The log entry has no mark of the mode (the client logs the input before it looks at the
mode, without the `!`). What does name it: a finished shell command goes into the model's
history as "I ran the following shell command: ..." (and into the UI history as a
`user_shell` item), and `/chat save` or checkpointing writes that history beside the log.
The folders here are built in a temp HOME in the shapes the client writes; the texts are
this project's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_gemini_logs import OLD, _entry, _folder, _project, _typed, _write_log

from learn.transcripts.gemini.checkpoints import checkpoint_shell_commands

OLD_COMMAND = "npm run lint -- --fix"


def _shell_turn(command: str, output: str) -> dict[str, Any]:
    """The model-history turn the client adds when a shell-mode command finishes."""
    return {"role": "user", "parts": [{"text": (
        f"I ran the following shell command:\n```sh\n{command}\n```\n\n"
        f"This produced the following result:\n```\n{output}\n```")}]}


def _history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "parts": [{"text": "tidy the lint warnings in the parser"}]},
        {"role": "model", "parts": [{"text": "Run the fixer first; I'll handle the rest."}]},
        _shell_turn(OLD_COMMAND, "fixed 12 problems, 2 remain"),
        {"role": "user", "parts": [{"text": "now the two that remain"}]},
    ]


def _log(folder: Path) -> Path:
    log = _write_log(folder, [
        _entry(OLD, 0, "tidy the lint warnings in the parser"),
        _entry(OLD, 1, OLD_COMMAND),  # `!npm run lint -- --fix`, logged without its `!`
        _entry(OLD, 2, "now the two that remain"),
    ])
    # 100 later commands pushed it out of the history file.
    (folder / "shell_history").write_text("".join(f"ls build/{n}\n" for n in range(100)))
    return log


def _chat_save_list(folder: Path) -> None:
    """`/chat save lint` in the first builds: the history as a bare `Content[]`."""
    (folder / "checkpoint-lint.json").write_text(json.dumps(_history(), indent=2))


def _chat_save_object(folder: Path) -> None:
    """`/chat save lint` later: `{history, authType}`."""
    (folder / "checkpoint-lint.json").write_text(
        json.dumps({"history": _history(), "authType": "oauth-personal"}, indent=2))


def _checkpointing(folder: Path) -> None:
    """Checkpointing before a file-changing call: the UI's history and the model's."""
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "2025-07-03T09-12-00_000Z-parser.ts-replace.json").write_text(
        json.dumps({"history": [{"id": 3, "type": "user_shell", "text": OLD_COMMAND}],
                    "clientHistory": _history(), "toolCall": {"name": "replace", "args": {}},
                    "commitHash": "4be1c0d"}, indent=2))


@pytest.mark.parametrize("save", [_chat_save_list, _chat_save_object, _checkpointing])
def test_a_logged_shell_command_a_saved_history_names_is_a_shell_line(
        save: Callable[[Path], None], tmp_path: Path) -> None:
    folder = _folder(_project(tmp_path))
    log = _log(folder)
    save(folder)
    assert _typed(log / OLD) == ["tidy the lint warnings in the parser",
                                 "now the two that remain"]


def test_with_no_saved_history_an_old_shell_command_still_reads_as_typed(tmp_path: Path) -> None:
    """Nothing in the folder names it: the entry alone cannot tell (the test above fails
    without checkpoints being read)."""
    folder = _folder(_project(tmp_path))
    log = _log(folder)
    assert _typed(log / OLD)[1] == OLD_COMMAND


def test_only_the_shell_turns_of_a_saved_history_count(tmp_path: Path) -> None:
    """Typed turns in a saved history are no shell commands; a turn opening like the
    shell turn but without its result is no shell turn; a broken file is skipped."""
    folder = tmp_path / "proj"
    folder.mkdir()
    history = [*_history(),
               {"role": "user", "parts": [{"text": "I ran the following shell command:\n```sh\n"
                                                   "make release\n```"}]}]
    (folder / "checkpoint-a.json").write_text(json.dumps(history))
    (folder / "checkpoint-b.json").write_text('{"history": [')
    assert checkpoint_shell_commands(folder) == {OLD_COMMAND}
