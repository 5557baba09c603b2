"""`learn apply` end to end on a real store: an escalation becomes a settings.json diff, the
preview states the file's budget, a stale learn rule in an over-budget file is offered for
pruning, and `--prune KEY` removes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.outcomes import RuleOutcome
from learn.report.escalation import escalate


def test_apply_escalation_budget_and_prune(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    filler = "".join(f"- house rule {i}\n" for i in range(205))
    stale = "- Use bun. <!-- learn directive:use-bun, 3 sessions, last 2025-01-02 -->\n"
    (project / "CLAUDE.md").write_text(filler + stale)
    quotes = tuple(Quote(s, "do not push", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    enforced = escalate(RuleOutcome("directive:no-push", "Never run git push.",
                                    str(project / "CLAUDE.md"), "2026-03-10T00:00:00+00:00",
                                    "apply", 3, 2, 6, 2, quotes, (), "ignored"))
    assert enforced is not None
    plain = Proposal("directive", "small-prs", "keep PRs small", 2, 2, quotes[0].at, quotes,
                     verdict=Verdict(True, "Keep PRs small.", "workflow", "project", 0.9))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        book = ProposalBook(store)
        book.record([enforced, plain], run_id=None, fallback_project=str(project))
        book.record_applied(project=str(project), proposal=plain, decision="accepted",
                            form="rule", rule_text="Use bun.", target_file=str(project / "CLAUDE.md"),
                            backup_file=None, at="2025-01-02T00:00:00+00:00")
        book.store.execute("UPDATE applied_rules SET key = 'directive:use-bun'")

    res = CliRunner().invoke(command, ["--yes", "--project", str(project)])
    assert res.exit_code == 0, res.output
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings == {"permissions": {"deny": ["Bash(git push:*)"]}}
    assert "size: CLAUDE.md: 213 of ~200 lines" in res.output
    assert "prune? `directive:use-bun` not said since 2025-01-02" in res.output
    assert "prune? `directive:small-prs`" not in res.output  # just added
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        forms = {a.key: a.form for a in ProposalBook(store).applied()}
    assert forms["directive:no-push-enforced"] == "permission"
    assert forms["directive:small-prs"] == "rule"

    res = CliRunner().invoke(command, ["--prune", "directive:use-bun", "--yes",
                                       "--project", str(project)])
    assert res.exit_code == 0, res.output
    text = (project / "CLAUDE.md").read_text()
    assert "Use bun." not in text and "house rule 204" in text and "Keep PRs small." in text
    assert "-- Use bun." in res.output  # shown as a diff first
    res = CliRunner().invoke(command, ["--prune", "directive:nope", "--yes",
                                       "--project", str(project)])
    assert res.exit_code == 1
