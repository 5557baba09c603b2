"""A check offer applied where a check of the same id is already in place never replaces
it: the person's own rule (`learn check add --id no-force-push --enforce`) stays enforced
with their words, and the offer goes in beside it under a free id, record-only, saying
so. Before, `learn apply` of `directive:no-force-push-check` replaced their enforced rule
with a record-only one, their reason with the rule's, and said nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from learn.cli import cli
from learn.guard.files import rules_file
from learn.records.proposal import Proposal, Quote
from learn.reduce.outcomes import RuleOutcome
from learn.report.check_offer import check_rule_of, offer_check, offered_in

RULE = "Never force push; the main branch is shared."


def _offer(project: Path) -> Proposal:
    qs = (Quote("s1", "I said never force push", "2026-03-12T00:00:00+00:00", str(project)),)
    o = RuleOutcome("directive:no-force-push", RULE, str(project / "CLAUDE.md"),
                    "2026-03-10T00:00:00+00:00", "apply", 4, 2, 6, 1, qs, (), "ignored")
    offer = offer_check(o)
    assert offer is not None
    return offer


def _rules(project: Path) -> dict[str, dict[str, object]]:
    return {r["id"]: r for r in json.loads(rules_file(str(project)).read_text())["rules"]}


def test_applying_an_offer_keeps_the_persons_enforced_rule_of_the_same_id(
        tmp_path: Path) -> None:
    from learn.store import open_store
    from learn.store.runs import default_store_path

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    mine = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "--force", "--id",
                                    "no-force-push", "--reason", "mine, enforced", "--enforce",
                                    "--yes", "--project", str(project)])
    assert mine.exit_code == 0, mine.output
    offer = _offer(project)
    with open_store(default_store_path()) as store:
        store.proposals.record([offer], run_id=None, fallback_project=str(project))
    done = CliRunner().invoke(cli, ["apply", "--only", offer.key, "--yes", "--project",
                                    str(project)])
    assert done.exit_code == 0, done.output
    rules = _rules(project)
    assert (rules["no-force-push"]["mode"], rules["no-force-push"]["reason"]) == (
        "enforce", "mine, enforced")
    assert rules["no-force-push-2"]["mode"] == "record"
    assert rules["no-force-push-2"]["key"] == "directive:no-force-push"
    assert "your check `no-force-push` (enforced, \"mine, enforced\") stays as it is" \
        in done.output
    assert "learn check enforce no-force-push-2" in done.output


def test_an_offer_taking_the_place_of_learns_own_earlier_check_keeps_it_enforced(
        tmp_path: Path) -> None:
    offer = _offer(tmp_path)
    earlier = check_rule_of(offer)._replace(mode="enforce", enforced_at="2026-03-20T00:00:00")
    rule, note = offered_in([earlier], check_rule_of(offer))
    assert note is None
    assert (rule.id, rule.mode, rule.enforced_at) == (earlier.id, "enforce", earlier.enforced_at)


def test_an_offer_with_a_free_id_goes_in_as_it_is(tmp_path: Path) -> None:
    offer = _offer(tmp_path)
    assert offered_in([], check_rule_of(offer)) == (check_rule_of(offer), None)
