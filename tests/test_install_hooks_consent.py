"""`learn install-claude-command --hooks` changes a person's settings.json as every other
write of learn's does: only learn's own hooks are rewritten (a person's command that runs
learn is theirs), the change is shown as a diff and asked for, and `learn apply --undo`
takes it back. Before, it rewrote a person's
`LEARN_HOOK_INTERVAL=30 ~/bin/learn hook session-end ...; notify-send done` to learn's
plain form without a word, and nothing could undo it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.cli import cli
from learn.commands.install_claude_command import command as install
from learn.hook.settings import hook_command, is_learn_hook, with_hooks

MINE = ("LEARN_HOOK_INTERVAL=30 ~/bin/learn hook session-end --backend claude-cli; "
        "notify-send done")


def _settings() -> Path:
    path = Path.home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _commands(data: dict[str, object], event: str) -> list[str]:
    groups = data["hooks"][event]  # type: ignore[index]
    return [h["command"] for g in groups for h in g["hooks"]]


@pytest.mark.parametrize("command", [
    "learn hook session-end",  # a bare learn (older versions)
    "/old/venv/bin/python -m learn hook session-end",  # another venv, before -P
    "'/my venv/bin/python' -P -m learn hook session-end",
    "'C:\\Users\\me\\venv\\Scripts\\python.exe' -P -m learn hook session-end",  # Windows
    'sh "${CLAUDE_PLUGIN_ROOT}/hooks/learn-hook" session-end',
])
def test_learns_own_forms_are_recognised_whole(command: str) -> None:
    assert is_learn_hook(command)


@pytest.mark.parametrize("command", [
    MINE,
    "~/bin/learn hook session-end",  # their own learn, by their path
    "/usr/bin/python -m learn hook session-end --backend claude-cli",
    "/usr/bin/python -m learn hook session-end && notify-send done",
    "learn hook session-end; rm -rf ~/tmp",
])
def test_a_persons_command_that_runs_learn_is_not_learns_to_rewrite(command: str) -> None:
    assert not is_learn_hook(command)


def test_a_persons_own_hook_running_learn_is_kept_and_not_doubled() -> None:
    settings = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": MINE}]}]}}
    new = with_hooks(settings)
    assert _commands(new, "SessionEnd") == [MINE]
    assert _commands(new, "InstructionsLoaded") == [hook_command(args="hook instructions-loaded")]


def test_install_keeps_a_persons_hook_and_says_so() -> None:
    settings = _settings()
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [
        {"hooks": [{"type": "command", "command": MINE}]}]}}), encoding="utf-8")
    done = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert done.exit_code == 0, done.output
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert _commands(data, "SessionEnd") == [MINE]
    assert "already runs `learn hook session-end`" in done.output


def test_the_hooks_are_shown_and_not_written_without_consent() -> None:
    settings = _settings()
    settings.write_text('{\n  "model": "opus"\n}\n', encoding="utf-8")
    done = CliRunner().invoke(install, ["--hooks"])  # not a terminal, no --yes
    assert done.exit_code != 0
    assert f"+++ {settings}" in done.output and "SessionEnd" in done.output
    assert "--yes" in done.output
    assert settings.read_text(encoding="utf-8") == '{\n  "model": "opus"\n}\n'
    assert not (settings.parent / "commands" / "learn.md").exists()  # nothing half done


def test_the_hooks_written_are_undone_by_learn_apply_undo() -> None:
    settings = _settings()
    settings.write_text('{\n  "model": "opus"\n}\n', encoding="utf-8")
    done = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert done.exit_code == 0, done.output
    assert "SessionEnd" in settings.read_text(encoding="utf-8")
    undo = CliRunner().invoke(cli, ["apply", "--undo", "--yes"])
    assert undo.exit_code == 0, undo.output
    assert settings.read_text(encoding="utf-8") == '{\n  "model": "opus"\n}\n'
    assert not (settings.parent / "commands" / "learn.md").exists()
