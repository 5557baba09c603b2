"""`learn check` and `learn install-claude-command` killed at each write (a real process
ended with `os._exit(9)` at the patched point, as `kill -9` ends it), then `learn apply
--undo` puts back exactly what they wrote, byte for byte, and the one after reaches the
apply before them.

Both journaled a file right AFTER writing it (`learn apply` journals before the rename
since migration 0025): killed between the two, the hook stood in the person's settings
with no journal row, and `--undo` put back the OLDER apply instead, or said there was
nothing to undo. Now they write as `learn apply` does (learn.commands.apply_writes
.Journaled), under its lock, and learn.commands.apply_recover decides what a killed
one left."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.guard.files import record_file, rules_file
from learn.records.proposal import Proposal, Quote, Verdict

SETTINGS = b'{\n  "permissions": {"allow": ["Bash(ls:*)"]},\n  "model": "opus"\n}'
MINE = b"# shop\r\n\r\n- Keep PRs small.\r\n"  # CRLF: put back byte for byte, not as text
BUN = "directive:use-bun"
ADD = ["check", "add", "git", "push", "--flag", "--force", "--reason",
       "Never force push; ask me first.", "--yes"]

# Every file write goes through learn.report.apply.write_plan (apply_writes imports it by
# name, so both are patched before either command runs): the Nth is killed, before its
# rename or right after it.
KILL = """
import os
import learn.report.apply as R
real = R.write_plan
n = [0]
def write_plan(plan, **kw):
    n[0] += 1
    if n[0] == {n} and {before}:
        os._exit(9)
    out = real(plan, **kw)
    if n[0] == {n}:
        os._exit(9)
    return out
R.write_plan = write_plan
import learn.commands.apply_writes as W
W.write_plan = write_plan
"""
# `learn check add` writes learn's rules file, the project's settings, the install record.
CHECK_KILLS = {f"{when} rename {n}": (n, when == "before")
               for n in (1, 2, 3) for when in ("before", "after")}
# `install-claude-command --hooks` writes ~/.claude/settings.json, then commands/learn.md.
INSTALL_KILLS = {f"{when} rename {n}": (n, when == "before")
                 for n in (1, 2) for when in ("before", "after")}


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
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


def undo() -> Result:
    return run("apply", "--undo", "--yes")


def killed(cwd: Path, n: int, before: bool, *args: str) -> None:
    """`learn ARGS` in its own process, ended by `os._exit(9)` at the Nth file write."""
    code = (KILL.format(n=n, before=before)
            + f"import sys\nsys.argv = ['learn', *{list(args)!r}]\n"
              "from learn.entry import main\nmain()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stdout + done.stderr


def tree(*roots: Path) -> dict[str, bytes]:
    """Every file under `roots` (but .git, and learn's store and backups), with its bytes."""
    return {str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts and "backups" not in p.parts
            and not p.name.startswith("learn.db") and not p.name.endswith(".lock")}


def journal_settled() -> None:
    """No row is left pending, and every row on record is undone: the journal knows
    exactly what is on disk."""
    from learn.store import open_store

    with open_store() as store:
        assert store.journal.pending() == []
        assert store.journal.last_batch() == []


@pytest.mark.parametrize("crash", list(CHECK_KILLS))
def test_a_check_add_killed_at_any_write_is_undone_exactly_then_the_apply_before_it(
        shop: Path, tmp_path: Path, crash: str) -> None:
    assert run("apply", "--yes", "--only", BUN, "--project", str(shop)).exit_code == 0
    data = tmp_path / "data"
    older = tree(shop, data)
    n, before = CHECK_KILLS[crash]
    killed(shop, n, before, *ADD, "--project", str(shop))
    # Killed before its first rename, the check wrote nothing: the undo is the apply's.
    if crash != "before rename 1":
        assert tree(shop, data) != older  # it wrote something before it was killed
        undone = undo()
        assert undone.exit_code == 0, undone.output
        assert "undo the check of" in undone.output, undone.output
    # The check's writes put back, not the older apply's: settings byte for byte, no
    # rules file, no install record (each only as far as the check got).
    assert tree(shop, data) == older
    assert not rules_file(str(shop)).exists() and not record_file(str(shop)).exists()
    assert b"Use bun" in (shop / "CLAUDE.md").read_bytes()

    again = undo()
    assert again.exit_code == 0 and "undo the apply of" in again.output, again.output
    assert (shop / "CLAUDE.md").read_bytes() == MINE
    assert (shop / ".claude" / "settings.local.json").read_bytes() == SETTINGS
    journal_settled()
    assert "nothing to undo" in undo().output


@pytest.mark.parametrize("crash", list(INSTALL_KILLS))
def test_an_install_claude_command_killed_at_any_write_is_undone_exactly(
        shop: Path, crash: str) -> None:
    claude = Path.home() / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_bytes(SETTINGS)
    older = tree(claude)
    n, before = INSTALL_KILLS[crash]
    killed(shop, n, before, "install-claude-command", "--hooks", "--yes")
    if not before:
        assert tree(claude) != older

    undone = undo()
    assert undone.exit_code == 0, undone.output
    assert tree(claude) == older, undone.output  # settings.json byte for byte, no learn.md
    assert sorted(p.name for p in claude.iterdir()) == ["settings.json"]  # commands/ too
    journal_settled()


def test_an_applied_check_offer_killed_after_its_install_record_is_undone_whole(
        shop: Path, tmp_path: Path) -> None:
    """`learn apply` of a check offer journaled the install record after writing it:
    killed between the two, the undo took the hook and the rules out and left a record
    naming a hook in the settings."""
    from learn.store import open_store
    from learn.store.runs import default_store_path

    offer = Proposal(kind="directive", label="never-force-push-check",
                     text="Never force push, it rewrites history", sessions=2, count=2,
                     last_seen=None, quotes=(Quote("s1", "never force push", None, str(shop)),),
                     verdict=Verdict(True, "Never force push, it rewrites history", "git",
                                     "project", 0.9),
                     surface="check", surface_commands=("git push",),
                     surface_rules=("--force",))
    with open_store(default_store_path()) as store:
        store.proposals.record([dataclasses.replace(offer)], run_id=None,
                               fallback_project=str(shop))
    data = tmp_path / "data"
    older = tree(shop, data)
    # The rules file, the settings, then the install record (written once both are).
    killed(shop, 3, False, "apply", "--only", offer.key, "--yes", "--project", str(shop))
    assert record_file(str(shop)).exists()

    undone = undo()
    assert undone.exit_code == 0, undone.output
    assert tree(shop, data) == older, undone.output
    journal_settled()


@pytest.mark.parametrize("args", [[*ADD, "--project", "{shop}"],
                                  ["install-claude-command", "--hooks", "--yes"]])
def test_a_check_or_an_install_beside_an_apply_says_another_is_writing(
        shop: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    """They settle what a killed write left pending as an apply does: one running beside
    an apply (or an undo) would take its row, not yet written, for a write never made."""
    from learn.lock import run_lock

    monkeypatch.setenv("LEARN_LOCK_TIMEOUT", "0")
    claude = Path.home() / ".claude"
    before = tree(shop, claude) if claude.exists() else tree(shop)
    with run_lock("apply"):
        res = run(*(a.format(shop=shop) for a in args))
    assert res.exit_code == 75, res.output
    assert "another learn command is writing to the agents' files" in res.output
    assert (tree(shop, claude) if claude.exists() else tree(shop)) == before
    assert run(*(a.format(shop=shop) for a in args)).exit_code == 0
