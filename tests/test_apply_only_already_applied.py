"""`learn apply --only KEY` for a proposal already applied: one line saying so (where, when,
how to see and take it back), exit 0 as the command's other "nothing to do", no write.

Before, with nothing else pending the person read "not a proposal of <project>: KEY; learn
reads no session of <project>" and exit 2, about the key they had just applied; with other
proposals pending, "already in CLAUDE.md, not added again", with no word of when or how to
undo it (learn.commands.apply_applied)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.records.proposal import Proposal, Quote, Verdict

MINE = "# shop\n\n- Keep PRs small.\n"
BUN = "directive:use-bun"
TABS = "directive:use-tabs"


def _proposal(project: Path, label: str, said: str, rule: str) -> Proposal:
    quotes = tuple(Quote(s, said, f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    return Proposal("directive", label, said, 2, 2, quotes[1].at, quotes,
                    verdict=Verdict(True, rule, "tooling", "project", 0.9))


def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *labels: str) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(MINE)
    made = {"use-bun": _proposal(project, "use-bun", "use bun not npm", "Use bun, not npm."),
            "use-tabs": _proposal(project, "use-tabs", "tabs please", "Indent with tabs.")}
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([made[label] for label in labels], run_id=None,
                                   fallback_project=str(project))
    return project


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One pending proposal, nothing else in the store."""
    return _store(tmp_path, monkeypatch, "use-bun")


@pytest.fixture
def busy_shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two pending proposals."""
    return _store(tmp_path, monkeypatch, "use-bun", "use-tabs")


def apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    return CliRunner().invoke(command, ["--project", str(project), *args])


def _backups(tmp_path: Path) -> set[Path]:
    return set((tmp_path / "data" / "backups").glob("*"))


def _said(res: Result, key: str) -> str:
    [line] = [x for x in res.output.splitlines() if x.startswith(f"already applied: {key}")]
    return line


@pytest.mark.parametrize("how", [(), ("--yes",), ("--dry-run",)])
def test_only_an_applied_key_says_where_and_when_and_writes_nothing(
        shop: Path, tmp_path: Path, how: tuple[str, ...]) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    written = (shop / "CLAUDE.md").read_bytes()
    backups = _backups(tmp_path)
    again = apply(shop, *how, "--only", BUN)
    # Exit 0, as `nothing to apply`; not the usage error "not a proposal of" (exit 2).
    assert again.exit_code == 0, again.output
    assert "not a proposal" not in again.output and "Usage:" not in again.output
    line = _said(again, BUN)
    assert f"in {shop / 'CLAUDE.md'} on " in line
    assert re.search(r" on \d{4}-\d\d-\d\d \d\d:\d\d UTC", line), line
    assert f"`learn apply --prune {BUN}`" in line and "`learn apply --undo`" in line
    assert "`learn digest --all`" in line
    # No diff, no write, no backup.
    assert "+++" not in again.output and "wrote " not in again.output
    assert (shop / "CLAUDE.md").read_bytes() == written
    assert _backups(tmp_path) == backups


def test_an_applied_key_named_by_its_label_is_said_the_same(shop: Path) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    again = apply(shop, "--yes", "--only", "use-bun")
    assert again.exit_code == 0, again.output
    assert _said(again, BUN)


def test_with_other_proposals_pending_the_applied_one_is_said_and_the_others_written(
        busy_shop: Path, tmp_path: Path) -> None:
    assert apply(busy_shop, "--yes", "--only", BUN).exit_code == 0
    both = apply(busy_shop, "--yes", "--only", BUN, "--only", TABS)
    assert both.exit_code == 0, both.output
    assert _said(both, BUN)
    # Not the planner's bare note, which said neither when nor how to take it back.
    assert "not added again" not in both.output
    text = (busy_shop / "CLAUDE.md").read_text()
    assert text.count(f"<!-- learn {BUN},") == 1
    assert f"<!-- learn {TABS}," in text
    # Only the pending one was planned: one file written, with TABS alone added.
    assert both.output.count("wrote ") == 1


def test_an_applied_rule_pruned_from_its_file_is_planned_again(shop: Path) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    assert apply(shop, "--yes", "--prune", BUN).exit_code == 0
    assert f"<!-- learn {BUN}," not in (shop / "CLAUDE.md").read_text()
    again = apply(shop, "--yes", "--only", BUN)
    assert again.exit_code == 0, again.output
    assert "already applied" not in again.output
    assert "no longer holds it" in again.output
    assert f"<!-- learn {BUN}," in (shop / "CLAUDE.md").read_text()


def test_an_undone_apply_is_pending_again_and_written_by_only(shop: Path) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    assert apply(shop, "--undo", "--yes").exit_code == 0
    assert (shop / "CLAUDE.md").read_text() == MINE
    again = apply(shop, "--yes", "--only", BUN)
    assert again.exit_code == 0, again.output
    assert "already applied" not in again.output
    assert f"<!-- learn {BUN}," in (shop / "CLAUDE.md").read_text()


def test_a_key_that_names_nothing_is_still_a_usage_error(shop: Path) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    res = apply(shop, "--yes", "--only", "directive:nope")
    assert res.exit_code == 2 and "not a proposal of" in res.output


@pytest.mark.parametrize("place", [("--target", "agents"), ("--agents",), ("--file", "AGENTS.md")])
def test_with_a_place_named_an_applied_rule_is_written_there_too(
        shop: Path, monkeypatch: pytest.MonkeyPatch, place: tuple[str, ...]) -> None:
    assert apply(shop, "--yes", "--only", BUN).exit_code == 0
    monkeypatch.chdir(shop)  # `--file AGENTS.md` as typed, relative
    there = apply(shop, "--yes", "--only", BUN, *place)
    assert there.exit_code == 0, there.output
    assert "already applied" not in there.output
    assert f"<!-- learn {BUN}," in (shop / "AGENTS.md").read_text()
    assert (shop / "CLAUDE.md").read_text().count(f"<!-- learn {BUN},") == 1


def test_a_restated_rule_names_its_file_once() -> None:
    # Applying a restated rule records two rows of one file (the line the person wrote,
    # the rewrite accepted): "in CLAUDE.md on ...; in CLAUDE.md on ..." (upgrade audit).
    from learn.commands.apply_applied import already_applied
    from learn.store.proposals import AppliedRule

    def row(i: int, decision: str, at: str) -> AppliedRule:
        return AppliedRule(id=i, project="/p", key="directive:use-bun", canonical_key=None,
                           decision=decision, form="rule", rule_text="Use bun.",
                           target_file="/p/CLAUDE.md", backup_file=None, sessions=3,
                           last_seen=None, applied_at=at)

    line = already_applied("directive:use-bun", [row(1, "written", "2026-12-05T10:00:00+00:00"),
                                                 row(2, "accepted", "2026-12-05T10:01:00+00:00")])
    assert line.count("/p/CLAUDE.md") == 1 and "10:01" in line, line
