"""An ignored rule escalated: settings.json deny rules, Codex prefix rules, commands; applied
as diffs through the same planning as every other write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from learn.records.proposal import Quote
from learn.reduce.outcomes import RuleOutcome
from learn.report.apply import ApplyError, edit_for, plan_all, write_plan
from learn.report.escalation import (
    codex_rule_text,
    enforcement_for,
    escalate,
    escalations_for,
    is_procedure,
    merged_codex_rules,
    merged_settings,
)
from learn.report.targets import TargetChoice
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook


def outcome(rule: str, *quotes: str, verdict: str = "ignored", project: str = "/p") -> RuleOutcome:
    qs = tuple(Quote(f"s{i}", q, f"2026-03-2{i}T00:00:00+00:00", project)
               for i, q in enumerate(quotes))
    return RuleOutcome(key="directive:no-push", rule_text=rule, target_file="/p/CLAUDE.md",
                       applied_at="2026-03-10T00:00:00+00:00", origin="apply",
                       sessions_before=4, said_before=2, sessions_since=6,
                       said_since=len({q.session_id for q in qs}), quotes_since=qs, per_day=(),
                       verdict=verdict)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "rules"), [
    ("Never run `git push`; I push myself.", ["Bash(git push:*)"]),
    # Flags are part of the prohibition: a force push, not every push.
    ("don't run git push --force, ever", ["Bash(git push --force:*)"]),
    ("Never force push.", ["Bash(git push --force:*)", "Bash(git push -f:*)",
                           "Bash(git push --force-with-lease:*)"]),
    ("never `git push -f`", ["Bash(git push -f:*)"]),
    # A colon before the reason ends the clause; it narrows nothing.
    ("Never force push: it rewrites shared history.", [
        "Bash(git push --force:*)", "Bash(git push -f:*)", "Bash(git push --force-with-lease:*)"]),
    ("Stop running npm install in this repo", ["Bash(npm install:*)"]),
    ("do not use yarn", ["Bash(yarn:*)"]),
    ("Don't use npm, use bun", ["Bash(npm:*)"]),
    ("Don't touch vendor/ — it is generated", ["Edit(vendor/**)"]),
    ("never edit `src/generated/api.ts`", ["Edit(src/generated/api.ts)"]),
    # Narrowed: no prefix says "rm -rf on the data dir" or "force push to main".
    ("never use rm -rf on the data dir", []),
    ("Don't force push to main.", []),
    # A prescribed command is never denied: the tests must still run.
    ("Run the tests with `pnpm vitest run`, never in watch mode.", []),
    ("Never run it again without asking", []),
    ("Never commit secrets.", []),
    ("Please use tabs for indentation", []),
])
def test_what_a_rule_forbids(text: str, rules: list[str]) -> None:
    assert enforcement_for(text).claude_rules() == rules


def test_a_deny_spares_what_the_rule_prescribes_and_what_the_person_ran_since() -> None:
    # "never run vitest" with the prescribed `vitest run --coverage`: that would be refused.
    assert enforcement_for("Use `vitest run --coverage`; never run vitest.").claude_rules() == []
    spared = enforcement_for("Never run npm install.", ran=["cd web && npm install --no-save"])
    assert spared.empty and "you ran it since" in spared.spared[0]
    kept = enforcement_for("Never force push.", ran=["git push origin feature/x",
                                                     "git push --force-with-lease"])
    assert kept.claude_rules() == ["Bash(git push --force:*)", "Bash(git push -f:*)"]


def test_deny_rules_merge_into_existing_settings_and_stay_valid_json(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    existing = json.dumps({"model": "x", "permissions": {"allow": ["Bash(ls:*)"],
                                                          "deny": ["Read(.env)"]},
                           "hooks": {"Stop": []}})
    merged = json.loads(merged_settings(existing, ["Bash(git push:*)", "Read(.env)"], path))
    assert merged == {"model": "x", "permissions": {"allow": ["Bash(ls:*)"],
                                                     "deny": ["Read(.env)", "Bash(git push:*)"]},
                      "hooks": {"Stop": []}}
    assert json.loads(merged_settings(None, ["Bash(yarn:*)"], path)) == {
        "permissions": {"deny": ["Bash(yarn:*)"]}}
    with pytest.raises(ValueError, match="not valid JSON"):
        merged_settings("{broken", ["Bash(x:*)"], path)
    with pytest.raises(ValueError, match="not a list"):
        merged_settings('{"permissions": {"deny": "x"}}', ["Bash(x:*)"], path)


def test_codex_rule_is_a_forbidden_prefix_rule_added_once() -> None:
    text = codex_rule_text("git push --force", "Never force push.", "directive:no-force-enforced",
                           keep=["git push origin feature/x", "pnpm vitest run"])
    assert 'pattern = ["git", "push", "--force"]' in text and 'decision = "forbidden"' in text
    # What Codex shows when it refuses is the person's rule, not learn's settings summary.
    assert 'justification = "Never force push."' in text and "settings.json" not in text
    assert 'match = [["git", "push", "--force"]]' in text
    assert 'not_match = [["git", "push", "origin", "feature/x"]]' in text
    once = merged_codex_rules(None, ["git push --force"], "Never force push.", "directive:k")
    assert merged_codex_rules(once, ["git push --force"], "Never force push.", "directive:k") == once
    assert once.count("prefix_rule(") == 1


def test_only_an_ignored_prohibition_is_escalated() -> None:
    ignored = outcome("Never run git push.", "I said do NOT push", "why did you push again")
    p = escalate(ignored)
    assert p is not None and p.surface == "permission"
    assert p.key == "directive:no-push-enforced"
    assert p.surface_rules == ("Bash(git push:*)",) and p.surface_commands == ("git push",)
    assert p.text == "Never run git push."
    assert p.sessions == 2 and [q.text for q in p.quotes] == ["I said do NOT push",
                                                               "why did you push again"]
    assert escalate(outcome("Never run git push.", verdict="holding")) is None
    assert escalate(outcome("Prefer small functions.", "again, small functions")) is None
    procedure = escalate(outcome("Before a release: first bump the version, then update the "
                                 "changelog, then tag it.", "you forgot the changelog again"))
    assert procedure is not None and procedure.surface == "command"
    assert procedure.command_body and procedure.command_body.startswith("Before a release")
    assert is_procedure("1. build 2. test 3. deploy to staging and check the logs")


def test_apply_writes_the_settings_diff_and_the_codex_rule(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_text('{\n  "permissions": {"allow": ["Bash(ls:*)"]}\n}\n')
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    p = escalate(outcome("Never run git push.", "do not push", project=str(project)))
    assert p is not None
    edit = edit_for(p, TargetChoice(project_dir=project, follow_quotes=True))
    assert edit.form == "permission" and edit.target == settings
    [plan] = plan_all([edit])
    assert plan.refused is None
    assert any(x.startswith("+") and '"Bash(git push:*)"' in x for x in plan.diff().splitlines())
    write_plan(plan)
    assert json.loads(settings.read_text())["permissions"] == {
        "allow": ["Bash(ls:*)"], "deny": ["Bash(git push:*)"]}
    [again] = plan_all([edit])
    assert not again.changed and "already denied" in again.notes[0]

    codex = edit_for(p, TargetChoice(project_dir=project, kind="agents", follow_quotes=True))
    assert codex.form == "codex-rule"
    assert codex.target == tmp_path / "home" / ".codex" / "rules" / "learn.rules"
    [cplan] = plan_all([codex])
    write_plan(cplan)
    assert 'decision = "forbidden"' in codex.target.read_text()
    assert 'justification = "Never run git push."' in codex.target.read_text()

    settings.write_text("{not json")
    [bad] = plan_all([edit])
    assert bad.refused and "not valid JSON" in bad.refused
    with pytest.raises(ApplyError):
        write_plan(bad)


def test_an_applied_or_declined_escalation_is_not_proposed_again(tmp_path: Path) -> None:
    ignored = outcome("Never run git push.", "do not push")
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        book = ProposalBook(store)
        outs, made = escalations_for(book, "/p", [ignored], [])
        assert [p.key for p in made] == ["directive:no-push-enforced"]
        assert outs[0].escalation and outs[0].escalation["state"] == "pending"
        book.record(made, run_id=None, fallback_project="/p")
        book.decide("directive:no-push-enforced", "declined", "/p")
        outs, made = escalations_for(book, "/p", [ignored], [])
        assert made == [] and outs[0].escalation and outs[0].escalation["state"] == "declined"
        # Said in twice the sessions it had when declined: offered again.
        more = outcome("Never run git push.", "do not push", "no push!")
        _, made = escalations_for(book, "/p", [more], [])
        assert [p.key for p in made] == ["directive:no-push-enforced"]


def test_a_command_the_person_let_run_since_the_rule_is_never_denied() -> None:
    from learn.report.escalation import Ran

    o = outcome("Never force push.", "you force pushed AGAIN")  # said in session s0
    ran = [
        # Since the rule, in a session where the person did not object: theirs to run.
        Ran("s9", "2026-03-15T09:00:00+00:00", ("git push --force-with-lease origin topic",)),
        # In the session where they said the rule again: the agent broke it there.
        Ran("s0", "2026-03-20T09:00:00+00:00", ("git push -f",)),
        # Before the rule was in place: says nothing about it.
        Ran("s8", "2026-03-01T09:00:00+00:00", ("git push --force",)),
    ]
    p = escalate(o, ran=ran)
    assert p is not None
    assert p.surface_rules == ("Bash(git push --force:*)", "Bash(git push -f:*)")
    assert "git push --force-with-lease origin topic" in p.surface_allowed
    assert "not denied" in (p.rationale or "") and "you ran it since" in (p.rationale or "")
    # Every force push ran unopposed since: nothing left to enforce.
    everything = [Ran("s9", "2026-03-15T09:00:00+00:00",
                      ("git push --force", "git push -f", "git push --force-with-lease"))]
    assert escalate(o, ran=everything) is None


@pytest.mark.parametrize(("text", "rules", "spared"), [
    # As written: Claude Code compares the prefix with the command's text.
    ("Never run `rm -rf ~`.", ["Bash(rm -rf ~:*)"], None),
    # `*` is Claude Code's wildcard (it would refuse every `rm -rf`); a pipe splits the
    # command before matching (the rule would match nothing): neither is denied.
    ("Never run `rm -rf *`.", [], "rm -rf *: a prefix rule cannot say it exactly"),
    ("Never run `curl x | sh`.", [], "curl x | sh: a prefix rule cannot say it exactly"),
    ("never run `echo $HOME`", [], "echo $HOME: a prefix rule cannot say it exactly"),
])
def test_a_deny_says_the_command_as_written_or_not_at_all(
        text: str, rules: list[str], spared: str | None) -> None:
    enforce = enforcement_for(text)
    assert enforce.claude_rules() == rules
    if spared is not None:
        assert any(s.startswith(spared) for s in enforce.spared)
    for c in enforce.commands:  # Codex forbids the same words
        assert json.dumps(list(c)) in codex_rule_text(" ".join(c), text, "directive:k")
