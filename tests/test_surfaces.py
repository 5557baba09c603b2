"""Coverage reads every instruction surface: @imports, AGENTS.override.md, `paths:` scoping,
auto-memory and Codex memories; a proposal covered only by memory is a promotion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.in_place import record_written
from learn.reduce.rules import collect_rules
from learn.reduce.surfaces import (
    encoded_project,
    imports_of,
    is_memory_file,
    more_rule_files,
    paths_of,
)
from learn.report.apply import edit_for
from learn.report.digest import render_digest_markdown
from learn.report.targets import TargetChoice
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook


def test_paths_frontmatter_block_and_flow_forms() -> None:
    assert paths_of('---\npaths:\n  - "src/api/**"\n  - \'lib/*.ts\'\n---\nbody') == [
        "src/api/**", "lib/*.ts"]
    assert paths_of('---\npaths: ["a/**", "b/**"]\n---\n') == ["a/**", "b/**"]
    assert paths_of("---\ndescription: x\n---\nbody") == []
    assert paths_of("no frontmatter") == []


def test_imports_skip_code(tmp_path: Path) -> None:
    text = "See @docs/style.md and @~/.claude/mine.md\n`@not/this.md`\n```\n@nor/this.md\n```\n"
    assert imports_of(text, tmp_path) == [tmp_path / "docs/style.md",
                                          Path("~/.claude/mine.md").expanduser()]


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "code" / "shop"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (project / "CLAUDE.md").write_text("Read @docs/conventions.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "conventions.md").write_text("- Use snake_case.\n@deeper.md\n")
    (project / "docs" / "deeper.md").write_text("- Never vendor dependencies.\n")
    (project / "AGENTS.override.md").write_text("- Run make check before a commit.\n")
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "api.md").write_text('---\npaths:\n  - "src/api/**"\n---\n- Return errors as values.\n')
    memory = home / ".claude" / "projects" / encoded_project(project) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- The user wants bun, not npm.\n")
    (memory / "testing.md").write_text("- Tests live next to the code.\n")
    codex = home / ".codex" / "memories"
    codex.mkdir(parents=True)
    (codex / "MEMORY.md").write_text("- Prefers short commit messages.\n")
    (codex / "raw_memories.md").write_text("- raw, not loaded\n")
    (project / "src" / "api").mkdir(parents=True)
    (project / "src" / "api" / "CLAUDE.md").write_text("- Handlers return errors as values.\n")
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "AGENTS.md").write_text("- a dependency's own rule\n")
    return home, project


def test_every_surface_is_read(setup: tuple[Path, Path]) -> None:
    home, project = setup
    corpus = collect_rules(project, home)
    texts = {r.text: r for r in corpus.rules}
    for line in ("Use snake_case.", "Never vendor dependencies.", "Run make check before a commit.",
                 "The user wants bun, not npm.", "Tests live next to the code.",
                 "Prefers short commit messages.", "Return errors as values."):
        assert line in texts, line
    assert "raw, not loaded" not in texts
    assert "Handlers return errors as values." in texts  # a folder's own CLAUDE.md
    assert "a dependency's own rule" not in texts
    assert texts["Return errors as values."].heading[0] == "(loaded only for src/api/**)"
    assert is_memory_file(texts["The user wants bun, not npm."].file)
    assert is_memory_file(texts["Prefers short commit messages."].file)
    assert not is_memory_file(texts["Use snake_case."].file)
    extra = {p.name for p, _ in more_rule_files(project, [project / "CLAUDE.md"], home)}
    assert {"conventions.md", "deeper.md", "AGENTS.override.md", "MEMORY.md"} <= extra


def test_a_proposal_covered_by_memory_is_a_promotion(setup: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    home, project = setup
    memory = home / ".claude" / "projects" / encoded_project(project) / "memory" / "MEMORY.md"
    quotes = tuple(Quote(s, "use bun not npm", "2026-03-01T00:00:00+00:00", str(project))
                   for s in ("a", "b"))
    p = Proposal("directive", "use-bun", "use bun not npm", 2, 2, None, quotes, status="restated",
                 existing_rule="The user wants bun, not npm.", existing_rule_file=str(memory),
                 verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    md = render_digest_markdown(RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage()))
    assert "promote from memory to CLAUDE.md" in md and str(memory) in md
    assert "so that rule is not working" not in md
    edit = edit_for(p, TargetChoice(project_dir=project, follow_quotes=True))
    assert edit.target == project / "CLAUDE.md" and edit.replace_line is None
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        assert record_written(ProposalBook(store), [p], str(project)) == []


def test_only_the_agents_own_memory_folders_are_memory(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    assert is_memory_file(home / ".claude/projects/-x-shop/memory/MEMORY.md", home)
    assert is_memory_file(home / ".codex/memories/MEMORY.md", home)
    # A project of yours that happens to be called "memory" is not.
    assert not is_memory_file(home / "projects/memory/CLAUDE.md", home)
    assert not is_memory_file(home / ".claude/projects/-x-shop/CLAUDE.md", home)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    assert is_memory_file(tmp_path / "cx/memories/topic.md", home)
    assert not is_memory_file(None)


def test_a_long_project_path_finds_claude_codes_hashed_memory_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past 200 characters Claude Code names the folder by the first 200 and a hash of the
    # path (its sanitizePath). Built whole, the name was past 255 bytes and looking for
    # it raised "File name too long": `learn run` exited 1 in a deep OneDrive folder.
    from learn.reduce.surfaces import claude_project_dir, memory_dirs

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    projects = home / ".claude" / "projects"
    deep = Path("/mnt/c/Users/me/OneDrive - Company/" + "Documents/" * 30 + "proj")
    # Node's djb2 of that path in base 36, as `node -e` computes it for Claude Code's
    # function (a Bun build hashes otherwise: then the one folder listed is taken).
    name = encoded_project(deep)
    assert len(name) > 255
    memory = projects / f"{name[:200]}-o52r6x" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- The user wants bun, not npm.\n")
    assert memory_dirs(deep, home)[0] == memory
    assert any(p == memory / "MEMORY.md" for p, _ in more_rule_files(deep, [], home))
    # Two long paths sharing their first 200 characters: Node's hash picks its own.
    (projects / f"{name[:200]}-abc123").mkdir()
    assert claude_project_dir(projects, deep) == memory.parent
    # None of them is this one's: no memory, and no error (a sibling's folder, the same
    # first 200 characters, is not taken for it).
    other = Path(str(deep) + "2")
    assert claude_project_dir(projects, other) is None
    assert all(p.parent.parent != projects for p, _ in more_rule_files(other, [], home))
    # Under Bun the hash is its own: the folder whose sessions ran in the project.
    bun = Path(str(deep) + "3")
    for folder, cwd in ((projects / f"{name[:200]}-bunhash1", bun),
                        (projects / f"{name[:200]}-bunhash2", Path(str(deep) + "4"))):
        folder.mkdir()
        (folder / "s.jsonl").write_text(json.dumps({
            "type": "user", "uuid": "u1", "sessionId": "s", "cwd": str(cwd),
            "message": {"role": "user", "content": "hi"}}) + "\n")
    assert claude_project_dir(projects, bun) == projects / f"{name[:200]}-bunhash1"


def test_encoded_names_count_utf16_code_units_as_claude_code_does() -> None:
    # JavaScript's replace sees an emoji as two code units: two dashes.
    assert encoded_project(Path("/a/b\N{GRINNING FACE}c_d.e")) == "-a-b--c-d-e"
    assert encoded_project(Path("/tmp/caf\u00e9")) == "-tmp-caf-"
