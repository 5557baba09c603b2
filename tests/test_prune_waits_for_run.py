"""`learn apply --prune KEY` and `--undo` beside a `learn run`: they read the applied rules
and write with no run storing meanwhile, waiting for one in progress as `learn apply` does
(learn.commands.apply_lock.after_runs); past LEARN_LOCK_TIMEOUT they write nothing and
say the command line to run again.

Before, `--prune` waited for a run only in the settle before it planned: a run that
started while the person read the diff (or between the settle and the read) stored beside
its read and its write. And a refused apply said "run the same command again", which the
person who had answered "y" at a prompt had to piece together.

The run's lock is held by another process (learn.lock.run_lock, the lock `learn run`
takes); the commands run on a pseudo-terminal, as a person runs them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _at_prompt import AtPrompt
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a pseudo-terminal and flock, as Linux has them")

REPO = Path(__file__).resolve().parents[1]
KEY = "directive:pin-node"
RULE = "- Pin the node version. <!-- learn directive:pin-node, 3 sessions, last 2026-02-03 -->"
ORIGINAL = f"# depot\n\nMy own notes.\n\n<!-- learn:begin -->\n{RULE}\n<!-- learn:end -->\n"
WAITS = "waiting for the `learn run` in progress to finish"
# The run lock held by another process until a line comes on its stdin.
HOLD = ("import sys\n"
        "from learn.lock import run_lock\n"
        "with run_lock():\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.readline()\n")


@pytest.fixture
def depot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose CLAUDE.md holds one rule learn applied."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "depot"
    (project / ".git").mkdir(parents=True)
    claude = project / "CLAUDE.md"
    claude.write_text(ORIGINAL)
    quote = Quote("s1", "pin the node version", "2026-02-03T00:00:00+00:00", str(project))
    pin = Proposal("directive", "pin-node", "pin the node version", 3, 3, quote.at, (quote,),
                   verdict=Verdict(True, "Pin the node version.", "tooling", "project", 0.9))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        book.record([pin], run_id=None, fallback_project=str(project))
        book.record_applied(project=str(project), proposal=pin, decision="accepted",
                            form="rule", rule_text="Pin the node version.",
                            target_file=str(claude), backup_file=None, at=quote.at)
    return project


class RunHeld:
    """A `learn run`'s lock, held by another process until `release`."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("\n")
            self.proc.stdin.close()
        self.proc.wait(60)


def journal() -> tuple[list[object], list[object]]:
    """The journal's pending rows, and the newest batch not undone."""
    from learn.store import open_store

    with open_store() as store:
        return list(store.journal.pending()), list(store.journal.last_batch())


def test_a_prune_confirmed_while_a_run_stores_waits_for_it_then_writes(depot: Path) -> None:
    claude = depot / "CLAUDE.md"
    prune = AtPrompt(depot, "apply", "--prune", KEY, env={"LEARN_LOCK_TIMEOUT": "120"})
    run: RunHeld | None = None
    try:
        prune.read_until(b"Remove from")
        # A run starts while the person reads the diff; they say yes.
        run = RunHeld()
        prune.type("y")
        prune.read_until(WAITS.encode())
        assert b"before writing what you confirmed" in prune.out
        # Waiting: nothing written or journaled while the run holds its lock.
        time.sleep(0.5)
        assert prune.proc.poll() is None, prune.text()
        assert claude.read_text() == ORIGINAL
        assert journal() == ([], [])
        run.release()
        code, out = prune.finish()
    finally:
        prune.stop()
        if run is not None:
            run.release()
    assert code == 0, out
    assert f"pruned {claude}" in out
    assert RULE not in claude.read_text() and "My own notes." in claude.read_text()


@pytest.mark.parametrize("undo", [False, True], ids=["prune", "undo"])
def test_past_the_wait_nothing_is_written_and_the_line_to_run_again_is_said(
        depot: Path, undo: bool) -> None:
    claude = depot / "CLAUDE.md"
    if undo:
        from learn.cli import cli

        done = CliRunner().invoke(cli, ["apply", "--prune", KEY, "--project", str(depot),
                                        "--yes"])
        assert done.exit_code == 0, done.output
    before = claude.read_text()
    batch = journal()
    args = ("apply", "--undo") if undo else ("apply", "--prune", KEY, "--project", str(depot))
    cmd = AtPrompt(depot, *args, env={"LEARN_LOCK_TIMEOUT": "1"})
    run: RunHeld | None = None
    try:
        cmd.read_until(b"Restore" if undo else b"Remove from")
        run = RunHeld()
        cmd.type("y")
        code, out = cmd.finish()
    finally:
        cmd.stop()
        if run is not None:
            run.release()
    assert code == 75, out  # EX_TEMPFAIL, as a second run's
    assert WAITS in out
    assert "a `learn run` is in progress" in out
    said = " ".join(out.split())  # the message as one line, however the terminal wrapped it
    assert "Nothing was written and no decision recorded" in said, out
    # The command line typed, to run again: the "y" answered is not kept.
    assert f"run `learn {' '.join(args)}` again" in said, out
    assert claude.read_text() == before
    assert journal() == batch


def test_prune_reads_what_was_applied_with_no_run_storing(
        depot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """prune_keys itself holds a run off from its read on, not only the settle before it:
    a run that started after the settle was read beside."""
    from learn.commands.apply import prune_keys
    from learn.commands.apply_writes import Consent

    monkeypatch.setenv("LEARN_LOCK_TIMEOUT", "0.5")
    run = RunHeld()
    try:
        with pytest.raises(SystemExit) as ended:
            prune_keys((KEY,), str(depot), consent=Consent(yes=True))
    finally:
        run.release()
    assert ended.value.code == 75
    assert (depot / "CLAUDE.md").read_text() == ORIGINAL
    assert journal() == ([], [])
