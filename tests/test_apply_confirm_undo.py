"""`learn apply` on a real store: every diff shown before anything is written, `--dry-run`
then `--confirm TOKEN` writes exactly what was shown, and `--undo` puts back what the last
apply wrote (a file it changed, a file it created) unless the person edited it since."""

from __future__ import annotations

import dataclasses
import re
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
    quotes = tuple(Quote(s, "use bun not npm", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    bun = Proposal("directive", "use-bun", "use bun not npm", 2, 2, quotes[1].at, quotes,
                   verdict=Verdict(True, "Use bun, not npm.", "tooling", "project", 0.9))
    release = Proposal("request", "release-pr", "open a release PR", 3, 3, quotes[1].at,
                       quotes, verdict=Verdict(True, "Open a release PR.", "git", "project", 0.9),
                       surface="command",
                       command_body="Open a release PR for $ARGUMENTS with the changelog entry.")
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([bun, release], run_id=None, fallback_project=str(project))
    return project


def apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(project), *args])


def states(tmp_path: Path) -> dict[str, str]:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        return {r.key: r.state for r in book.rows()} | {
            f"applied:{a.key}": a.target_file for a in book.applied()}


def test_every_diff_is_shown_before_anything_is_written(shop: Path) -> None:
    res = apply(shop, "--yes")
    assert res.exit_code == 0, res.output
    command = shop / ".claude" / "commands" / "release-pr.md"
    first_write = res.output.index("wrote ")
    assert res.output.index(f"+++ {shop / 'CLAUDE.md'}") < first_write
    assert res.output.index(f"+++ {command}") < first_write
    assert command.read_text().startswith(
        '---\ndescription: "Open a release PR."\n---\nOpen a release PR for $ARGUMENTS with '
        "the changelog entry.\n")


def test_dry_run_then_confirm_writes_exactly_what_was_shown(shop: Path, tmp_path: Path) -> None:
    looked = apply(shop, "--dry-run", "--only", "directive:use-bun")
    assert looked.exit_code == 0 and "+- Use bun, not npm." in looked.output
    [token] = re.findall(r"confirm: ([0-9a-f]{12})", looked.output)
    assert (shop / "CLAUDE.md").read_text() == MINE
    # The file changed after the person saw the diff: the token no longer fits.
    (shop / "CLAUDE.md").write_text(MINE + "- Squash before merging.\n")
    stale = apply(shop, "--only", "directive:use-bun", "--confirm", token)
    assert stale.exit_code == 2 and "not the ones confirmed" in stale.output
    assert "Use bun" not in (shop / "CLAUDE.md").read_text()
    looked = apply(shop, "--dry-run", "--only", "directive:use-bun")
    [token] = re.findall(r"confirm: ([0-9a-f]{12})", looked.output)
    wrote = apply(shop, "--only", "directive:use-bun", "--confirm", token)
    assert wrote.exit_code == 0, wrote.output
    assert "- Use bun, not npm. <!-- learn directive:use-bun" in (shop / "CLAUDE.md").read_text()
    assert states(tmp_path)["directive:use-bun"] == "applied"


def test_a_token_writes_once_not_again_after_an_undo(shop: Path) -> None:
    # The undo put the files back byte for byte, so the same diffs were planned and the
    # old token (shell history, a script) wrote again what the person had undone.
    looked = apply(shop, "--dry-run", "--only", "directive:use-bun")
    [token] = re.findall(r"confirm: ([0-9a-f]{12})", looked.output)
    assert apply(shop, "--only", "directive:use-bun", "--confirm", token).exit_code == 0
    assert apply(shop, "--undo", "--yes").exit_code == 0
    assert (shop / "CLAUDE.md").read_text() == MINE
    again = apply(shop, "--only", "directive:use-bun", "--confirm", token)
    assert again.exit_code == 2 and "not the ones confirmed" in again.output
    assert (shop / "CLAUDE.md").read_text() == MINE
    # A new look gives a new token, which writes.
    looked = apply(shop, "--dry-run", "--only", "directive:use-bun")
    [fresh] = re.findall(r"confirm: ([0-9a-f]{12})", looked.output)
    assert fresh != token
    assert apply(shop, "--only", "directive:use-bun", "--confirm", fresh).exit_code == 0
    assert "Use bun" in (shop / "CLAUDE.md").read_text()


def test_without_a_terminal_or_a_token_nothing_is_written(shop: Path) -> None:
    res = apply(shop)
    assert res.exit_code == 2 and "refusing to write without confirmation" in res.output
    assert "--confirm TOKEN" in res.output
    assert (shop / "CLAUDE.md").read_text() == MINE
    assert not (shop / ".claude").exists()


def test_undo_puts_back_what_the_last_apply_wrote(shop: Path, tmp_path: Path) -> None:
    assert apply(shop, "--yes").exit_code == 0
    command = shop / ".claude" / "commands" / "release-pr.md"
    assert command.exists() and "Use bun" in (shop / "CLAUDE.md").read_text()
    looked = apply(shop, "--undo", "--dry-run")
    assert looked.exit_code == 0, looked.output
    assert "-- Use bun, not npm." in looked.output and "+++ /dev/null" in looked.output
    assert command.exists()  # a dry run writes nothing
    undone = apply(shop, "--undo", "--yes")
    assert undone.exit_code == 0, undone.output
    assert (shop / "CLAUDE.md").read_text() == MINE
    assert not command.exists()
    after = states(tmp_path)
    assert after["directive:use-bun"] == "pending" and after["request:release-pr"] == "pending"
    assert not any(k.startswith("applied:") for k in after)
    # Nothing left to undo (nothing to do is not a failure: exit 0, docs/usage.md); the
    # proposals can be applied again.
    assert apply(shop, "--undo", "--yes").exit_code == 0
    assert apply(shop, "--yes").exit_code == 0
    assert "Use bun" in (shop / "CLAUDE.md").read_text()


def test_undo_never_overwrites_the_persons_later_edits(shop: Path) -> None:
    assert apply(shop, "--yes", "--only", "directive:use-bun").exit_code == 0
    edited = (shop / "CLAUDE.md").read_text() + "- My own new rule.\n"
    (shop / "CLAUDE.md").write_text(edited)
    res = apply(shop, "--undo", "--yes")
    assert res.exit_code == 1
    assert "changed since learn wrote it" in res.output and ".bak" in res.output
    assert (shop / "CLAUDE.md").read_text() == edited


def test_a_rejected_request_is_never_written_as_a_command(shop: Path, tmp_path: Path) -> None:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        [row] = [r for r in book.rows() if r.key == "request:release-pr"]
        assert row.proposal.verdict is not None
        rejected = dataclasses.replace(row.proposal, verdict=dataclasses.replace(
            row.proposal.verdict, accepted=False, rationale="one-off work"))
        book.record([rejected], run_id=None, fallback_project=str(shop))
    res = apply(shop, "--yes", "--only", "request:release-pr")
    assert res.exit_code == 1 and "the judge rejected it (one-off work)" in res.output
    assert not (shop / ".claude").exists()


def test_edit_rewrites_a_commands_instruction(shop: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def edit(text: str) -> str:
        seen.append(text)
        return "Open the release PR for $ARGUMENTS.\n\nAsk me before pushing the tag.\n"

    monkeypatch.setattr("click.edit", edit)
    res = apply(shop, "--yes", "--edit", "--only", "request:release-pr")
    assert res.exit_code == 0, res.output
    assert seen == ["Open a release PR for $ARGUMENTS with the changelog entry.\n"]
    text = (shop / ".claude" / "commands" / "release-pr.md").read_text()
    assert "\nOpen the release PR for $ARGUMENTS.\n\nAsk me before pushing the tag.\n" in text
    assert states(tmp_path)["request:release-pr"] == "edited"


def test_undo_keeps_a_save_that_landed_right_after_learn_wrote(
        shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor saving between learn's rename and its journal row: the journal holds the
    hash of what learn wrote, so the undo sees the file changed since and refuses (it
    once hashed the file read again, took the save for learn's text, and put the
    backup over it)."""
    import learn.commands.apply_writes as writes

    real = writes.write_plan

    def then_a_save(plan, **kw):  # type: ignore[no-untyped-def]
        out = real(plan, **kw)
        if plan.path.name == "CLAUDE.md":
            with plan.path.open("a") as fh:
                fh.write("- Typed while learn was writing.\n")
        return out

    monkeypatch.setattr(writes, "write_plan", then_a_save)
    assert apply(shop, "--yes", "--only", "directive:use-bun").exit_code == 0
    monkeypatch.setattr(writes, "write_plan", real)
    saved = (shop / "CLAUDE.md").read_text()
    assert "Use bun" in saved and "Typed while learn was writing." in saved
    res = apply(shop, "--undo", "--yes")
    assert res.exit_code == 1 and "changed since learn wrote it" in res.output, res.output
    assert (shop / "CLAUDE.md").read_text() == saved
