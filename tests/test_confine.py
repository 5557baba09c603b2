"""Which files learn may write (learn.report.confine): instruction surfaces, by name and
place, after following every link, inside the project or the agents' user homes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from learn.report.confine import SURFACES, backups_dir, confine, may_write, project_roots
from learn.report.errors import ConfinementError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "shop"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.parametrize("rel", [
    "CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "src/api/CLAUDE.md",
    ".claude/rules/testing.md", ".claude/rules/api/errors.md", ".claude/commands/release.md",
    ".claude/settings.json", ".claude/settings.local.json", "AGENTS.md", "AGENTS.override.md",
    "packages/web/AGENTS.md",
    # The other agents' own.
    "GEMINI.md", "packages/web/GEMINI.md", ".github/copilot-instructions.md",
    ".github/instructions/api.instructions.md", ".cursor/rules/testing.mdc",
    ".windsurf/rules/testing.md", ".kiro/steering/testing.md",
])
def test_the_projects_instruction_files_may_be_written(project: Path, rel: str) -> None:
    assert confine(project / rel, [project]) == project / rel


@pytest.mark.parametrize("rel", [
    "README.md", "src/app.py", ".bashrc", ".claude/hooks.sh", ".claude/rules/x.txt",
    ".claude/settings.json.bak", ".git/hooks/pre-commit", ".git/CLAUDE.md",
    "node_modules/pkg/CLAUDE.md", ".venv/lib/AGENTS.md", "Makefile",
    ".github/workflows/ci.yml", ".github/instructions/api.md", ".github/CODEOWNERS",
    ".cursor/rules/testing.md", ".cursor/mcp.json", ".windsurf/rules/x.txt",
    ".kiro/settings/mcp.json", ".kiro/steering/deep/x.md", "node_modules/pkg/GEMINI.md",
    ".gemini/settings.json",
    # a case-insensitive disk's spellings of a dependency folder
    "Node_Modules/pkg/CLAUDE.md", "VENDOR/pkg/AGENTS.md",
])
def test_anything_else_in_the_project_is_refused(project: Path, rel: str) -> None:
    with pytest.raises(ConfinementError, match="not an instruction file learn may write"):
        confine(project / rel, [project])


def test_the_user_homes_and_learns_backups(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    for rel in (".claude/CLAUDE.md", ".claude/rules/git.md", ".claude/commands/pr.md",
                ".claude/settings.json", ".codex/AGENTS.md", ".codex/AGENTS.override.md",
                ".codex/rules/learn.rules", ".codex/prompts/pr.md", ".gemini/GEMINI.md",
                ".copilot/copilot-instructions.md", ".config/opencode/AGENTS.md"):
        assert may_write(home / rel), rel
    for rel in (".bashrc", ".profile", ".ssh/authorized_keys", ".claude/hooks/x.sh",
                ".codex/config.toml", "CLAUDE.md", "code/shop/CLAUDE.md", ".claude.json",
                ".gemini/settings.json", ".gemini/tmp/x/chats/session-1.json",
                ".copilot/config.json", ".copilot/session-state/s/events.jsonl",
                ".config/opencode/opencode.json", ".local/share/opencode/opencode.db",
                "GEMINI.md", ".cursor/rules/x.mdc"):
        assert not may_write(home / rel), rel
    assert not may_write(backups_dir() / "x.bak")  # learn's own data: only its own writers
    assert may_write(backups_dir() / "x.bak", internal=True)
    assert not may_write(backups_dir().parent / "learn.db")


def test_a_project_is_never_home_or_above_it_nor_relative(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    assert project_roots([home, home.parent, Path("code/shop"), None, ""]) == ()
    # With home as "the project", another project's CLAUDE.md would be fair game.
    assert not may_write(home / "code" / "other" / "CLAUDE.md", [home])


def test_links_are_followed_to_the_end_and_judged_there(project: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    bashrc = home / ".bashrc"
    bashrc.write_text("export A=1\n")
    (project / "CLAUDE.md").symlink_to(bashrc)
    with pytest.raises(ConfinementError, match=r"a link to .*\.bashrc"):
        confine(project / "CLAUDE.md", [project])
    # A folder above the file that leads out of the project.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".claude").symlink_to(elsewhere)
    with pytest.raises(ConfinementError):
        confine(project / ".claude" / "rules" / "x.md", [project])
    # A dangling link is judged where it points, not where it sits.
    (project / "AGENTS.md").symlink_to(tmp_path / "victim" / "AGENTS.md")
    assert not may_write(project / "AGENTS.md", [project])
    # A link inside the project to another instruction file of it is that file.
    (project / "docs").mkdir()
    (project / "docs" / "CLAUDE.md").symlink_to(project / "AGENTS.md.real")
    (project / "AGENTS.md.real").write_text("x\n")
    assert not may_write(project / "docs" / "CLAUDE.md", [project])  # lands on a non-surface
    (project / "CLAUDE.local.md").write_text("y\n")
    (project / "sub").mkdir()
    (project / "sub" / "CLAUDE.md").symlink_to(project / "CLAUDE.local.md")
    assert confine(project / "sub" / "CLAUDE.md", [project]) == project / "CLAUDE.local.md"


def test_only_regular_files(project: Path) -> None:
    os.mkfifo(project / "CLAUDE.md")
    with pytest.raises(ConfinementError, match="not a regular file"):
        confine(project / "CLAUDE.md", [project])
    (project / "AGENTS.md").mkdir()
    with pytest.raises(ConfinementError, match="not a regular file"):
        confine(project / "AGENTS.md", [project])
    with pytest.raises(ConfinementError, match="relative path"):
        confine(Path("CLAUDE.md"), [project])


def test_the_surfaces_are_data() -> None:
    # One list decides; another agent's home is one HOMES entry, its files rows here.
    from learn.report.confine import HOMES

    assert {s.base for s in SURFACES} == {"project", *HOMES}
    assert all(s.pattern and s.what for s in SURFACES)
