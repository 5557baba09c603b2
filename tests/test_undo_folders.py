"""`learn apply --undo` takes away the folders the apply made (`.claude/`,
`.claude/commands/`) once the file it made is gone and nothing else is in them: never a
folder that was there before, one the person has put something in since, one reached
through a link, nor any folder of a write journaled before learn recorded them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict

MINE = "# shop\n\n- Keep PRs small.\n"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(MINE)
    quotes = tuple(Quote(s, "open a release PR", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    release = Proposal("request", "release-pr", "open a release PR", 3, 3, quotes[1].at,
                       quotes, verdict=Verdict(True, "Open a release PR.", "git", "project", 0.9),
                       surface="command",
                       command_body="Open a release PR for $ARGUMENTS with the changelog entry.")
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([release], run_id=None, fallback_project=str(project))
    return project


def apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(project), *args])


def _applied(shop: Path) -> Path:
    res = apply(shop, "--yes")
    assert res.exit_code == 0, res.output
    command = shop / ".claude" / "commands" / "release-pr.md"
    assert command.is_file()
    return command


def test_undo_removes_the_folders_the_apply_made(shop: Path) -> None:
    _applied(shop)
    looked = apply(shop, "--undo", "--dry-run")
    assert f"{shop / '.claude'} goes too, if nothing else is in it" in looked.output
    assert (shop / ".claude" / "commands").is_dir()  # a dry run removes nothing

    res = apply(shop, "--undo", "--yes")

    assert res.exit_code == 0, res.output
    assert not (shop / ".claude").exists()
    assert sorted(p.name for p in shop.iterdir()) == [".git", "CLAUDE.md"]
    assert f"removed {shop / '.claude'}" in res.output


def test_a_folder_that_was_there_before_stays(shop: Path) -> None:
    (shop / ".claude").mkdir()
    _applied(shop)

    assert apply(shop, "--undo", "--yes").exit_code == 0

    assert not (shop / ".claude" / "commands").exists()
    assert (shop / ".claude").is_dir() and not list((shop / ".claude").iterdir())


def test_a_folder_the_person_put_something_in_stays(shop: Path) -> None:
    command = _applied(shop)
    mine = command.parent / "deploy.md"
    mine.write_text("Deploy.\n")

    assert apply(shop, "--undo", "--yes").exit_code == 0

    assert not command.exists()
    assert mine.read_text() == "Deploy.\n"


def test_a_made_folder_swapped_for_a_link_is_not_followed(tmp_path: Path) -> None:
    from learn.report.undo import drop_made

    root, elsewhere = tmp_path / "shop", tmp_path / "elsewhere"
    (elsewhere / "rules").mkdir(parents=True)
    (root / ".claude").mkdir(parents=True)
    made = [root / ".claude", root / ".claude" / "rules"]
    # The folder itself is now a link to an empty folder: rmdir follows no link.
    (root / ".claude" / "rules").symlink_to(elsewhere / "rules", target_is_directory=True)
    assert drop_made(root / ".claude" / "rules" / "api.md", made) == []
    assert (elsewhere / "rules").is_dir() and (root / ".claude" / "rules").is_symlink()
    # A folder above it is now a link: the empty folder it leads to is not reached.
    (root / ".claude" / "rules").unlink()
    (root / ".claude").rmdir()
    (root / ".claude").symlink_to(elsewhere, target_is_directory=True)
    assert drop_made(root / ".claude" / "rules" / "api.md", made) == []
    assert (elsewhere / "rules").is_dir()


def test_only_folders_on_the_way_to_the_file_are_removed(tmp_path: Path) -> None:
    from learn.report.undo import drop_made

    root = tmp_path / "shop"
    for sub in (".claude/rules", "src", ".cursor"):
        (root / sub).mkdir(parents=True)
    # A journal naming folders that do not hold the file (a tampered or odd row): kept.
    made = [root / "src", root / ".cursor", root / ".claude", root / ".claude" / "rules"]
    assert drop_made(root / ".claude" / "rules" / "api.md", made) == [
        root / ".claude" / "rules", root / ".claude"]
    assert (root / "src").is_dir() and (root / ".cursor").is_dir()


def test_a_write_journaled_without_its_folders_undoes_as_before(shop: Path) -> None:
    from learn.store import open_store

    command = _applied(shop)
    # A row written before learn recorded the folders a write made: NULL.
    with open_store() as store:
        conn = store.journal._conn
        with conn:
            conn.execute("UPDATE apply_writes SET made_folders = NULL")

    res = apply(shop, "--undo", "--yes")

    assert res.exit_code == 0, res.output
    assert not command.exists()
    assert (shop / ".claude" / "commands").is_dir()
    assert (shop / "CLAUDE.md").read_text() == MINE
