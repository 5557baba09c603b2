"""A `learn apply` killed between two of its file writes, then run again, is one apply for
`--undo`: one undo puts every file back as it was before, byte for byte and mode.

An audit (2026-12, F2) killed `learn apply` after it wrote CLAUDE.md and before the command
file; the second apply settled the killed write as an apply of its own, without a word, and
wrote only the command file; `--undo` then removed the command file and left the killed
apply's rules in CLAUDE.md until a second `--undo`. Here a real `learn apply` process is
killed (`os._exit(9)`, as `kill -9`: no `finally`) at each boundary of each of its three
writes (CLAUDE.md, AGENTS.md, the command file), run again, and undone once
(learn.commands.apply_resume).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_apply_interrupted_batch import (
    BUN,
    MINE,
    MODE,
    RELEASE,
    RULES,
    files,
    learn,
    states,
    stopped,
    uninterrupted,
    world,
)

# Run before learn's main in the killed process: the apply's write number {n} ends it at
# {when}. "before the rename": journaled pending, its backup made, the file untouched;
# "after the rename": the file in place, its row pending; "after its decisions": the
# proposals recorded (as far as they are), the row still pending; "after the settle": the
# row done, the next write not begun.
KILL = """
real_plan, real_settle = W.write_plan, W._settle
n = [0]
def write_plan(plan, **kw):
    n[0] += 1
    if n[0] == {n} and {when!r} == "before the rename":
        os._exit(9)
    out = real_plan(plan, **kw)
    if n[0] == {n} and {when!r} == "after the rename":
        os._exit(9)
    return out
def _settle(ids, plan):
    if n[0] == {n} and {when!r} == "after its decisions":
        os._exit(9)
    real_settle(ids, plan)
    if n[0] == {n} and {when!r} == "after the settle":
        os._exit(9)
W.write_plan, W._settle = write_plan, _settle
"""
WHEN = ("before the rename", "after the rename", "after its decisions", "after the settle")
POINTS = [(n, when) for n in (1, 2, 3) for when in WHEN]
COMPLETING = "completing an interrupted `learn apply`"


def kill(shop: Path, n: int, when: str, *args: str) -> None:
    stopped(shop, KILL.format(n=n, when=when), 9, *args)


def folders(project: Path) -> list[str]:
    return sorted(str(p.relative_to(project)) for p in project.rglob("*")
                  if p.is_dir() and ".git" not in p.parts)


def as_before(shop: Path, want: dict[str, bytes], want_folders: list[str]) -> None:
    """The project holds exactly `want` (bytes), in exactly `want_folders`, CLAUDE.md with
    its mode."""
    assert files(shop) == want
    assert folders(shop) == want_folders
    assert (shop / "CLAUDE.md").stat().st_mode & 0o777 == MODE


@pytest.mark.parametrize(("n", "when"), POINTS)
def test_one_undo_after_a_killed_apply_and_its_rerun_puts_every_file_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int, when: str) -> None:
    want_files, want_states = uninterrupted(tmp_path, monkeypatch)
    assert len(want_files) == 3  # CLAUDE.md, AGENTS.md, the command file: three writes
    shop = world(tmp_path / "killed", monkeypatch)
    original, original_folders = files(shop), folders(shop)
    assert original == {"CLAUDE.md": MINE}

    kill(shop, n, when, "--yes")
    mid = files(shop)
    rerun = learn(shop, "--yes")
    assert rerun.exit_code == 0, rerun.output
    # The rerun ends where an apply never stopped ends: files, states, applied_rules.
    assert files(shop) == want_files
    assert states(shop) == want_states
    # It says it completes the interrupted apply when it wrote part of it, and only then.
    partial = mid not in (original, want_files)
    assert (COMPLETING in rerun.output) == partial, rerun.output

    undone = learn(shop, "--undo", "--yes")
    assert undone.exit_code == 0, undone.output
    # The defect: CLAUDE.md (and AGENTS.md) kept the killed apply's rules.
    as_before(shop, original, original_folders)
    now = states(shop)
    assert now["applied"] == [] and {now[BUN], now[RULES], now[RELEASE]} == {"pending"}
    # Nothing of it is left on record for a second undo, which changes nothing.
    again = learn(shop, "--undo", "--yes")
    assert again.exit_code == 0 and "nothing to undo" in again.output, again.output
    as_before(shop, original, original_folders)


@pytest.mark.parametrize(("n", "when"), [(1, "after the rename"), (1, "after the settle"),
                                         (2, "after its decisions"), (2, "after the settle")])
def test_the_apply_before_the_killed_one_is_left_to_the_second_undo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int, when: str) -> None:
    shop = world(tmp_path / "w", monkeypatch)
    original, original_folders = files(shop), folders(shop)
    older = learn(shop, "--yes", "--only", RULES)
    assert older.exit_code == 0, older.output
    after_older, older_folders = files(shop), folders(shop)
    assert set(after_older) == {"CLAUDE.md", "AGENTS.md"}

    kill(shop, n, when, "--yes")
    rerun = learn(shop, "--yes")
    assert rerun.exit_code == 0 and COMPLETING in rerun.output, rerun.output

    # One undo: the killed apply and its rerun, and nothing of the older apply.
    assert learn(shop, "--undo", "--yes").exit_code == 0
    as_before(shop, after_older, older_folders)
    now = states(shop)
    assert now[RULES] == "applied" and now[BUN] == now[RELEASE] == "pending"
    # The second: the older apply, as asked.
    assert learn(shop, "--undo", "--yes").exit_code == 0
    as_before(shop, original, original_folders)
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output


def test_a_rerun_that_writes_again_a_file_the_killed_apply_wrote_is_undone_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The killed apply wrote BUN to CLAUDE.md; the rerun (every pending rule) adds RULES to
    the same CLAUDE.md: two writes of one file in one apply, put back as one."""
    shop = world(tmp_path / "w", monkeypatch)
    original, original_folders = files(shop), folders(shop)
    kill(shop, 1, "after the settle", "--yes", "--only", BUN, "--only", RELEASE)
    rerun = learn(shop, "--yes")
    assert rerun.exit_code == 0 and COMPLETING in rerun.output, rerun.output
    assert b"Leave generated files alone" in (shop / "CLAUDE.md").read_bytes()

    undone = learn(shop, "--undo", "--yes")
    assert undone.exit_code == 0, undone.output
    assert "changed since learn wrote it" not in undone.output
    as_before(shop, original, original_folders)
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output


def test_an_undo_killed_after_putting_back_a_file_written_twice_is_finished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The undo of that apply killed after CLAUDE.md is back: the next undo counts it as
    put back (as before the first of its two writes) and puts back the rest."""
    shop = world(tmp_path / "w", monkeypatch)
    original, original_folders = files(shop), folders(shop)
    kill(shop, 1, "after the settle", "--yes", "--only", BUN, "--only", RELEASE)
    assert learn(shop, "--yes").exit_code == 0
    # Killed right after CLAUDE.md is put back, made the first of the files it undoes.
    first_claude = """
real = W.write_plan
def write_plan(plan, **kw):
    out = real(plan, **kw)
    if plan.path.name == "CLAUDE.md":
        os._exit(9)
    return out
W.write_plan = write_plan
import learn.report.undo as U
plans = U.undo_plans
U.undo_plans = lambda ws: sorted(plans(ws), key=lambda u: u.plan.path.name != "CLAUDE.md")
"""
    stopped(shop, first_claude, 9, "--undo", "--yes")
    assert files(shop)["CLAUDE.md"] == MINE and files(shop) != original

    finished = learn(shop, "--undo", "--yes")
    assert finished.exit_code == 0, finished.output
    assert f"already put back: {shop / 'CLAUDE.md'}" in finished.output
    as_before(shop, original, original_folders)
    assert "nothing to undo" in learn(shop, "--undo", "--yes").output


def test_an_apply_that_writes_none_of_what_the_killed_one_missed_is_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--only` another rule: not the killed apply's rest, so not part of it. `--undo`
    takes it first, then the killed apply's CLAUDE.md."""
    shop = world(tmp_path / "w", monkeypatch)
    original, original_folders = files(shop), folders(shop)
    kill(shop, 1, "after the settle", "--yes", "--only", BUN, "--only", RELEASE)
    killed = files(shop)
    other = learn(shop, "--yes", "--only", RULES)
    assert other.exit_code == 0, other.output
    assert COMPLETING not in other.output
    assert learn(shop, "--undo", "--yes").exit_code == 0
    assert files(shop) == killed
    assert learn(shop, "--undo", "--yes").exit_code == 0
    as_before(shop, original, original_folders)


def test_a_token_from_before_the_kill_is_refused_and_a_new_one_completes_the_apply(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A confirmation token carries the journal's generation: the killed apply's writes
    change it, so the rerun with the old token writes nothing; the new dry run says it
    completes the interrupted apply, and its token writes the rest as part of it."""
    want_files, _ = uninterrupted(tmp_path, monkeypatch)
    shop = world(tmp_path / "w", monkeypatch)
    original, original_folders = files(shop), folders(shop)

    def token(out: str) -> str:
        found = re.search(r"--confirm (\w+)`", out)
        assert found is not None, out
        return found.group(1)

    first = learn(shop, "--dry-run")
    assert first.exit_code == 0, first.output
    old = token(first.output)
    kill(shop, 1, "after the settle", "--confirm", old)
    killed = files(shop)
    assert killed != original

    stale = learn(shop, "--confirm", old)
    assert stale.exit_code == 2 and "refusing to write" in stale.output, stale.output
    assert files(shop) == killed

    looked = learn(shop, "--dry-run")
    assert looked.exit_code == 0 and COMPLETING in looked.output, looked.output
    assert files(shop) == killed
    new = token(looked.output)
    assert new != old
    done = learn(shop, "--confirm", new)
    assert done.exit_code == 0 and COMPLETING in done.output, done.output
    assert files(shop) == want_files

    # The undo's own token: shown once, used once; a second use puts back nothing older.
    shown = learn(shop, "--undo", "--dry-run")
    assert shown.exit_code == 0, shown.output
    undo_token = token(shown.output)
    assert learn(shop, "--undo", "--confirm", undo_token).exit_code == 0
    as_before(shop, original, original_folders)
    assert "nothing to undo" in learn(shop, "--undo", "--confirm", undo_token).output
    as_before(shop, original, original_folders)
