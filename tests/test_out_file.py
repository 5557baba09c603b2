"""`--out` takes a report, never an agent's controls, a transcript or learn's own data.

`learn run --out ~/.claude/settings.json` wrote the digest (Markdown) over Claude Code's
settings, whose deny rules then stopped applying; `--out CLAUDE.md` replaced the
person's memory wholesale. Each command that takes `--out` is run here as a person runs
it, on real files in a temp HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.report.errors import ConfinementError
from learn.report.out_file import out_refusal, write_out


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    """The test's HOME (conftest): learn's folders and the agents' at their defaults."""
    return _isolated_home


@pytest.mark.parametrize("rel", [
    ".claude/settings.json",
    ".claude/projects/-w-app/3f1c.jsonl",  # a transcript
    ".claude/CLAUDE.md",
    ".codex/hooks.json",
    ".codex/sessions/2026/11/02/rollout-x.jsonl",
    ".gemini/settings.json",
    ".copilot/session-state/x.jsonl",
    ".config/opencode/AGENTS.md",
    ".local/share/opencode/storage/session/x.json",
    ".local/share/learn/learn.db",
    ".local/share/learn/learn.db-wal",
    ".local/share/learn/decisions.jsonl",
    ".local/share/learn/run.lock",
    ".local/share/learn/hook/queue.json",
    ".local/share/learn/checks/app.json",
    ".local/share/learn/backups/x.bak",
    ".config/learn/config.toml",
    "work/app/CLAUDE.md",
    "work/app/claude.md",  # the same file on a case-insensitive disk
    "work/app/AGENTS.md",
    "work/app/pkg/GEMINI.md",
    "work/app/.claude/settings.local.json",
    "work/app/.claude/rules/style.md",
    "work/app/.claude/commands/ship.md",
    "work/app/.github/copilot-instructions.md",
    "work/app/.cursor/rules/x.mdc",
])
def test_an_agents_controls_transcripts_and_learns_data_are_refused(home: Path, rel: str) -> None:
    target = home / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("mine\n")
    assert out_refusal(target) is not None
    with pytest.raises(ConfinementError, match="Nothing was written"):
        write_out(target, "# digest\n")
    assert target.read_text() == "mine\n"


@pytest.mark.parametrize("rel", ["digest.md", "work/app/notes/learn-digest.md",
                                 "work/app/report.html", ".local/share/learn/digests/d.md",
                                 ".local/share/learn/reports/report.html",
                                 ".cache/learn/out.json"])
def test_a_file_of_its_own_takes_the_report(home: Path, rel: str) -> None:
    target = home / rel
    write_out(target, "# digest\n")
    assert target.read_text() == "# digest\n"
    assert os.stat(target).st_mode & 0o777 == 0o600


def test_a_name_that_links_to_the_controls_is_refused(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}\n')
    link = home / "digest.md"
    link.symlink_to(settings)
    with pytest.raises(ConfinementError, match="agent's own folder"):
        write_out(link, "# digest\n")
    assert json.loads(settings.read_text())["permissions"]["deny"] == ["Bash(rm:*)"]


def test_a_folder_that_links_into_an_agents_home_is_refused(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / "reports").symlink_to(home / ".claude")
    assert out_refusal(home / "reports" / "settings.json") is not None
    assert out_refusal(home / "reports" / "anything.md") is not None


def _learn(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "ANTHROPIC_"))}
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=home,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", [
    ("digest", "--all-projects", "--out"),
    ("report", "--all-projects", "--out"),
    ("run", "--all-projects", "--yes", "--quiet", "--backend", "replay", "--out"),
])
def test_each_command_refuses_before_writing(home: Path, command: tuple[str, ...]) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    done = _learn(home, *command, str(settings))
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Nothing was written" in done.stderr
    assert "Traceback" not in done.stderr
    assert settings.read_text() == "{}\n"


def test_an_agents_folder_in_another_case_is_refused_where_case_folds(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # macOS: ~/.CLAUDE is ~/.claude; its transcripts are still the agent's.
    if str(home) != str(home).casefold():
        pytest.skip("the temp folder's own path has capitals")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert out_refusal(home / ".CLAUDE" / "projects" / "-w-app" / "x.jsonl") is not None
    assert out_refusal(home / "Notes" / "digest.md") is None
