"""The apply lock is held while learn writes, never while a person reads a diff at a
prompt (learn.commands.apply_lock.one_apply, write_confirmed).

`learn check add` left at its "write these changes? [y/N]" held the lock for as long:
`learn apply --undo --yes` beside it waited LEARN_LOCK_TIMEOUT, then exited 75 saying
another learn was *writing*, which it was not. Now every command settles first, plans
and asks without the lock, and takes it again to write; a file changed between the
diff and the write is refused, not overwritten, and leaves no pending journal row.

The commands run in their own process on a pseudo-terminal (a real prompt), as a
person runs them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _at_prompt import AtPrompt
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.guard.files import rules_file
from learn.records.proposal import Proposal, Quote, Verdict

SETTINGS = b'{\n  "permissions": {"allow": ["Bash(ls:*)"]},\n  "model": "opus"\n}'
MINE = b"# shop\n\n- Keep PRs small.\n"
BUN = "directive:use-bun"
ADD = ["check", "add", "git", "push", "--flag", "--force", "--reason",
       "Never force push; ask me first."]


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    # Long enough that a second command waiting on a prompt would be seen waiting, short
    # enough that the old behaviour (exit 75 after it) fails the test quickly.
    monkeypatch.setenv("LEARN_LOCK_TIMEOUT", "2")
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_bytes(SETTINGS)
    (project / "CLAUDE.md").write_bytes(MINE)
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                   verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([bun], run_id=None, fallback_project=str(project))
    return project


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def journal() -> tuple[list[object], list[object]]:
    """The journal's pending rows, and the newest batch not undone."""
    from learn.store import open_store

    with open_store() as store:
        return list(store.journal.pending()), list(store.journal.last_batch())


def test_a_check_at_its_prompt_does_not_hold_the_lock(shop: Path) -> None:
    first = AtPrompt(shop, *ADD, "--project", str(shop))
    try:
        first.read_until(b"write these changes?")
        started = time.monotonic()
        undo = run("apply", "--undo", "--yes")
        assert undo.exit_code == 0, undo.output
        assert "nothing to undo" in undo.output
        assert "is writing" not in undo.output
        assert time.monotonic() - started < 2  # it did not wait on the person's prompt
        # And a second check, whole, beside the first one's prompt.
        other = run("check", "add", "rm", "--flag", "-rf", "--reason", "Ask first.",
                    "--project", str(shop), "--yes")
        assert other.exit_code == 0, other.output
        # The first finds the rules file the second wrote since its diff: refused.
        code, out = first.answer("y")
    finally:
        first.stop()
    assert code == 1, out
    assert "changed while learn was planning" in out, out
    assert journal()[0] == []


def test_a_settings_file_changed_at_the_check_prompt_is_not_overwritten(shop: Path) -> None:
    settings = shop / ".claude" / "settings.local.json"
    first = AtPrompt(shop, *ADD, "--project", str(shop))
    try:
        first.read_until(b"write these changes?")
        edited = SETTINGS.replace(b'"opus"', b'"sonnet"')
        settings.write_bytes(edited)  # the person's own edit, while the diff is read
        code, out = first.answer("y")
    finally:
        first.stop()
    assert code == 1, out
    assert "changed while learn was planning" in out, out
    assert settings.read_bytes() == edited
    assert not rules_file(str(shop)).exists()
    pending, newest = journal()
    assert pending == [] and newest == []


def test_an_apply_at_its_prompt_lets_an_undo_through_and_refuses_a_changed_file(
        shop: Path) -> None:
    first = AtPrompt(shop, "apply", "--project", str(shop), "--only", BUN)
    try:
        first.read_until(b"?")  # "Write 1 rule to .../CLAUDE.md?"
        undo = run("apply", "--undo", "--yes")
        assert undo.exit_code == 0, undo.output
        assert "is writing" not in undo.output
        edited = MINE + b"- My own rule.\n"
        (shop / "CLAUDE.md").write_bytes(edited)
        code, out = first.answer("y")
    finally:
        first.stop()
    assert code == 1, out
    assert "changed since the diff was shown" in out, out
    assert (shop / "CLAUDE.md").read_bytes() == edited
    pending, newest = journal()
    assert pending == [] and newest == []
    # Not recorded as applied: it is offered again.
    again = run("apply", "--project", str(shop), "--only", BUN, "--dry-run")
    assert again.exit_code == 0 and "Use bun, not npm." in again.output, again.output


def test_an_undo_at_its_prompt_does_not_hold_the_lock(shop: Path) -> None:
    assert run("apply", "--project", str(shop), "--only", BUN, "--yes").exit_code == 0
    first = AtPrompt(shop, "apply", "--undo")
    try:
        first.read_until(b"Restore")
        listed = run("check", "add", "rm", "--flag", "-rf", "--reason", "Ask first.",
                     "--project", str(shop), "--yes")
        assert listed.exit_code == 0, listed.output
        # The check wrote a newer batch since the undo's diff: its undo is refused.
        code, out = first.answer("y")
    finally:
        first.stop()
    assert code == 1, out
    assert "another learn command wrote or undid meanwhile" in out, out
    assert "Use bun, not npm." in (shop / "CLAUDE.md").read_text()
    assert journal()[0] == []


def test_a_write_in_progress_still_makes_another_command_wait_then_give_up(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.lock import run_lock

    monkeypatch.setenv("LEARN_LOCK_TIMEOUT", "0")
    with run_lock("apply"):
        res = run(*ADD, "--project", str(shop), "--yes")
    assert res.exit_code == 75, res.output
    assert "another learn command is writing to the agents' files" in res.output
    assert not rules_file(str(shop)).exists()


def test_an_install_at_its_prompt_does_not_hold_the_lock(shop: Path) -> None:
    settings = Path.home() / ".claude" / "settings.json"
    first = AtPrompt(shop, "install-claude-command", "--hooks")
    try:
        first.read_until(b"write these changes to")
        check = run(*ADD, "--project", str(shop), "--yes")
        assert check.exit_code == 0, check.output
        assert "is writing" not in check.output
        code, out = first.answer("y")
    finally:
        first.stop()
    assert code == 0, out
    assert "learn.hook" in settings.read_text() or "SessionEnd" in settings.read_text()
    assert journal()[0] == []
