"""A rule an interrupted apply held is recorded once an apply leaves it as it is.

An apply killed after CLAUDE.md, before AGENTS.md, holds its rules pending until every
file is written (learn.commands.apply_recover). When the next apply plans no missing file
(`--agent claude`, the file declined at the prompt, its words already there by hand),
nothing was written for the rule, its held decision was never recorded: pending for good,
every apply said "finishing an interrupted `learn apply`" and finished nothing (an audit
of 2026-12). Now the held decision is recorded with the files that hold the rule, and
"finishing" is said only when a missing file is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_apply_interrupted_batch import (
    BUN,
    MINE,
    RELEASE,
    RULES,
    STOPS,
    files,
    learn,
    states,
    stopped,
    world,
)

from learn.report.edits import has_marker

KILLED = "SIGKILL after the first file is settled"


def killed(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Claude Code + Codex world, its apply killed after CLAUDE.md."""
    shop = world(root, monkeypatch)
    patch, code = STOPS[KILLED]
    stopped(shop, patch, code, "--yes")
    assert files(shop)["CLAUDE.md"] != MINE and not (shop / "AGENTS.md").exists()
    return shop


def test_an_apply_for_claude_only_records_the_rules_its_file_already_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = killed(tmp_path / "w", monkeypatch)
    res = learn(shop, "--agent", "claude", "--yes")
    assert res.exit_code == 0, res.output
    assert "finishing" not in res.output, res.output  # nothing of the rules is written
    for key in (BUN, RULES):
        assert f"{key}: recorded as applied in {shop / 'CLAUDE.md'}" in res.output
    # The defect: both stayed pending, with no applied_rules row for CLAUDE.md.
    now = states(shop)
    assert now[BUN] == now[RULES] == now[RELEASE] == "applied"
    assert (BUN, "accepted", "CLAUDE.md", True) in now["applied"]
    assert (RULES, "accepted", "CLAUDE.md", True) in now["applied"]
    assert not (shop / "AGENTS.md").exists()
    again = learn(shop, "--agent", "claude", "--yes")
    assert "interrupted" not in again.output, again.output

    # Undo reaches the stopped apply as before: its CLAUDE.md back, its rules pending.
    assert learn(shop, "--undo", "--yes").exit_code == 0  # the command file
    assert learn(shop, "--undo", "--yes").exit_code == 0
    assert files(shop) == {"CLAUDE.md": MINE}
    now = states(shop)
    assert now[BUN] == now[RULES] == "pending" and now["applied"] == []


def test_only_one_key_records_it_and_says_how_to_finish_the_other_in_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = killed(tmp_path / "w", monkeypatch)
    res = learn(shop, "--only", BUN, "--agent", "claude", "--yes")
    assert res.exit_code == 0, res.output
    assert "finishing" not in res.output
    # "left X is in Y" was the old wording.
    assert (f"left {RULES} in {shop / 'CLAUDE.md'}, not yet in {shop / 'AGENTS.md'}; "
            f"`learn apply --only {RULES}` finishes it") in res.output, res.output
    now = states(shop)
    assert now[BUN] == "applied" and now[RULES] == "pending"
    # What the note says finishes it does: AGENTS.md written, the rule applied with both.
    done = learn(shop, "--only", RULES, "--yes")
    assert done.exit_code == 0, done.output
    assert "finishing an interrupted `learn apply`" in done.output
    assert has_marker((shop / "AGENTS.md").read_text(), RULES)
    now = states(shop)
    assert now[RULES] == "applied"
    assert {a[2] for a in now["applied"] if a[0] == RULES} == {"CLAUDE.md", "AGENTS.md"}


def test_agents_md_declined_at_the_prompt_releases_the_held_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = killed(tmp_path / "w", monkeypatch)
    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    from learn.commands.apply import command

    # No to AGENTS.md, yes to the command file.
    res = CliRunner().invoke(command, ["--project", str(shop)], input="n\ny\n")
    assert res.exit_code == 0, res.output
    assert not (shop / "AGENTS.md").exists()
    now = states(shop)
    assert now[BUN] == now[RULES] == now[RELEASE] == "applied", res.output
    assert {a[2] for a in now["applied"] if a[0] in (BUN, RULES)} == {"CLAUDE.md"}


def test_words_already_in_agents_md_by_hand_release_the_held_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = killed(tmp_path / "w", monkeypatch)
    (shop / "AGENTS.md").write_text("# shop\n\n- Use bun, not npm.\n- Leave generated files "
                                    "alone.\n")
    res = learn(shop, "--yes")
    assert res.exit_code == 0, res.output
    assert "finishing" not in res.output and "already in AGENTS.md" in res.output
    now = states(shop)
    assert now[BUN] == now[RULES] == "applied"
    assert {a[2] for a in now["applied"] if a[0] in (BUN, RULES)} == {"CLAUDE.md"}


def test_a_dry_run_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = killed(tmp_path / "w", monkeypatch)
    res = learn(shop, "--agent", "claude", "--dry-run")
    assert res.exit_code == 0, res.output
    now = states(shop)
    assert now[BUN] == now[RULES] == "pending"
