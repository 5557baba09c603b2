"""The Claude Code plugin and `learn install-claude-command`: layout, frontmatter, and the
command's `!` shell line, run against a fake `learn` that records its argv."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.commands.install_claude_command import command as install
from learn.commands.install_claude_command import command_text

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "integrations" / "claude-code"
COMMAND = PLUGIN / "commands" / "learn.md"


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert m, "no frontmatter"
    fields = {}
    for line in m.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, m.group(2)


def shell_lines(body: str) -> list[str]:
    return re.findall(r"!`([^`]+)`", body)


def test_plugin_manifest_layout() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "learn"
    for key in ("version", "description", "author", "license"):
        assert manifest.get(key), key
    # Declaring hooks in plugin.json breaks loading when hooks/hooks.json also exists.
    assert "hooks" not in manifest
    market = json.loads((PLUGIN / ".claude-plugin" / "marketplace.json").read_text())
    assert market["owner"]["name"]
    entry = next(p for p in market["plugins"] if p["name"] == "learn")
    assert (PLUGIN / entry["source"] / ".claude-plugin" / "plugin.json").is_file()
    assert (PLUGIN / "README.md").read_text().count("learn@" + market["name"]) >= 1


def test_command_file_is_the_packaged_one() -> None:
    # The installer ships a copy inside the package; the two must never drift.
    assert COMMAND.read_text() == command_text()


def test_frontmatter_covers_exactly_the_shell_line() -> None:
    fields, body = frontmatter(COMMAND.read_text())
    assert fields["disable-model-invocation"] == "true"
    assert 0 < len(fields["description"]) <= 60
    assert fields["argument-hint"]
    lines = shell_lines(body)
    assert len(lines) == 1
    allowed = [t.strip() for t in fields["allowed-tools"].split(",")]
    bash = [t for t in allowed if t.startswith("Bash(")]
    # The line itself, not every `learn run` line (`--out FILE` writes anywhere).
    assert bash == [f"Bash({lines[0]})"]
    # The digest (marker first) is the first thing in the expanded prompt.
    assert body.lstrip().startswith("!`")
    assert "learn apply" in body and "approve" in body


def test_the_command_never_writes_on_the_persons_behalf() -> None:
    """Claude shows the exact diffs of a dry run and writes only what the person then
    confirmed: `--confirm TOKEN`, never `--yes` (the token binds the yes to those diffs)."""
    for path in (COMMAND, Path(__file__).resolve().parents[1] / "learn" / "report"
                 / "claude_command.md"):
        fields, body = frontmatter(path.read_text())
        assert not re.search(r"learn apply[^\n`]*--yes", body), path
        assert "`learn apply --dry-run --only KEY`" in body
        assert "--confirm TOKEN" in body and "Never pass `--yes`" in body
        assert "diff" in body and "ask\n   me again" in body
        assert "learn apply" not in fields["allowed-tools"]  # Claude Code asks before a write
        assert "learn apply --undo" in body


def expand(arguments: str) -> str:
    """The command body as Claude Code expands it: $ARGUMENTS replaced wherever it is."""
    _, body = frontmatter(COMMAND.read_text())
    return body.replace("$ARGUMENTS", arguments)


def run_command_line(tmp_path: Path, arguments: str) -> list[str]:
    """Expand $ARGUMENTS like Claude Code, then run the line with a fake `learn` on PATH."""
    line = shell_lines(expand(arguments))[0]
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    log = tmp_path / "argv.json"
    fake = bindir / "learn"
    fake.write_text("#!/usr/bin/env python3\nimport json, sys\n"
                    f"json.dump(sys.argv[1:], open({str(log)!r}, 'w'))\n"
                    "print('[learn-digest] Read 3 sessions.')\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["/bin/bash", "-c", line], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=30, check=True)
    assert proc.stdout.startswith("[learn-digest]")
    argv: list[str] = json.loads(log.read_text())
    return argv


def test_shell_line_runs_learn_with_the_flags(tmp_path: Path) -> None:
    argv = run_command_line(tmp_path, "")
    assert argv[0] == "run"
    assert "--yes" in argv and "--quiet" in argv
    assert argv[argv.index("--backend") + 1] == "auto"
    assert "--json" not in argv  # markdown is what the prompt needs
    # Words after the command never reach the shell line: "/learn then apply the
    # accepted rules" made `learn run` fail on unknown arguments.
    for words in ("then apply the accepted rules", "--since 7d --all-projects",
                  "it's; rm -rf ~ `whoami` $(id)"):
        assert run_command_line(tmp_path, words) == argv


def test_the_words_after_the_command_reach_claude_as_the_request() -> None:
    words = "then apply the accepted rules"
    body = expand(words)
    line = shell_lines(body)[0]
    assert "$ARGUMENTS" not in line and words not in line
    request = next(x for x in body.splitlines() if words in x)
    assert request.startswith("My request")
    assert body.index(line) < body.index(request)  # the digest first, then the request
    # Flags typed as words are honoured by Claude re-running learn run with them,
    # which Claude Code asks about first.
    assert "--since 7d" in body and "learn run --yes --quiet --backend auto" in body
    # Pending proposals are shown and declining is its own command.
    assert "pending" in body and "learn decline KEY" in body


def test_install_writes_only_where_learn_may_write(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".claude").symlink_to(elsewhere)  # a checkout's .claude leading outside
    res = CliRunner().invoke(install, ["--project", "--project-dir", str(project), "--hooks", "--yes"])
    assert res.exit_code != 0 and "not an instruction file learn may write" in res.output
    assert list(elsewhere.iterdir()) == []


def test_install_user_then_idempotent_then_no_clobber(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    dest = home / ".claude" / "commands" / "learn.md"
    res = CliRunner().invoke(install, [])
    assert res.exit_code == 0, res.output
    assert dest.read_text() == command_text()
    res = CliRunner().invoke(install, ["--user"])
    assert res.exit_code == 0 and "already installed" in res.output

    dest.write_text("my own /learn command\n")
    res = CliRunner().invoke(install, [])
    assert res.exit_code != 0 and "--force" in res.output
    assert dest.read_text() == "my own /learn command\n"
    res = CliRunner().invoke(install, ["--force"])
    assert res.exit_code == 0
    assert dest.read_text() == command_text()
    backups = list((home / ".local" / "share" / "learn" / "backups").iterdir())
    assert [b.read_text() for b in backups] == ["my own /learn command\n"]


def test_install_project(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    res = CliRunner().invoke(install, ["--project", "--project-dir", str(project / "sub")])
    assert res.exit_code == 0, res.output
    assert (project / ".claude" / "commands" / "learn.md").read_text() == command_text()


@pytest.mark.parametrize("arguments", ["", "--since 30d"])
def test_shell_line_is_valid_posix_sh(arguments: str) -> None:
    _, body = frontmatter(COMMAND.read_text())
    line = shell_lines(body.replace("$ARGUMENTS", arguments))[0]
    assert shlex.split(line)
    assert subprocess.run(["/bin/sh", "-n", "-c", line], check=False).returncode == 0
    assert "learn run --yes --quiet --backend auto --exit-zero" in line
