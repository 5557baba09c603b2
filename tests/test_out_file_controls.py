"""`--out` takes no file an agent reads as its controls, in any project, and a report it
replaces keeps its mode (learn.report.out_file).

An audit wrote the digest over 12 of 14 agent controls in a project: `.claude/agents`,
`.claude/skills`, `.claude/hooks`, `.mcp.json`, `.gemini/settings.json`,
`.cursor/mcp.json`, `.codex/config.toml`, `.github/prompts`, `.github/chatmodes`,
`.clinerules`, `.windsurfrules`, `.cursorrules`; only CLAUDE.md and
`.claude/settings.json` were refused. And a report it replaced was left 0600."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from learn.report.errors import ConfinementError
from learn.report.out_file import out_refusal, write_out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.parametrize(("rel", "what"), [
    (".claude/agents/reviewer.md", "Claude Code's folder"),
    (".claude/skills/deploy/SKILL.md", "Claude Code's folder"),
    (".claude/hooks/pre.sh", "Claude Code's folder"),
    (".mcp.json", "MCP server list"),
    (".vscode/mcp.json", "VS Code's MCP server list"),
    (".roo/rules/style.md", "Roo Code's folder"),
    (".continue/config.yaml", "Continue's folder"),
    (".amazonq/rules/x.md", "Amazon Q's folder"),
    (".aider.conf.yml", "aider's settings file"),
    (".gemini/settings.json", "Gemini CLI's folder"),
    (".cursor/mcp.json", "Cursor's folder"),
    (".codex/config.toml", "Codex's folder"),
    (".github/prompts/x.prompt.md", "GitHub Copilot"),
    (".github/chatmodes/x.chatmode.md", "GitHub Copilot"),
    (".github/agents/x.agent.md", "GitHub Copilot"),
    (".github/instructions/notes.md", "GitHub Copilot"),
    (".github/copilot-instructions.md", "instruction file"),
    (".clinerules", "Cline's rules"),
    (".clinerules/style.md", "Cline's folder"),
    (".windsurfrules", "Windsurf's rules"),
    (".windsurf/workflows/ship.md", "Windsurf's folder"),
    (".cursorrules", "Cursor's rules"),
    (".kiro/settings/mcp.json", "Kiro's folder"),
    (".opencode/agent/review.md", "OpenCode's folder"),
    # By name in any case and in any folder; agents' folders in any case.
    ("docs/Agents.md", "instruction file"),
    ("pkg/gemini.md", "instruction file"),
    (".MCP.json", "MCP server list"),
    (".Claude/agents/x.md", "Claude Code's folder"),
    # An agent's folder is one at any level, not just the project's top.
    ("packages/web/.claude/commands/notes/x.txt", "Claude Code's folder"),
])
def test_every_agents_controls_are_refused_and_named(project: Path, rel: str, what: str) -> None:
    target = project / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("mine\n")
    why = out_refusal(target)
    assert why is not None and what in why, why
    with pytest.raises(ConfinementError, match="Nothing was written") as refused:
        write_out(target, "# digest\n")
    assert what in str(refused.value)
    assert target.read_text() == "mine\n"


def test_a_report_name_that_links_into_an_agents_folder_is_refused(project: Path) -> None:
    agent = project / ".claude" / "agents" / "reviewer.md"
    agent.parent.mkdir(parents=True)
    agent.write_text("---\nname: reviewer\n---\n")
    link = project / "digest.md"
    link.symlink_to(agent)
    with pytest.raises(ConfinementError, match="Claude Code's folder"):
        write_out(link, "# digest\n")
    assert agent.read_text() == "---\nname: reviewer\n---\n"


@pytest.fixture
def in_tmp() -> Iterator[Path]:
    """A file right in /tmp, as `--out /tmp/x.json` names one (pytest's own temp folders
    are deeper)."""
    fd, name = tempfile.mkstemp(prefix="learn-out-", suffix=".json", dir="/tmp")
    os.close(fd)
    os.unlink(name)
    yield Path(name)
    Path(name).unlink(missing_ok=True)


@pytest.mark.parametrize("name", ["digest.md", "report.html", "agents-notes.md",
                                  "claude-digest.md", "github/prompts.md",
                                  ".vscode/digest.md"])
def test_a_report_of_its_own_is_still_written(
        project: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(project)
    Path(name).parent.mkdir(parents=True, exist_ok=True)
    assert out_refusal(Path(name)) is None
    write_out(Path(name), "# digest\n")
    assert (project / name).read_text() == "# digest\n"


def test_a_report_in_tmp_is_still_written(in_tmp: Path) -> None:
    write_out(in_tmp, "{}\n")
    assert in_tmp.read_text() == "{}\n"
    assert os.stat(in_tmp).st_mode & 0o777 == 0o600


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600], ids=oct)
def test_a_report_it_replaces_keeps_its_mode(project: Path, mode: int) -> None:
    report = project / "digest.md"
    report.write_text("# last week\n")
    os.chmod(report, mode)
    write_out(report, "# this week\n")
    assert report.read_text() == "# this week\n"
    assert os.stat(report).st_mode & 0o777 == mode


def test_a_new_report_and_one_replacing_a_link_are_private(project: Path) -> None:
    new = project / "new.md"
    write_out(new, "# digest\n")
    assert os.stat(new).st_mode & 0o777 == 0o600
    # A link at the name is replaced, not followed: its target's mode is not taken, and
    # the target is left as it was.
    shared = project / "shared.md"
    shared.write_text("theirs\n")
    os.chmod(shared, 0o644)
    link = project / "linked.md"
    link.symlink_to(shared)
    write_out(link, "# digest\n")
    assert not link.is_symlink()
    assert os.stat(link).st_mode & 0o777 == 0o600
    assert shared.read_text() == "theirs\n"


def test_a_data_folder_set_with_dot_dot_is_read_as_the_folder_it_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LEARN_DATA_DIR=/x/a/../data: `relative_to` of that spelling raised ValueError for
    every --out under the folder (learn report --out crashed)."""
    (tmp_path / "a").mkdir()
    monkeypatch.setenv("LEARN_DATA_DIR", f"{tmp_path}/a/../data")
    data = tmp_path / "data"
    data.mkdir()
    assert out_refusal(data / "digest.md") is None
    assert out_refusal(data / "learn.db") is not None
    assert out_refusal(Path(f"{tmp_path}/a/../data/backups/x.md")) is not None
