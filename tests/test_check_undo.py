"""`learn apply --undo` puts back what `learn check` wrote, as it puts back an apply's.

`learn check add` / `remove` wrote the person's settings (and Codex's hooks, learn's
rules file, its install record) with no entry in the undo journal: after a check
add, `learn apply --undo` undid the apply before it instead, and the only way back
was `learn check remove` or the backups. Now each command's files are one journaled
batch, undone byte for byte, through the same confinement, refused as a whole when
the person edited one of them since."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.guard.files import record_file, rules_file
from learn.records.proposal import Proposal, Quote, Verdict

# The person's own settings, in their own style (two-space indent, a list on one line,
# no newline at the end): what an undo must give back, byte for byte.
SETTINGS = b'{\n  "permissions": {"allow": ["Bash(ls:*)", "Bash(git status)"]},\n  "model": "opus"\n}'
HOOKS = b'{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}\n'
MINE = "# shop\n\n- Keep PRs small.\n"
ADD = ["check", "add", "git", "push", "--flag", "--force", "--flag", "-f",
       "--reason", "Never force push; ask me first.", "--yes"]


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with the person's own `.claude/settings.local.json` and CLAUDE.md, and
    a pending proposal for `learn apply`; learn's data in a temp dir."""
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_bytes(SETTINGS)
    (project / ".claude" / "settings.local.json").chmod(0o640)
    (project / "CLAUDE.md").write_text(MINE)
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


def check(shop: Path, *args: str) -> Result:
    return run(*args, "--project", str(shop))


def undo(*args: str) -> Result:
    return run("apply", "--undo", "--yes", *args)


def snapshot(*paths: Path) -> dict[Path, bytes | None]:
    return {p: p.read_bytes() if p.exists() else None for p in paths}


def settings_of(shop: Path) -> Path:
    return shop / ".claude" / "settings.local.json"


def learns(shop: Path) -> tuple[Path, Path]:
    return rules_file(str(shop)), record_file(str(shop))


def test_undo_after_check_add_puts_every_file_back_byte_for_byte(shop: Path) -> None:
    codex_hooks = Path.home() / ".codex" / "hooks.json"
    codex_hooks.parent.mkdir()
    codex_hooks.write_bytes(HOOKS)
    files = (settings_of(shop), codex_hooks, *learns(shop))
    before = snapshot(*files)
    added = check(shop, *ADD, "--codex")
    assert added.exit_code == 0, added.output
    assert "`learn apply --undo` puts it back" in added.output
    assert all(snapshot(f)[f] != before[f] for f in files)  # each of them was written

    undone = undo()
    assert undone.exit_code == 0, undone.output
    assert "undo the check of" in undone.output
    assert snapshot(*files) == before
    assert settings_of(shop).stat().st_mode & 0o777 == 0o640  # its own mode, as before
    assert check(shop, "check", "list").output.startswith("no check rules")
    # Nothing of it is left to undo, and the check can be added again.
    again = undo()
    # Nothing to do is not a failure (exit 0, docs/usage.md).
    assert again.exit_code == 0 and "nothing to undo" in again.output
    assert check(shop, *ADD).exit_code == 0


def test_undo_removes_a_settings_file_the_check_created(shop: Path) -> None:
    settings_of(shop).unlink()
    assert check(shop, *ADD).exit_code == 0
    assert b"learn.guard" in settings_of(shop).read_bytes()
    undone = undo()
    assert undone.exit_code == 0, undone.output
    assert not settings_of(shop).exists()
    assert not any(p.exists() for p in learns(shop))


def test_undo_refuses_settings_edited_since_and_leaves_the_whole_check_in_place(
        shop: Path) -> None:
    assert check(shop, *ADD).exit_code == 0
    settings = settings_of(shop)
    edited = settings.read_bytes().replace(b'"model": "opus"', b'"model": "sonnet"')
    settings.write_bytes(edited)
    installed = snapshot(*learns(shop))

    res = undo()
    assert res.exit_code == 1
    assert f"{settings} changed since learn wrote it; learn does not undo over your edits" \
        in res.output
    assert ".bak" in res.output  # where what it held before learn's hook is kept
    assert "learn's check is undone whole or not at all" in res.output
    # Nothing lost, nothing half undone: the edit stays, and the rules file and the
    # record the hook needs (and `learn check remove` goes by) are as they were.
    assert settings.read_bytes() == edited
    assert snapshot(*learns(shop)) == installed
    # `learn check remove` still takes out learn's hook alone, keeping the edit.
    removed = check(shop, "check", "remove", "--all", "--yes")
    assert removed.exit_code == 0, removed.output
    assert json.loads(settings.read_bytes()) == {**json.loads(SETTINGS), "model": "sonnet"}
    assert not any(p.exists() for p in learns(shop))


def test_undo_after_check_remove_puts_the_check_back_then_takes_it_away(shop: Path) -> None:
    files = (settings_of(shop), *learns(shop))
    original = snapshot(*files)
    assert check(shop, *ADD).exit_code == 0
    installed = snapshot(*files)
    removed = check(shop, "check", "remove", "--all", "--yes")
    assert removed.exit_code == 0, removed.output
    assert snapshot(*files) == original

    back = undo()  # the remove, undone: the check as it was installed, byte for byte
    assert back.exit_code == 0, back.output
    assert snapshot(*files) == installed
    assert "git-push-force [record]" in check(shop, "check", "list").output
    # The record came back too: `learn check remove` works from the state undo left.
    assert check(shop, "check", "remove", "--all", "--yes").exit_code == 0
    assert snapshot(*files) == original
    # Each command is one step of the journal, undone newest first: this remove, then
    # the add (the first remove is undone already).
    assert undo().exit_code == 0
    assert snapshot(*files) == installed
    assert undo().exit_code == 0
    assert snapshot(*files) == original


def test_undo_after_check_remove_made_the_folder_again(tmp_path: Path, shop: Path) -> None:
    # No `.claude` before the check: `remove` took the folder learn made with the hook,
    # and the undo of that remove puts the hook back in a folder made again.
    settings_of(shop).unlink()
    (shop / ".claude").rmdir()
    assert check(shop, *ADD).exit_code == 0
    installed = settings_of(shop).read_bytes()
    assert check(shop, "check", "remove", "--all", "--yes").exit_code == 0
    assert not (shop / ".claude").exists()
    res = undo()
    assert res.exit_code == 0, res.output
    assert settings_of(shop).read_bytes() == installed


def test_a_check_and_an_apply_in_one_sitting_are_both_undone(shop: Path) -> None:
    files = (settings_of(shop), shop / "CLAUDE.md", *learns(shop))
    original = snapshot(*files)
    assert check(shop, *ADD).exit_code == 0
    applied = run("apply", "--yes", "--only", "directive:use-bun", "--project", str(shop))
    assert applied.exit_code == 0, applied.output
    assert "Use bun" in (shop / "CLAUDE.md").read_text()

    first = undo()  # the newest: the apply
    assert first.exit_code == 0, first.output
    assert (shop / "CLAUDE.md").read_text() == MINE
    assert b"learn.guard" in settings_of(shop).read_bytes()
    second = undo()  # then the check
    assert second.exit_code == 0, second.output
    assert snapshot(*files) == original
    last = undo()  # both undone, nothing else on record: nothing to do is exit 0
    assert last.exit_code == 0 and "nothing to undo" in last.output


def test_an_apply_then_a_check_enforce_are_undone_newest_first(shop: Path) -> None:
    assert check(shop, *ADD).exit_code == 0
    added = snapshot(settings_of(shop), *learns(shop))
    assert run("apply", "--yes", "--only", "directive:use-bun", "--project",
               str(shop)).exit_code == 0
    enforced = check(shop, "check", "enforce", "git-push-force", "--yes")
    assert enforced.exit_code == 0, enforced.output
    assert "[enforce]" in check(shop, "check", "list").output

    assert undo().exit_code == 0  # the enforce
    assert snapshot(settings_of(shop), *learns(shop)) == added
    assert "Use bun" in (shop / "CLAUDE.md").read_text()
    assert undo().exit_code == 0  # the apply
    assert (shop / "CLAUDE.md").read_text() == MINE


def test_an_undo_that_fails_midway_puts_the_check_back_as_it_was(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A check's files are undone whole: the hook goes first, learn's rules file last, and
    # that one cannot be written (a full disk): the settings and the record undone before
    # it are put back, so no rule is left without its hook, and the undo can run again.
    from learn.commands import apply_writes
    from learn.report.apply import write_plan
    from learn.report.edits import FilePlan

    assert check(shop, *ADD).exit_code == 0
    files = (settings_of(shop), *learns(shop))
    installed = snapshot(*files)

    def full_disk(plan: FilePlan, *, backup: bool = True) -> Path | None:
        # The undo's own writes (apply_writes backs up first, then writes without a
        # backup); put_back goes through learn.report.apply.write_plan, not this one.
        if plan.path == rules_file(str(shop)):
            raise OSError(28, "No space left on device")
        return write_plan(plan, backup=backup)

    monkeypatch.setattr(apply_writes, "write_plan", full_disk)
    res = undo()
    assert res.exit_code == 1
    assert "learn's check is not undone" in res.output
    assert f"{settings_of(shop)} is put back as it was" in res.output
    assert snapshot(*files) == installed
    monkeypatch.setattr(apply_writes, "write_plan", write_plan)
    res = undo()
    assert res.exit_code == 0, res.output
    assert settings_of(shop).read_bytes() == SETTINGS


def test_undo_never_follows_a_folder_swapped_for_a_link_out_of_the_project(
        tmp_path: Path, shop: Path) -> None:
    # `.claude` is moved away after the check and replaced by a link to a folder outside
    # the project holding the same bytes: the undo's confinement refuses it, writes
    # nothing there, and leaves the rest of the check in place.
    assert check(shop, *ADD).exit_code == 0
    installed = snapshot(*learns(shop))
    outside = tmp_path / "victim"
    os.rename(shop / ".claude", outside)
    (shop / ".claude").symlink_to(outside)
    held = (outside / "settings.local.json").read_bytes()

    res = undo()
    assert res.exit_code == 1
    assert "refused" in res.output
    assert (outside / "settings.local.json").read_bytes() == held
    assert snapshot(*learns(shop)) == installed


def test_undo_of_an_applied_check_offer_takes_its_install_record_too(shop: Path) -> None:
    # `learn apply` of a check offer journaled the rules file and the hook but not the
    # install record: after the undo, the record still named a hook in the settings,
    # and the next `learn check remove` "restored" settings from it.
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
    files = (settings_of(shop), *learns(shop))
    original = snapshot(*files)
    done = run("apply", "--only", offer.key, "--yes", "--project", str(shop))
    assert done.exit_code == 0, done.output
    assert all(p.exists() for p in learns(shop))

    res = undo()
    assert res.exit_code == 0, res.output
    assert snapshot(*files) == original
    with open_store(default_store_path()) as store:
        assert store.proposals.decided(str(shop), [offer.key]) == {}
