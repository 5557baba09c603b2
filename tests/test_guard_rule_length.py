"""A rule line learn writes is at most MAX_RULE_CHARS (learn.report.edits).

Nothing bounded it: one model-written summary of 40 KB went into CLAUDE.md as one
line, past Codex's 32 KiB project_doc_max_bytes and into every session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.apply import edit_for, plan_all
from learn.report.edits import MAX_RULE_CHARS, RuleEdit, plan_text
from learn.report.targets import TargetChoice, TargetError

LONGEST_GOLD = ("When pytest cannot import shop_api, install the package in editable mode "
                "with `pip install -e .`.")


def _proposal(project: Path, rule: str) -> Proposal:
    q = (Quote("s1", "use bun", "2026-03-10T00:00:00+00:00", str(project)),
         Quote("s2", "bun please", "2026-03-11T00:00:00+00:00", str(project)))
    return Proposal("directive", "use-bun", q[0].text, 2, 2, q[1].at, q,
                    verdict=Verdict(True, rule, "tooling", "project", 0.9))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("# shop\n\n- Keep PRs small.\n")
    return root


def test_a_multi_kilobyte_rule_is_refused_with_the_reason(project: Path) -> None:
    rule = "Use bun for installs " + "and always use bun " * 2_000
    with pytest.raises(TargetError, match=f"over the {MAX_RULE_CHARS} of one rule line"):
        edit_for(_proposal(project, rule), TargetChoice(project_dir=project, follow_quotes=True))


def test_the_longest_real_rule_is_written_whole(project: Path) -> None:
    assert len(LONGEST_GOLD) < MAX_RULE_CHARS // 2
    edit = edit_for(_proposal(project, LONGEST_GOLD),
                    TargetChoice(project_dir=project, follow_quotes=True))
    [plan] = plan_all([edit])
    assert f"- {LONGEST_GOLD} <!--" in plan.new_text


def test_the_writer_itself_never_writes_an_over_long_line(tmp_path: Path) -> None:
    """An edit made elsewhere (another agent's copy, a surface's line) meets the same
    cap where every rule line is written."""
    path = tmp_path / "CLAUDE.md"
    long = RuleEdit(key="directive:long", text="x " * 5_000, target=path)
    short = RuleEdit(key="directive:short", text="Use bun.", target=path)
    new, applied, notes = plan_text("# shop\n", [long, short], path)
    assert applied == [short] and "x x x" not in new and "- Use bun. <!--" in new
    assert any("directive:long" in n and "10,000 characters" in n for n in notes)
    assert max(len(line) for line in new.splitlines()) < MAX_RULE_CHARS + 200
