"""`learn install-claude-command` writes as every write to a person's file is made:
modes of the files it replaces kept, nothing written before it refuses, and a hook
naming this machine's Python kept out of a project's checked-in settings."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from click.testing import CliRunner

from learn.commands.install_claude_command import command as install
from learn.hook.settings import has_hook, hook_command
from learn.report.claude_command import command_text


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_replacing_settings_and_learn_md_keeps_their_modes() -> None:
    claude = Path.home() / ".claude"
    (claude / "commands").mkdir(parents=True)
    settings = claude / "settings.json"
    settings.write_text('{\n  "model": "opus"\n}\n', encoding="utf-8")
    settings.chmod(0o644)
    own = claude / "commands" / "learn.md"
    own.write_text("my own /learn\n", encoding="utf-8")
    own.chmod(0o644)
    result = CliRunner().invoke(install, ["--hooks", "--force", "--yes"])
    assert result.exit_code == 0, result.output
    assert has_hook(json.loads(settings.read_text(encoding="utf-8")))
    assert own.read_text(encoding="utf-8") == command_text()
    assert _mode(settings) == 0o644 and _mode(own) == 0o644


def test_a_new_settings_file_is_private_and_the_command_made_as_any_new_file() -> None:
    # settings.json may come to hold an `env` of keys: private. The command is the person's
    # file as the others in ~/.claude/commands are: 0666 less the umask.
    result = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    claude = Path.home() / ".claude"
    assert _mode(claude / "settings.json") == 0o600
    assert _mode(claude / "commands" / "learn.md") == _as_any_new_file()

def _as_any_new_file() -> int:
    """0666 less this process's umask: the mode a new file of the person's is made with
    (learn.report.held_folder.replace_in), the /learn command among them."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask



def test_a_different_learn_md_is_refused_before_settings_are_touched() -> None:
    claude = Path.home() / ".claude"
    (claude / "commands").mkdir(parents=True)
    settings = claude / "settings.json"
    settings.write_text('{"model": "opus"}\n', encoding="utf-8")
    (claude / "commands" / "learn.md").write_text("my own /learn\n", encoding="utf-8")
    result = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert result.exit_code != 0 and "--force" in result.output
    assert settings.read_text(encoding="utf-8") == '{"model": "opus"}\n'
    assert "added learn's hooks" not in result.output
    backups = Path.home() / ".local" / "share" / "learn" / "backups"
    assert not backups.exists() or not list(backups.iterdir())


def test_project_hooks_go_to_settings_local_json_not_the_checked_in_settings(
        tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    shared = project / ".claude" / "settings.json"
    shared.write_text('{\n  "permissions": {\n    "deny": []\n  }\n}\n', encoding="utf-8")
    result = CliRunner().invoke(install, ["--project", "--project-dir", str(project), "--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    assert shared.read_text(encoding="utf-8") == '{\n  "permissions": {\n    "deny": []\n  }\n}\n'
    local = json.loads((project / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    assert has_hook(local) and has_hook(local, "InstructionsLoaded", "hook instructions-loaded")
    assert (project / ".claude" / "commands" / "learn.md").read_text() == command_text()
    # Installing again finds them where they went.
    again = CliRunner().invoke(install, ["--project", "--project-dir", str(project), "--hooks", "--yes"])
    assert again.exit_code == 0 and "already in" in again.output


def test_hooks_an_older_learn_left_in_the_checked_in_settings_are_pointed_out(
        tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    shared = project / ".claude" / "settings.json"
    old = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": hook_command()}]}]}}
    shared.write_text(json.dumps(old), encoding="utf-8")
    result = CliRunner().invoke(install, ["--project", "--project-dir", str(project), "--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    assert f"{shared} (checked in) also has learn's hooks" in result.output
    assert json.loads(shared.read_text(encoding="utf-8")) == old  # the team's file: not learn's
