"""`learn apply` and `learn apply --undo` killed at each step (a real process ended with
`os._exit(9)` at the patched point, as `kill -9` ends it: no `finally`, no flush), then
`--undo` puts back exactly that apply, byte for byte, with its proposals' states, and
the one after reaches the apply before it.

A write-path audit killed `learn apply` between the rename and the journal row (1 in
25 random kills): the undo then put back the OLDER apply. And an undo killed after
putting one file back refused every later undo for good ("changed since learn wrote
it"). learn.commands.apply_recover is what these pin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict

MINE = b"# shop\r\n\r\n- Keep PRs small.\r\n"  # CRLF: put back byte for byte, not as text
SQUASH, BUN, RELEASE = "directive:squash-merges", "directive:use-bun", "request:release-pr"

# The patched step of each crash, run in `python -c` before learn's own main. The apply
# killed writes two files (CLAUDE.md, a command file): N is the write it is killed at.
RENAME = """
real = W.write_plan
n = [0]
def write_plan(plan, **kw):
    n[0] += 1
    if n[0] == {n} and {before}:
        os._exit(9)
    out = real(plan, **kw)
    if n[0] == {n}:
        os._exit(9)
    return out
W.write_plan = write_plan
"""
CRASHES = {
    # Journaled (pending, with its backup), not renamed into place yet.
    "before the first rename": RENAME.format(n=1, before=True),
    "before the second rename": RENAME.format(n=2, before=True),
    # The file renamed into place; nothing after it ran.
    "after the first rename": RENAME.format(n=1, before=False),
    "after the second rename": RENAME.format(n=2, before=False),
    # The write journaled; its proposals not recorded as applied yet.
    "after the journal": """
def record_decision(*a, **kw):
    os._exit(9)
A.record_decision = record_decision
""",
}
# The old code wrote first and journaled after: killed before a rename, it was right
# already. After a rename, the audit's finding (and the decisions' gap after the journal).
AFTER_THE_WRITE = ("after the first rename", "after the second rename", "after the journal")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_bytes(MINE)
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    squash = Proposal("directive", "squash-merges", "squash when merging", 2, 2, quotes[1].at,
                      quotes, verdict=Verdict(True, "Squash when merging.", "git", "project",
                                              0.9))
    bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                   verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    release = Proposal("request", "release-pr", "open a release PR", 3, 3, quotes[1].at,
                       quotes, verdict=Verdict(True, "Open a release PR.", "git", "project", 0.9),
                       surface="command",
                       command_body="Open a release PR for $ARGUMENTS with the changelog entry.")
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([squash, bun, release], run_id=None,
                                   fallback_project=str(project))
    return project


def learn(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(project), *args])


def killed(project: Path, patch: str, *args: str) -> None:
    """`learn apply ARGS` in its own process, ended by `os._exit(9)` where `patch` says."""
    code = ("import os, sys\n"
            "import learn.commands.apply as A, learn.commands.apply_writes as W\n"
            f"{patch}\n"
            f"sys.argv = ['learn', 'apply', '--project', {str(project)!r}, *{list(args)!r}]\n"
            "from learn.entry import main\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=project, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stdout + done.stderr


def states(tmp_path: Path) -> dict[str, str]:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        return {r.key: r.state for r in book.rows()} | {
            f"applied:{a.key}": a.target_file for a in book.applied()}


def files(project: Path) -> dict[str, bytes]:
    """Every file of the project but .git, with its bytes."""
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def folders(project: Path) -> list[str]:
    return sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_dir())


@pytest.mark.parametrize("crash", list(CRASHES))
def test_an_apply_killed_at_any_step_is_undone_exactly_and_then_the_one_before(
        shop: Path, tmp_path: Path, crash: str) -> None:
    assert learn(shop, "--yes", "--only", SQUASH).exit_code == 0
    older, older_folders = files(shop), folders(shop)
    killed(shop, CRASHES[crash], "--yes", "--only", BUN, "--only", RELEASE)
    # Killed before its first rename, the apply wrote nothing: the undo is the older one's.
    if crash != "before the first rename":
        assert files(shop) != older

        undone = learn(shop, "--undo", "--yes")
        assert undone.exit_code == 0, undone.output
        assert files(shop) == older, undone.output  # that apply's writes, not the older one
        assert folders(shop) == older_folders  # .claude/commands made for it: gone again
        now = states(tmp_path)
        assert now[SQUASH] == "applied" and now[BUN] == "pending" and now[RELEASE] == "pending"
        assert f"applied:{BUN}" not in now and f"applied:{RELEASE}" not in now
    else:
        assert files(shop) == older

    again = learn(shop, "--undo", "--yes")
    assert again.exit_code == 0, again.output
    assert files(shop) == {"CLAUDE.md": MINE}
    assert set(states(tmp_path).values()) == {"pending"}
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output


@pytest.mark.parametrize("crash", ["after the first rename", "after the journal"])
def test_a_write_found_made_after_a_kill_has_its_proposals_applied(
        shop: Path, tmp_path: Path, crash: str) -> None:
    """The next apply decides what the killed one left from the files: a rule in the
    file is an applied proposal (its row carries the decision), not one offered again."""
    killed(shop, CRASHES[crash], "--yes", "--only", BUN)
    assert b"Use bun" in (shop / "CLAUDE.md").read_bytes()
    looked = learn(shop, "--dry-run", "--only", SQUASH)
    assert looked.exit_code == 0, looked.output
    now = states(tmp_path)
    assert now[BUN] == "applied" and now[f"applied:{BUN}"] == str(shop / "CLAUDE.md")
    undone = learn(shop, "--undo", "--yes")
    assert undone.exit_code == 0, undone.output
    assert files(shop) == {"CLAUDE.md": MINE} and states(tmp_path)[BUN] == "pending"


def test_a_write_killed_before_its_rename_is_dropped_and_nothing_is_applied(
        shop: Path, tmp_path: Path) -> None:
    killed(shop, CRASHES["before the first rename"], "--yes", "--only", BUN)
    assert files(shop) == {"CLAUDE.md": MINE}
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output
    assert states(tmp_path)[BUN] == "pending"
    assert learn(shop, "--yes", "--only", BUN).exit_code == 0
    assert b"Use bun" in (shop / "CLAUDE.md").read_bytes()


# The undo ended after its first file was put back, before its apply was marked undone.
UNDO_KILLED_AFTER_ONE_FILE = """
real = W.write_plan
n = [0]
def write_plan(plan, **kw):
    out = real(plan, **kw)
    n[0] += 1
    if n[0] == 1:
        os._exit(9)
    return out
W.write_plan = write_plan
"""


def test_an_undo_killed_midway_is_finished_by_the_next_and_the_older_apply_stays_undoable(
        shop: Path, tmp_path: Path) -> None:
    assert learn(shop, "--yes", "--only", SQUASH).exit_code == 0
    older = files(shop)
    assert learn(shop, "--yes", "--only", BUN, "--only", RELEASE).exit_code == 0
    newer = files(shop)
    killed(shop, UNDO_KILLED_AFTER_ONE_FILE, "--undo", "--yes")
    assert files(shop) not in (older, newer)  # one file back, one not

    finished = learn(shop, "--undo", "--yes")
    assert finished.exit_code == 0, finished.output
    assert "changed since learn wrote it" not in finished.output
    assert "already put back" in finished.output
    assert files(shop) == older
    now = states(tmp_path)
    assert now[BUN] == "pending" and now[RELEASE] == "pending" and now[SQUASH] == "applied"

    older_one = learn(shop, "--undo", "--yes")
    assert older_one.exit_code == 0, older_one.output
    assert files(shop) == {"CLAUDE.md": MINE} and states(tmp_path)[SQUASH] == "pending"
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output


def test_an_undo_killed_after_its_last_file_is_marked_done_by_the_next(
        shop: Path, tmp_path: Path) -> None:
    """Every file already back: the next undo only records it, and says so."""
    assert learn(shop, "--yes", "--only", SQUASH).exit_code == 0
    older = files(shop)
    assert learn(shop, "--yes", "--only", BUN).exit_code == 0
    killed(shop, UNDO_KILLED_AFTER_ONE_FILE, "--undo", "--yes")
    assert files(shop) == older
    finished = learn(shop, "--undo", "--yes")
    assert finished.exit_code == 0 and "already put back" in finished.output, finished.output
    assert states(tmp_path)[BUN] == "pending"
    assert learn(shop, "--undo", "--yes").exit_code == 0
    assert files(shop) == {"CLAUDE.md": MINE} and states(tmp_path)[SQUASH] == "pending"


def test_a_file_the_person_edited_after_a_kill_is_still_refused(shop: Path) -> None:
    killed(shop, CRASHES["after the first rename"], "--yes", "--only", BUN)
    edited = (shop / "CLAUDE.md").read_bytes() + b"- My own rule.\r\n"
    (shop / "CLAUDE.md").write_bytes(edited)
    res = learn(shop, "--undo", "--yes")
    assert res.exit_code == 1 and "changed since learn wrote it" in res.output, res.output
    assert (shop / "CLAUDE.md").read_bytes() == edited


def test_a_second_apply_beside_a_first_says_another_is_writing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each apply settles the pending rows a killed one left; one running beside another
    would take the other's row, not yet written, for a write that never happened."""
    from click.testing import CliRunner

    from learn.cli import cli
    from learn.lock import run_lock

    monkeypatch.setenv("LEARN_LOCK_TIMEOUT", "0")
    with run_lock("apply"):
        for args in (["apply", "--undo", "--yes"], ["apply", "--yes"]):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 75, result.output
            assert "another learn command is writing to the agents' files" in result.output
    assert CliRunner().invoke(cli, ["apply", "--undo", "--yes"]).exit_code == 0
