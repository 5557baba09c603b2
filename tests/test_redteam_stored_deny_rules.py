"""A permission proposal read back from the store writes only the deny rules learn makes.

A stored proposal is data from whoever can write the store (a shared database, a hand
edit, another program): tests/test_apply_unsafe_keys.py holds its label to one learn
makes. Its deny rules went into `.claude/settings.json` as they were: `Bash(*)` and
`mcp__github__*` refused far more than anyone forbade, and a rule Claude Code cannot
read (`Bash(rm -rf /)*`, `Bash(x`) made Claude Code 2.0 skip the whole file, the
person's own deny rules with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.report.escalation import Enforcement, is_deny_rule

MINE = {"permissions": {"deny": ["Read(.env)"]}}


def _apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: tuple[str, ...]) -> tuple[
        str, dict[str, object]]:
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps(MINE))
    quotes = tuple(Quote(s, "never force push", f"2026-03-2{i}T00:00:00+00:00", str(project))
                   for i, s in enumerate(("a", "b")))
    p = Proposal("directive", "no-force-push-enforced", "Never force push.", 2, 2,
                 "2026-03-21T00:00:00+00:00", quotes,
                 verdict=Verdict(True, "Enforce it", "enforcement", "project", 1.0),
                 surface="permission", surface_rules=rules)
    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([p], run_id=None, fallback_project=str(project))
    res = CliRunner().invoke(command, ["--project", str(project), "--yes"])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.output, json.loads(settings.read_text())


@pytest.mark.parametrize("odd", ["Bash(*)", "mcp__github__*", "Bash(rm -rf /)*", "Bash(x",
                                 "Bash", "Read(~/.ssh/**)", "Bash(curl:*) ", "Edit(../../**)"])
def test_a_stored_deny_rule_learn_does_not_make_is_not_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, odd: str) -> None:
    out, settings = _apply(tmp_path, monkeypatch, ("Bash(git push --force:*)", odd))
    assert settings == MINE, out
    assert "is not a deny rule learn makes" in out


def test_the_deny_rules_learn_makes_are_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = tuple(Enforcement(commands=(("git", "push", "--force"),),
                              paths=("src/generated", "db/schema.sql")).claude_rules())
    assert all(is_deny_rule(r) for r in rules)
    _, settings = _apply(tmp_path, monkeypatch, rules)
    assert settings == {"permissions": {"deny": ["Read(.env)", *rules]}}
