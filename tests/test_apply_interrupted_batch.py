"""A `learn apply` stopped after the first file of a rule, before its other files, is
finished by the next apply: it ends as an apply never stopped ends.

An audit killed `learn apply` (SIGKILL, and Ctrl-C: exit 130) right after it wrote
CLAUDE.md, before AGENTS.md for Codex. The rules were recorded applied with the first
file, the next apply plans only pending ones, so AGENTS.md was never written and every
later apply said "nothing to apply". Here a real `learn apply` process is stopped at
that point (its first file renamed into place, or also settled in the journal), and the
next apply must write what is missing, say it is finishing an interrupted apply, and
leave the same files, proposal states and applied_rules rows as an uninterrupted apply;
`--undo` still puts back the exact bytes and mode of what was there before.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.edits import has_marker

MINE = b"# shop\r\n\r\n- Keep PRs small.\r\n"  # CRLF and 0604: put back byte for byte
MODE = 0o604
BUN, RULES = "directive:use-bun", "directive:no-generated-edits"
RELEASE = "request:release-pr"

# Run in `python -c` before learn's own main: stop the process right after its first
# file. As the audit's killafter.py: `os.kill` of itself, so SIGINT is a real Ctrl-C
# (KeyboardInterrupt, exit 130) and SIGKILL ends it with no `finally` run.
AFTER_SETTLE = """
real = W._settle
def _settle(ids, plan):
    real(ids, plan)
    os.kill(os.getpid(), signal.{sig})
W._settle = _settle
"""
AFTER_RENAME = """
real = W.write_plan
def write_plan(plan, **kw):
    out = real(plan, **kw)
    os.kill(os.getpid(), signal.{sig})
    return out
W.write_plan = write_plan
"""
STOPS = {
    "SIGKILL after the first file is settled": (AFTER_SETTLE.format(sig="SIGKILL"), -9),
    "SIGKILL after the first rename": (AFTER_RENAME.format(sig="SIGKILL"), -9),
    "Ctrl-C after the first file is settled": (AFTER_SETTLE.format(sig="SIGINT"), 130),
    "Ctrl-C after the first rename": (AFTER_RENAME.format(sig="SIGINT"), 130),
}


def world(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project used by Claude Code and Codex with two rules and a command pending, its
    learn data under `root` (each world its own, so two can be compared)."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(root / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = root / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_bytes(MINE)
    (project / "CLAUDE.md").chmod(MODE)
    agents = (("claude", 2), ("codex", 1))
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project),
                         agent=a) for i, (s, a) in enumerate((("a", "claude"), ("b", "codex"))))

    def rule(label: str, text: str) -> Proposal:
        return Proposal("directive", label, text, 4, 4, quotes[1].at, quotes,
                        verdict=Verdict(True, text, "tooling", "project", 0.9), agents=agents)

    release = Proposal("request", "release-pr", "open a release PR", 3, 3, quotes[1].at,
                       quotes, verdict=Verdict(True, "Open a release PR.", "git", "project",
                                               0.9),
                       surface="command",
                       command_body="Open a release PR for $ARGUMENTS with the changelog.")
    (root / "data").mkdir()
    with FeedbackStore.open(root / "data" / "learn.db") as store:
        # Listed as a run ranks them, most said first: the rules (4 sessions) before the
        # command (3), so CLAUDE.md is written first.
        ProposalBook(store).record([release, rule("use-bun", "Use bun, not npm."),
                                    rule("no-generated-edits", "Leave generated files alone.")],
                                   run_id=None, fallback_project=str(project))
        scans = ScanTables(store)
        for sid, agent in (("a", "claude"), ("b", "codex")):
            scans.record_session(ScannedSession(sid, agent, str(project), f"/x/{sid}", "h",
                                                None, 0, "2026-03-20T00:00:00+00:00"))
    return project


def learn(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(project), *args])


def stopped(project: Path, patch: str, code: int, *args: str) -> None:
    """`learn apply ARGS` in its own process, stopped where `patch` says."""
    program = ("import os, signal, sys\n"
               "import learn.commands.apply_writes as W\n"
               f"{patch}\n"
               f"sys.argv = ['learn', 'apply', '--project', {str(project)!r}, *{list(args)!r}]\n"
               "from learn.entry import main\n"
               "main()\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=project, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == code, done.stdout + done.stderr


def files(project: Path) -> dict[str, bytes]:
    """Every file of the project but .git, with its bytes."""
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def states(project: Path) -> dict[str, Any]:
    """Each proposal's state, and where applied_rules says each rule was written (relative
    to the project: two worlds are compared), with whether a backup is named."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    with FeedbackStore.open(Path(os.environ["LEARN_DATA_DIR"]) / "learn.db") as store:
        book = ProposalBook(store)
        return {r.key: r.state for r in book.rows()} | {
            "applied": sorted((a.key, a.decision, str(Path(a.target_file).relative_to(project)),
                               a.backup_file is not None) for a in book.applied())}


def uninterrupted(tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, bytes], dict[str, Any]]:
    """What an apply never stopped leaves: its files and states."""
    calm = world(tmp_path / "calm", monkeypatch)
    res = learn(calm, "--yes")
    assert res.exit_code == 0, res.output
    return files(calm), states(calm)


@pytest.mark.parametrize("stop", list(STOPS))
def test_an_apply_stopped_after_its_first_file_is_finished_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str) -> None:
    want_files, want_states = uninterrupted(tmp_path, monkeypatch)
    # What the whole apply writes: both rules in Claude's file and in Codex's, a command.
    assert {"CLAUDE.md", "AGENTS.md", ".claude/commands/release-pr.md"} <= set(want_files)
    assert want_states[BUN] == want_states[RULES] == want_states[RELEASE] == "applied"

    shop = world(tmp_path / "stopped", monkeypatch)
    patch, code = STOPS[stop]
    stopped(shop, patch, code, "--yes")
    # Stopped after CLAUDE.md: Codex's file is not written yet.
    assert files(shop)["CLAUDE.md"] != MINE and not (shop / "AGENTS.md").exists()

    finished = learn(shop, "--yes")
    assert finished.exit_code == 0, finished.output
    # The defect: AGENTS.md was never written, both rules recorded applied without it.
    assert (shop / "AGENTS.md").exists(), finished.output
    assert "finishing an interrupted `learn apply`" in finished.output
    for key in (BUN, RULES):
        assert f"{key} is in {shop / 'CLAUDE.md'}, not yet in {shop / 'AGENTS.md'}" \
            in finished.output
        assert has_marker((shop / "AGENTS.md").read_text(), key)
    # Where an apply never stopped ends: the same bytes, states and applied_rules rows.
    assert files(shop) == want_files
    assert states(shop) == want_states
    again = learn(shop, "--yes")
    assert again.exit_code == 0 and "nothing to apply" in again.output, again.output
    assert "interrupted" not in again.output

    # Undo: the finishing apply's files, then the stopped one's: exact bytes and mode.
    assert learn(shop, "--undo", "--yes").exit_code == 0
    assert not (shop / "AGENTS.md").exists()
    assert learn(shop, "--undo", "--yes").exit_code == 0
    assert files(shop) == {"CLAUDE.md": MINE}
    assert (shop / "CLAUDE.md").stat().st_mode & 0o777 == MODE
    now = states(shop)
    assert now["applied"] == [] and {now[BUN], now[RULES], now[RELEASE]} == {"pending"}


def test_an_apply_killed_after_its_last_file_of_a_rule_is_recorded_as_the_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed right after AGENTS.md was renamed into place (its row still pending, no
    decision of the batch recorded): the next command decides it from the file, and the
    rule is applied with both files, as if nothing had stopped it."""
    want_files, want_states = uninterrupted(tmp_path, monkeypatch)
    shop = world(tmp_path / "stopped", monkeypatch)
    second = """
real = W.write_plan
n = [0]
def write_plan(plan, **kw):
    out = real(plan, **kw)
    n[0] += 1
    if n[0] == 2:
        os._exit(9)
    return out
W.write_plan = write_plan
"""
    stopped(shop, second, 9, "--yes", "--only", RULES, "--only", BUN)  # in the default order
    assert has_marker((shop / "AGENTS.md").read_text(), BUN)
    looked = learn(shop, "--dry-run", "--only", RELEASE)
    assert looked.exit_code == 0 and "interrupted" not in looked.output, looked.output
    now = states(shop)
    assert now[BUN] == now[RULES] == "applied"
    assert now["applied"] == [a for a in want_states["applied"] if a[0] != RELEASE]
    assert learn(shop, "--yes").exit_code == 0
    assert files(shop) == want_files and states(shop) == want_states


def test_a_second_file_that_fails_to_be_written_is_written_by_the_next_apply(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a kill: AGENTS.md's write fails (a full disk). The rules are not recorded
    applied on CLAUDE.md alone; the next apply writes AGENTS.md."""
    from learn.report.apply import write_plan
    from learn.report.edits import FilePlan

    want_files, want_states = uninterrupted(tmp_path, monkeypatch)
    shop = world(tmp_path / "failed", monkeypatch)

    def full(plan: FilePlan, **kw: bool) -> Path | None:
        if plan.path == shop / "AGENTS.md":
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_plan(plan, **kw)

    monkeypatch.setattr("learn.commands.apply_writes.write_plan", full)
    failed = learn(shop, "--yes")
    assert failed.exit_code == 1 and "No space left" in failed.output, failed.output
    assert not (shop / "AGENTS.md").exists()
    assert states(shop)[BUN] == states(shop)[RULES] == "pending"  # not applied on CLAUDE.md alone
    monkeypatch.setattr("learn.commands.apply_writes.write_plan", write_plan)

    finished = learn(shop, "--yes")
    assert finished.exit_code == 0, finished.output
    assert "finishing an interrupted `learn apply`" in finished.output
    assert files(shop) == want_files and states(shop) == want_states


def test_a_file_the_person_said_no_to_does_not_hold_the_rule_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the files the person confirmed make the whole: a no to AGENTS.md at the prompt
    is their word, and the rules are applied with CLAUDE.md, not offered again."""
    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    shop = world(tmp_path / "asked", monkeypatch)
    from learn.commands.apply import command

    # Yes to CLAUDE.md, no to AGENTS.md, yes to the command file.
    res = CliRunner().invoke(command, ["--project", str(shop)], input="y\nn\ny\n")
    assert res.exit_code == 0, res.output
    assert not (shop / "AGENTS.md").exists()
    assert (shop / ".claude" / "commands" / "release-pr.md").exists()
    assert has_marker((shop / "CLAUDE.md").read_text(), BUN)
    now = states(shop)
    assert now[BUN] == now[RULES] == now[RELEASE] == "applied"
    again = learn(shop, "--yes")
    assert "nothing to apply" in again.output and "interrupted" not in again.output
