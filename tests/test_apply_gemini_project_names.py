"""A context file name that only a project's own `.gemini/settings.json` gives is written
only when it is an instruction file's name (GEMINI.md, AGENTS.md, CLAUDE.md) or the
person's `~/.gemini/settings.json` gives it too.

A project's settings arrive with a clone: one naming `README.md` as Gemini's context
(`context.fileName`) made `learn apply` write rules into the project's README, a file no
one meant as an instruction file. Now Gemini gets nothing there, said in one line naming
the settings file and the name; the writer's confinement refuses the file too; a name the
person's own settings give is written as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.agent_files import gemini_context, gemini_file_names, gemini_writable_names
from learn.report.confine import confine
from learn.report.edits import has_marker
from learn.report.errors import ConfinementError

KEY = "directive:use-bun"
README = "# shop\n\nA shop. Run `make`.\n"


def _settings(folder: Path, file_name: object) -> Path:
    (folder / ".gemini").mkdir(parents=True, exist_ok=True)
    settings = folder / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"context": {"fileName": file_name}}))
    return settings


def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_name: object | None) -> Path:
    """A cloned project used by Claude Code and Gemini CLI with a README, whose own
    `.gemini/settings.json` names `file_name` (None: it has none), one accepted rule pending."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# shop\n")
    (root / "README.md").write_text(README)
    if file_name is not None:
        _settings(root, file_name)
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


def users(tmp_path: Path, file_name: object) -> Path:
    """The person's own `~/.gemini/settings.json` (HOME is tmp_path/home: conftest)."""
    return _settings(tmp_path / "home", file_name)


def apply(root: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(root), *args])


def _gets_nothing(res: Result) -> list[str]:
    return [line for line in res.output.splitlines() if "Gemini CLI gets nothing" in line]


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md", "docs.md", "Readme.md"])
def test_a_name_only_the_projects_settings_give_is_not_written_and_said_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    root = shop(tmp_path, monkeypatch, name)
    target = root / name
    if not target.exists():
        target.write_text(README)
    before = target.read_bytes()
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert "refused" not in done.output
    assert target.read_bytes() == before  # the defect: the rule was appended here
    [note] = _gets_nothing(done)
    assert str(root / ".gemini" / "settings.json") in note and f"`{name}`" in note, note
    assert "from this project's settings alone" in note
    # The other agents get the rule as usual; no GEMINI.md Gemini would not read here.
    assert has_marker((root / "CLAUDE.md").read_text(), KEY)
    assert not (root / "GEMINI.md").exists()


def test_the_writer_refuses_a_name_only_the_projects_settings_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = shop(tmp_path, monkeypatch, "README.md")
    with pytest.raises(ConfinementError):
        confine(root / "README.md", [root])
    (root / "pkg").mkdir()
    _settings(root / "pkg", "README.md")
    (root / "pkg" / "README.md").write_text(README)
    with pytest.raises(ConfinementError):
        confine(root / "pkg" / "README.md", [root])


def test_a_name_the_persons_own_settings_give_too_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = shop(tmp_path, monkeypatch, "README.md")
    users(tmp_path, ["GEMINI.md", "README.md"])
    assert confine(root / "README.md", [root]) == root / "README.md"
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert not _gets_nothing(done)
    assert has_marker((root / "README.md").read_text(), KEY)


@pytest.mark.parametrize("known", ["AGENTS.md", "GEMINI.md", "CLAUDE.md"])
def test_a_project_naming_an_instruction_file_gets_the_rule_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, known: str) -> None:
    root = shop(tmp_path, monkeypatch, ["README.md", known])
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert not _gets_nothing(done)
    assert (root / "README.md").read_text() == README
    assert has_marker((root / known).read_text(), KEY)


def test_a_name_the_persons_settings_give_is_written_in_a_project_without_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As before: the person's own names hold wherever no project setting overrides them.
    root = shop(tmp_path, monkeypatch, None)
    users(tmp_path, "MINE.md")
    done = apply(root, "--yes")
    assert done.exit_code == 0, done.output
    assert has_marker((root / "MINE.md").read_text(), KEY)
    assert confine(root / "MINE.md", [root]) == root / "MINE.md"


def test_what_gemini_reads_and_what_learn_writes(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    settings = _settings(root, ["README.md", "CONTEXT.md", "AGENTS.md"])
    # Gemini reads every name; learn writes only AGENTS.md of them.
    assert gemini_file_names(root, home) == ("README.md", "CONTEXT.md", "AGENTS.md")
    assert gemini_writable_names(root, home) == ("AGENTS.md",)
    assert gemini_context(root, home).name == "AGENTS.md"
    users(tmp_path, "CONTEXT.md")
    assert gemini_writable_names(root, home) == ("CONTEXT.md", "AGENTS.md")
    _settings(root, "README.md")
    found = gemini_context(root, home)
    assert found.name is None and str(settings) in found.why and "`README.md`" in found.why
    assert "\n" not in found.why
