"""learn's check applied from a git worktree: the hook goes into the worktree, and a
hook that is not written (refused, changed since the diff, declined) installs nothing:
no rules in learn's data file, no install record, the offer not applied.

The audit's case: from a worktree the settings write was refused as outside the main
checkout, yet the rules file was written, the install record named the worktree's
settings as holding the hook, and the offer was recorded as applied."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.commands.apply import here_project
from learn.guard.files import record_file, rules_file
from learn.records.proposal import Proposal, Quote, Verdict

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

KEY = "directive:never-force-push-check"


def _repo_with_worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A git repository `shop` and a sibling worktree `shop-fix` of it."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull}
    main, worktree = tmp_path / "shop", tmp_path / "shop-fix"
    main.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=main, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "x")
    git("worktree", "add", "-q", "-b", "fix", str(worktree))
    return main, worktree


def _offered(worktree: Path) -> str:
    """The force-push check offered (stored, pending) for the repository; its project id."""
    from learn.store import open_store
    from learn.store.runs import default_store_path

    project = here_project(worktree)
    offer = Proposal(kind="directive", label="never-force-push-check",
                     text="Never force push, it rewrites history", sessions=2, count=2,
                     last_seen=None, quotes=(Quote("s1", "never force push", None, project),),
                     verdict=Verdict(True, "Never force push, it rewrites history", "git",
                                     "project", 0.9),
                     surface="check", surface_commands=("git push",),
                     surface_rules=("--force",))
    with open_store(default_store_path()) as store:
        store.proposals.record([offer], run_id=None, fallback_project=project)
    return project


def _apply(worktree: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["apply", "--only", KEY, "--project", str(worktree), *args],
                              input=stdin)


def _applied(project: str) -> bool:
    from learn.store import open_store
    from learn.store.runs import default_store_path

    with open_store(default_store_path()) as store:
        return store.proposals.decided(project, [KEY]).get(KEY) == "applied"


def _assert_nothing_installed(project: str) -> None:
    assert not rules_file(project).exists()
    assert not record_file(project).exists()
    assert not _applied(project)


def test_a_check_applied_in_a_worktree_puts_its_hook_in_the_worktree(tmp_path: Path) -> None:
    main, worktree = _repo_with_worktree(tmp_path)
    project = _offered(worktree)
    assert project != str(worktree)  # one project: the repository, seen from the worktree

    done = _apply(worktree, "--yes")
    assert done.exit_code == 0, done.output
    settings = worktree / ".claude" / "settings.local.json"
    hooks = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert any("-m learn.guard" in h["command"] for entry in hooks for h in entry["hooks"])
    assert not (main / ".claude").exists()
    [rule] = json.loads(rules_file(project).read_text())["rules"]
    assert rule["mode"] == "record"
    record = json.loads(record_file(project).read_text())
    assert record["targets"]["claude"]["path"] == str(settings)
    assert _applied(project)


def test_a_hook_learn_may_not_write_installs_nothing(tmp_path: Path) -> None:
    # The worktree's settings are a link out of the project: learn does not write there,
    # and so puts no rule in place that nothing would run.
    _, worktree = _repo_with_worktree(tmp_path)
    project = _offered(worktree)
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n")
    (worktree / ".claude").mkdir()
    (worktree / ".claude" / "settings.local.json").symlink_to(outside)

    done = _apply(worktree, "--yes")
    assert done.exit_code == 1, done.output
    assert outside.read_text() == "{}\n"
    _assert_nothing_installed(project)
    assert "refused: " in done.output and "nothing was written" in done.output


def test_settings_changed_since_the_diff_install_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The person edits the settings between the diff and the write: the hook is not
    # written, so the rules file written after it is put back and nothing is recorded.
    from learn.commands.apply_writes import show
    from learn.store import open_store
    from learn.store.runs import default_store_path

    _, worktree = _repo_with_worktree(tmp_path)
    project = _offered(worktree)
    settings = worktree / ".claude" / "settings.local.json"

    def show_then_edit(*args: object, **kwargs: object) -> bool:
        shown = show(*args, **kwargs)  # type: ignore[arg-type]
        settings.parent.mkdir(exist_ok=True)
        settings.write_text('{"permissions": {}}\n')
        return shown

    monkeypatch.setattr("learn.commands.apply.show", show_then_edit)
    done = _apply(worktree, "--yes")
    assert done.exit_code == 1, done.output
    assert settings.read_text() == '{"permissions": {}}\n'
    _assert_nothing_installed(project)
    assert "learn's check is not installed" in done.output
    # The rules file was put back: `learn apply --undo` has nothing of it to undo.
    with open_store(default_store_path()) as store:
        assert all(w.path != str(rules_file(project)) for w in store.journal.last_batch())


def test_a_declined_hook_installs_nothing(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # No to the settings: learn's data file is not asked about (the check would run
    # nowhere here), and a "y" meant for it is never read.
    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    _, worktree = _repo_with_worktree(tmp_path)
    project = _offered(worktree)

    done = _apply(worktree, stdin="n\ny\n")
    assert done.exit_code == 0, done.output
    assert "skipped " + str(worktree / ".claude" / "settings.local.json") in done.output
    assert "Write learn's check to " + str(rules_file(project)) not in done.output
    assert "not writing " + str(rules_file(project)) in done.output
    assert not (worktree / ".claude").exists()
    _assert_nothing_installed(project)
    assert "learn's check is not installed" in done.output


def test_a_declined_hook_leaves_the_checks_already_there_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A check is in place from the main checkout; the second one, from the worktree, is
    # declined there: the rules file is put back byte for byte, the first check kept.
    main, worktree = _repo_with_worktree(tmp_path)
    project = _offered(worktree)
    added = CliRunner().invoke(cli, ["check", "add", "rm", "--flag", "-rf", "--reason",
                                     "Never rm -rf.", "--yes", "--project", str(main)])
    assert added.exit_code == 0, added.output
    data, record = rules_file(project), record_file(project)
    before = (data.read_bytes(), record.read_bytes())

    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    done = _apply(worktree, stdin="n\ny\n")
    assert done.exit_code == 0, done.output
    assert (data.read_bytes(), record.read_bytes()) == before
    assert not _applied(project)
    assert "learn's check is not installed" in done.output
