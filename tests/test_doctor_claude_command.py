"""`learn doctor` says when the installed /learn is an earlier learn's.

An earlier copy runs `learn run` without `--exit-zero`, and Claude Code 2.1.332 drops the
whole command when one stage of the run fails; only `learn install-claude-command` replaced
it, and nothing said to run it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from learn.cli import cli
from learn.doctor_command import check_claude_command
from learn.report.claude_command import command_text, is_earlier

EARLIER = Path(__file__).parent / "fixtures" / "claude_21332" / "learn_md_before_exit_zero.md"


def _put(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_the_fixture_is_a_text_an_earlier_learn_shipped() -> None:
    assert is_earlier(EARLIER.read_bytes())
    assert not is_earlier(command_text().encode("utf-8"))


def test_no_line_when_no_learn_md_is_installed(tmp_path: Path) -> None:
    assert check_claude_command(tmp_path / "claude", tmp_path / "project") is None


def test_an_earlier_copy_in_the_project_is_a_warning_naming_it_and_the_fix(tmp_path: Path) -> None:
    _put(tmp_path / "claude" / "commands" / "learn.md", command_text().encode("utf-8"))
    old = _put(tmp_path / "project" / ".claude" / "commands" / "learn.md", EARLIER.read_bytes())
    got = check_claude_command(tmp_path / "claude", tmp_path / "project")
    assert got is not None and got.status == "warn"
    assert str(old) in got.detail and "install-claude-command" in got.hint
    assert str(tmp_path / "claude") not in got.detail  # the current copy is not blamed


def test_the_current_copy_is_ok_and_a_persons_own_is_left_alone(tmp_path: Path) -> None:
    mine = _put(tmp_path / "claude" / "commands" / "learn.md", b"---\ndescription: mine\n---\nhi\n")
    got = check_claude_command(tmp_path / "claude", None)
    assert got is not None and got.status == "ok" and str(mine) in got.detail
    mine.write_bytes(command_text().encode("utf-8"))
    got = check_claude_command(tmp_path / "claude", None)
    assert got is not None and got.status == "ok" and "installed" in got.detail


def test_doctor_shows_the_warning(tmp_path: Path) -> None:
    home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    _put(home / "commands" / "learn.md", EARLIER.read_bytes())
    result = CliRunner().invoke(cli, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(result.output)["checks"]}
    assert checks["/learn"]["status"] == "warn", result.output


def test_two_earlier_copies_are_named_together(tmp_path: Path) -> None:
    _put(tmp_path / "claude" / "commands" / "learn.md", EARLIER.read_bytes())
    _put(tmp_path / "project" / ".claude" / "commands" / "learn.md", EARLIER.read_bytes())
    got = check_claude_command(tmp_path / "claude", tmp_path / "project")
    assert got is not None and got.status == "warn" and " are an earlier learn's" in got.detail
