"""Gemini CLI's `context.fileName`: a bare `*.md` name is written, anything else gets nothing.

Gemini CLI reads whatever file its settings name as its context (its docs' example is
`CONTEXT.md`). learn planned that file for Gemini and its writer's confinement, which knew
only GEMINI.md, refused it: every `learn apply` exited 1 and Gemini got nothing (an audit of
2026-12). A project's `.gemini/settings.json` comes with a cloned repository, so only a bare
`*.md` file name (no folder, not hidden, not another agent's file) is a surface, and the
writer checks it again against the settings when it writes. Any other name: Gemini gets
nothing, said in one line, and the apply still succeeds. A name only a project's settings
give is written when it is an instruction file's name or the person's own
`~/.gemini/settings.json` gives it too (tests/test_apply_gemini_project_names.py): here the
person's settings name the project's context file as well.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.agent_files import gemini_context_refusal
from learn.report.confine import confine
from learn.report.edits import has_marker
from learn.report.errors import ConfinementError

KEY = "directive:use-bun"


def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_name: object) -> Path:
    """A project used by Claude Code and Gemini CLI whose `.gemini/settings.json` names
    `file_name` as Gemini's context, with one accepted rule pending."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# shop\n")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(
        json.dumps({"context": {"fileName": file_name}}))
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(root),
                         agent=a) for i, (s, a) in enumerate((("a", "claude"), ("b", "gemini"))))
    p = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                 verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9),
                 agents=(("claude", 1), ("gemini", 1)))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([p], run_id=None, fallback_project=str(root))
        scans = ScanTables(store)
        for sid, agent in (("a", "claude"), ("b", "gemini")):
            scans.record_session(ScannedSession(sid, agent, str(root), f"/x/{sid}", "h", None,
                                                0, "2026-03-20T00:00:00+00:00"))
    return root


def users_settings(tmp_path: Path, file_name: object) -> None:
    """The person's own `~/.gemini/settings.json` (HOME is tmp_path/home: conftest)."""
    gemini = tmp_path / "home" / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(json.dumps({"context": {"fileName": file_name}}))


def apply(root: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(root), *args])


def test_a_bare_md_context_name_gets_the_rule_and_the_apply_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = shop(tmp_path, monkeypatch, "CONTEXT.md")
    users_settings(tmp_path, "CONTEXT.md")
    (root / "CONTEXT.md").write_text("# shop for gemini\n")
    done = apply(root, "--yes")
    # The defect: "refused: …/CONTEXT.md is not an instruction file learn may write", exit 1.
    assert done.exit_code == 0, done.output
    assert "refused" not in done.output
    assert has_marker((root / "CONTEXT.md").read_text(), KEY)
    assert has_marker((root / "CLAUDE.md").read_text(), KEY)
    assert not (root / "GEMINI.md").exists()  # a file Gemini does not read here
    assert apply(root, "--undo", "--yes").exit_code == 0
    assert (root / "CONTEXT.md").read_text() == "# shop for gemini\n"


def test_the_first_name_of_a_list_learn_writes_is_the_one_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = shop(tmp_path, monkeypatch, ["docs/ctx.md", "Context.md", "GEMINI.md"])
    users_settings(tmp_path, "Context.md")
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert has_marker((root / "Context.md").read_text(), KEY)
    assert not (root / "GEMINI.md").exists() and not (root / "docs").exists()


@pytest.mark.parametrize("name", ["../../home/.bashrc.md", "docs/ctx.md", "..\\..\\ctx.md",
                                  ".hidden.md", "notes.txt", "CLAUDE.local.md",
                                  "AGENTS.override.md", "claude.md", "C:ctx.md",
                                  "c" * 253 + ".md"])
def test_any_other_name_gets_gemini_nothing_in_one_line_never_a_refused_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    root = shop(tmp_path, monkeypatch, name)
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert "refused" not in done.output
    notes = [line for line in done.output.splitlines() if "Gemini CLI gets nothing" in line]
    assert len(notes) == 1 and f"`{name}`" in notes[0], done.output
    # Only Claude Code's file is written (and learn's own data); nothing named by Gemini's.
    made = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    assert all("data" in p.relative_to(tmp_path).parts[:1] for p in made), made
    assert has_marker((root / "CLAUDE.md").read_text(), KEY)
    assert not (tmp_path / "home" / ".bashrc.md").exists()


def test_the_writer_accepts_a_context_name_only_as_the_settings_give_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = shop(tmp_path, monkeypatch, "CONTEXT.md")
    users_settings(tmp_path, "CONTEXT.md")
    assert confine(root / "CONTEXT.md", [root]) == root / "CONTEXT.md"
    (root / "pkg").mkdir()
    assert confine(root / "pkg" / "CONTEXT.md", [root]) == root / "pkg" / "CONTEXT.md"
    for other in ("OTHER.md", "README.md", ".git/CONTEXT.md", "node_modules/CONTEXT.md"):
        with pytest.raises(ConfinementError):
            confine(root / other, [root])
    # Linked out of the project, to a file named the same: refused where it leads.
    outside = tmp_path / "home" / "CONTEXT.md"
    outside.write_text("x\n")
    (root / "CONTEXT.md").symlink_to(outside)
    with pytest.raises(ConfinementError):
        confine(root / "CONTEXT.md", [root])


@pytest.mark.parametrize("name", ["../../home/.bashrc.md", "docs/ctx.md"])
def test_path_tricks_in_the_settings_are_refused_by_the_writer_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    root = shop(tmp_path, monkeypatch, name)
    (root / "docs").mkdir()
    with pytest.raises(ConfinementError):
        confine(root / name, [root])


def test_the_users_settings_name_the_users_context_file(tmp_path: Path) -> None:
    gemini = tmp_path / "home" / ".gemini"
    gemini.mkdir()
    (gemini / "settings.json").write_text(json.dumps({"context": {"fileName": "MINE.md"}}))
    assert confine(gemini / "MINE.md") == gemini / "MINE.md"
    with pytest.raises(ConfinementError):
        confine(gemini / "OTHER.md")


@pytest.mark.parametrize(("name", "why"), [
    ("CONTEXT.md", None), ("context.MD", None), ("GEMINI.md", None), ("AGENTS.md", None),
    ("CLAUDE.md", None), ("docs/ctx.md", "a path, not a file name"),
    ("..\\ctx.md", "a path, not a file name"), ("..", "a path, not a file name"),
    (".ctx.md", "a hidden file"), ("ctx.txt", "not a .md file"),
    ("CLAUDE.local.md", "another agent's own file"), ("gemini.md", "another agent's own file"),
    ("x.instructions.md", "another agent's own file"),
    ("c" * 252 + ".md", None), ("c" * 253 + ".md", "a name longer than a file's name can be"),
    ("\u00e9" * 127 + ".md", "a name longer than a file's name can be"),
])
def test_what_is_a_gemini_context_name(name: str, why: str | None) -> None:
    assert gemini_context_refusal(name) == why
