"""Keeping files healthy: contradictions as edits, size budgets per target, pruning."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from _reduce_helpers import ScriptedBackend, TopicEmbedder

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.coverage import check_coverage
from learn.reduce.rules import RuleCorpus, RuleLine
from learn.report.apply import edit_for, plan_all
from learn.report.digest import render_digest_markdown
from learn.report.health import (
    CODEX_PROJECT_DOC_BYTES,
    budget_line,
    over_budget,
    stale_rules,
    without_rules,
)
from learn.report.targets import TargetChoice


def test_a_contradiction_is_an_edit_of_the_rule_with_both_sides_shown(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    claude_md = project / "CLAUDE.md"
    claude_md.write_text("# Tools\n- Use npm for installs.\n- Keep commits small.\n")
    corpus = RuleCorpus(rules=(RuleLine(str(claude_md), ("Tools",), "Use npm for installs."),))
    quotes = (Quote("s2", "use pnpm now, not npm", "2026-03-20T00:00:00+00:00", str(project)),
              Quote("s1", "pnpm please, we moved off npm", "2026-03-18T00:00:00+00:00",
                    str(project)))
    p = Proposal("directive", "use-pnpm", quotes[0].text, 2, 2, quotes[0].at, quotes,
                 verdict=Verdict(True, "Use pnpm for installs, not npm.", "tools", "project", 0.9))
    backend = ScriptedBackend(lambda r: {"verdicts": [{"id": 0, "verdict": "contradicts",
                                                       "rule_index": 0}]})
    [out] = check_coverage([p], corpus, backend=backend, model="m",
                           embedder=TopicEmbedder()).proposals
    assert out.status == "contradicts" and out.existing_rule == "Use npm for installs."
    assert "contradicts" in str(backend.requests[0].tool.input_schema)
    md = render_digest_markdown(RunResult(proposals=(out,), funnel=Funnel(), usage=RunUsage()))
    assert 'contradicts your rule in' in md and '"Use npm for installs."' in md
    assert '"use pnpm now, not npm" (2026-03-20)' in md and "The latest wins" in md
    edit = edit_for(out, TargetChoice(project_dir=project, follow_quotes=True))
    [plan] = plan_all([edit])
    assert "- Use npm for installs." in plan.diff() and "-- Use npm" in plan.diff()
    assert "Use pnpm for installs, not npm." in plan.new_text
    assert "Use npm for installs." not in plan.new_text
    assert "Keep commits small." in plan.new_text


def test_budget_lines_name_each_targets_limit() -> None:
    text = "- a rule\n" * 12
    assert budget_line(Path("CLAUDE.md"), text, max_lines=200, max_bytes=25_000) == \
        f"CLAUDE.md: 12 of ~200 lines, {len(text):,} of 25,000 bytes"
    line = budget_line(Path("AGENTS.md"), text, max_lines=200, max_bytes=25_000)
    assert "of Codex's 32 KiB project-doc limit" in line
    assert over_budget(Path("CLAUDE.md"), "x\n" * 201, max_lines=200, max_bytes=10**6)
    assert not over_budget(Path("AGENTS.md"), "x\n" * 500, max_lines=200, max_bytes=10**6)
    assert over_budget(Path("AGENTS.md"), "x" * (CODEX_PROJECT_DOC_BYTES + 1), max_lines=200,
                       max_bytes=10**6)


FILE = """# Mine
- my own rule, no marker
- Use bun. <!-- learn directive:use-bun, 3 sessions, last 2026-01-02 -->
- Small PRs. <!-- learn directive:small-prs, 2 sessions, last 2026-01-05 -->
- Tabs. <!-- learn directive:tabs, 2 sessions, last 2026-05-30 -->
"""


def test_stale_rules_and_pruning() -> None:
    now = datetime(2026, 6, 1, tzinfo=UTC)
    stale = stale_rules(FILE, now=now, last_said={"directive:small-prs": "2026-05-01T00:00:00+00:00"})
    assert [(s.key, s.last) for s in stale] == [("directive:use-bun", "2026-01-02")]
    pruned = without_rules(FILE, {"directive:use-bun"})
    assert "Use bun." not in pruned and "my own rule, no marker" in pruned and "Tabs." in pruned
    assert pruned.count("\n") == FILE.count("\n") - 1


@pytest.mark.parametrize("days", [30, 200])
def test_prune_window(days: int) -> None:
    now = datetime(2026, 6, 1, tzinfo=UTC)
    got = {s.key for s in stale_rules(FILE, now=now, days=days)}
    assert got == ({"directive:use-bun", "directive:small-prs"} if days == 30 else set())
