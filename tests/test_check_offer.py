"""learn's check offered for an ignored rule about a command with a flag, applied with
`learn apply --only`, and followed in the outcomes ("would have stopped the agent N
times in M sessions")."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.cli import cli
from learn.guard.files import rules_file
from learn.guard.rules import check_line
from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage
from learn.reduce.outcomes import RuleOutcome, Said
from learn.report.check_offer import (
    check_rule_for,
    check_rule_of,
    offer_check,
    with_check_offers,
)
from learn.report.outcomes import outcome_lines
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook

RULE = "Never force push; the main branch is shared."


@pytest.mark.parametrize(("rule", "words"), [
    ("Never run `git push --force`; ask me first.", "`git push` with --force / -f / +*"),
    # Narrowed to a branch or a folder: no prefix says it, the check does with a target.
    ("never force push to main",
     "`git push` with --force / -f / --force-with-lease / +* naming `main`"),
    ("never use rm -rf on the data dir", "`rm` with -rf / -Rf naming `data`"),
    ("never force push to main without asking", None),  # a narrowing the check cannot say
    ("Never force push.", "`git push` with --force / -f / --force-with-lease / +*"),
    ("Don't use `npm install`, use bun.", None),  # no flag: a deny says it exactly
    ("Run the tests with `pnpm vitest run`, never in watch mode.", None),
    ("Never `git commit --no-verify`.", "`git commit` with --no-verify / -n"),
])
def test_a_check_is_offered_for_a_forbidden_command_with_a_flag(rule: str,
                                                                words: str | None) -> None:
    offer = offer_check(dataclasses.replace(_outcome(), rule_text=rule))
    assert (check_rule_of(offer).words() if offer else None) == words


@pytest.mark.parametrize(("line", "stopped"), [
    ("git push origin main --force", True),
    ("git push -f origin HEAD:main", True),
    ("git push origin +main", True),
    ("cd app && git push --force origin refs/heads/main", True),
    ("git push -f origin feature/x", False),  # force pushing a branch was never forbidden
    ("git push origin main", False),
    ("git push -f", False),  # no branch named: the line does not say which (documented)
])
def test_a_check_narrowed_to_a_branch_needs_the_branch_named(line: str, stopped: bool) -> None:
    offer = offer_check(dataclasses.replace(_outcome(), rule_text="Never force push to main."))
    assert offer is not None and offer.surface_commands[0] == "git push"
    assert bool(check_line(line, [check_rule_of(offer)])) is stopped


def test_a_check_narrowed_to_a_folder_needs_the_folder_named() -> None:
    offer = offer_check(dataclasses.replace(_outcome(),
                                            rule_text="never use rm -rf on the data dir"))
    assert offer is not None
    rule = check_rule_of(offer)
    hit = {line for line in ("rm -rf data", "rm -fr ./data/cache", "rm -rf /srv/shop/data",
                             "rm -rf build", "rm -r data", "rm -rf database")
           if check_line(line, [rule])}
    assert hit == {"rm -rf data", "rm -fr ./data/cache", "rm -rf /srv/shop/data"}


def test_no_check_stops_what_the_person_let_run_since() -> None:
    from learn.report.escalation import Ran

    o = dataclasses.replace(_outcome(), rule_text="Never run `git push -f`.")
    assert offer_check(o) is not None
    ran = [Ran("other", "2026-03-15T00:00:00+00:00", ("git push --force origin main",))]
    assert offer_check(o, ran=ran) is None


def test_a_check_holds_every_spelling_of_the_flag_and_a_bare_command_gets_none() -> None:
    rule = check_rule_for([("git", "push", "-f")], RULE, "no-force-push", "directive:x")
    assert rule is not None
    assert (rule.program, rule.subcommand, rule.flags, rule.arguments) == (
        "git", "push", ("--force", "-f"), ("+*",))
    assert check_rule_for([("npm", "install")], RULE, "r", None) is None
    rm = check_rule_for([("rm", "-rf", "build")], RULE, "r", None)
    assert rm is not None and rm.subcommand is None and rm.flags == ("-rf", "-Rf")
    # A cluster is its letters together: -f alone (or -r alone) is another command.
    spelled = {line: bool(check_line(line, [rm])) for line in (
        "rm -rf build", "rm -fr build", "rm -r -f build", "cd a && rm -fR x", "rm x -rfv",
        "rm -f x", "rm -r x", "rm x")}
    assert [line for line, hit in spelled.items() if hit] == [
        "rm -rf build", "rm -fr build", "rm -r -f build", "cd a && rm -fR x", "rm x -rfv"]


def _outcome(verdict: str = "ignored", check: dict[str, object] | None = None) -> RuleOutcome:
    qs = (Quote("s1", "I said never force push", "2026-03-12T00:00:00+00:00", "/p"),)
    return RuleOutcome("directive:no-force-push", RULE, "/p/CLAUDE.md",
                       "2026-03-10T00:00:00+00:00", "apply", 4, 2, 6, 1, qs, (),
                       verdict, check=check)  # type: ignore[arg-type]


def test_an_ignored_rule_gets_a_check_proposal_once(tmp_path: Path) -> None:
    offer = offer_check(_outcome())
    assert offer is not None and offer.key == "directive:no-force-push-check"
    assert offer.surface == "check" and offer.surface_commands == ("git push",)
    assert offer.surface_rules == ("--force", "-f", "--force-with-lease", "+*")
    rule = check_rule_of(offer)
    assert (rule.key, rule.mode, rule.reason) == ("directive:no-force-push", "record", RULE)
    assert offer_check(_outcome("holding")) is None
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        book = ProposalBook(store)
        outs, made = with_check_offers(book, "/p", [_outcome()], [])
        assert [p.key for p in made] == [offer.key]
        assert outs[0].check_offer == {"key": offer.key, "summary": offer.verdict.summary
                                       if offer.verdict else "", "state": "pending"}
        # In place already: nothing offered.
        outs, made = with_check_offers(book, "/p", [_outcome(check={"mode": "record"})], [])
        assert made == [] and outs[0].check_offer is None


def _offered(tmp_path: Path) -> tuple[Path, Proposal, list[str]]:
    """A project with the force-push rule, its check offered and stored: the project,
    the offer, and the arguments that apply it there."""
    from learn.store import open_store
    from learn.store.runs import default_store_path

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(f"# shop\n\n- {RULE}\n")
    offered = offer_check(_outcome())
    assert offered is not None
    offer = dataclasses.replace(offered, quotes=tuple(
        dataclasses.replace(q, project=str(project)) for q in offered.quotes))
    with open_store(default_store_path()) as store:
        store.proposals.record([offer], run_id=None, fallback_project=str(project))
    where = ["--only", offer.key, "--project", str(project)]
    return project, offer, where


def test_a_confirm_a_while_after_the_dry_run_writes_the_check_dated_when_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The rules file dates each check it adds to the second: a person who reads the
    # dry run's diffs and confirms a minute later was refused ("the changes now planned
    # are not the ones confirmed"), since the date had moved.
    from learn import isotime

    project, _, where = _offered(tmp_path)
    monkeypatch.setattr(isotime, "now_iso", lambda: "2026-12-03T13:44:09+00:00")
    look = CliRunner().invoke(cli, ["apply", *where, "--dry-run"])
    assert look.exit_code == 0, look.output
    token = look.output.split("confirm: ", 1)[1].split()[0]
    monkeypatch.setattr(isotime, "now_iso", lambda: "2026-12-03T13:45:31+00:00")
    done = CliRunner().invoke(cli, ["apply", *where, "--confirm", token])
    assert done.exit_code == 0, done.output
    [rule] = json.loads(rules_file(str(project)).read_text())["rules"]
    assert rule["added_at"] == "2026-12-03T13:45:31+00:00"


def test_apply_installs_the_offer_and_outcomes_say_what_it_would_have_stopped(
        tmp_path: Path) -> None:
    from learn.reduce.in_place import measure
    from learn.store import open_store
    from learn.store.runs import default_store_path

    project, offer, where = _offered(tmp_path)
    look = CliRunner().invoke(cli, ["apply", *where, "--dry-run"])
    assert look.exit_code == 0, look.output
    assert ("learn's check, record-only: `git push` with --force / -f / --force-with-lease / +*"
            in look.output)
    assert "+++ " + str(project / ".claude" / "settings.local.json") in look.output
    assert not (project / ".claude").exists()  # a dry run writes nothing
    token = look.output.split("confirm: ", 1)[1].split()[0]
    done = CliRunner().invoke(cli, ["apply", *where, "--confirm", token])
    assert done.exit_code == 0, done.output
    hook = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert "-m learn.guard" in hook["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    data = rules_file(str(project))
    [rule] = json.loads(data.read_text())["rules"]
    assert (rule["key"], rule["mode"]) == ("directive:no-force-push", "record")
    with open_store(default_store_path()) as store:
        assert store.proposals.decided(str(project), [offer.key]) == {offer.key: "applied"}
        [applied] = store.proposals.applied(key=offer.key)
        assert applied.form == "check"

    # The agent force-pushes in a session since: the check notes it and lets it run.
    event = {"session_id": "s-new", "cwd": str(project), "tool_name": "Bash",
             "tool_input": {"command": "git push origin main --force"}}
    proc = subprocess.run([sys.executable, "-m", "learn.guard", "--rules", str(data)],
                          input=json.dumps(event), capture_output=True, text=True, check=True)
    assert proc.stdout == ""
    with open_store(default_store_path()) as store:
        p = dataclasses.replace(offer, label="no-force-push", surface=None)
        store.proposals.record_applied(project=str(project), proposal=p, decision="accepted",
                                       form="rule", rule_text=RULE,
                                       target_file=str(project / "CLAUDE.md"), backup_file=None,
                                       at="2026-03-10T00:00:00+00:00")
        starts = {"old": "2026-03-01T00:00:00+00:00", "s-new": "2099-01-01T00:00:00+00:00"}
        said = [Said("s-new", starts["s-new"], "no-force-push", "directive",
                     "I said never force push", str(project))]
        found = measure(store.proposals, str(project), session_starts=starts, said=said,
                        proposals=[], embedder=None,
                        session_projects=dict.fromkeys(starts, str(project)))
    [o] = [x for x in found if x.key == "directive:no-force-push"]
    assert o.check is not None
    assert (o.check["mode"], o.check["would_have_stopped"], o.check["would_sessions"]) == (
        "record", 1, 1)
    assert (o.check["sessions_since"], o.check["said_since"]) == (1, 1)
    lines = "\n".join(outcome_lines(RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                                               extra={"outcomes": [o.to_json()]})))
    assert "would have stopped the agent 1 time in 1 session" in lines
    assert "`learn check enforce no-force-push` makes it stop them" in lines
    assert o.to_json()["rates"]["since_check"]["sessions"] == 1

    # `learn apply --undo` takes the check away again: the hook and its rules go, and
    # the offer is pending once more.
    undone = CliRunner().invoke(cli, ["apply", "--undo", "--yes"])
    assert undone.exit_code == 0, undone.output
    assert not (project / ".claude" / "settings.local.json").exists() and not data.exists()
    with open_store(default_store_path()) as store:
        assert store.proposals.decided(str(project), [offer.key]) == {}


def test_in_place_rules_never_include_a_check(tmp_path: Path) -> None:
    from learn.reduce.in_place import rules_in_place

    with FeedbackStore.open(tmp_path / "learn.db") as store:
        book = ProposalBook(store)
        offer = offer_check(_outcome())
        assert offer is not None
        book.record_applied(project="/p", proposal=offer, decision="accepted", form="check",
                            rule_text=RULE, target_file="/d/checks/p.json", backup_file=None)
        assert rules_in_place(book, "/p") == []


def _program_files() -> dict[str, str]:
    import hashlib

    guard = Path(__file__).resolve().parents[1] / "learn" / "guard"
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(guard.glob("*.py"))}


def test_learning_from_adversarial_words_leaves_the_check_program_as_it_was(
        tmp_path: Path) -> None:
    """A rule and quotes written to attack (shell, Python, JSON, a bent program name)
    go from an ignored outcome through the offer and `learn apply` into the check: the
    program files are byte-identical, the settings name only the program and its data
    file, a bent word makes no rule, and nothing the words say ever runs."""
    from learn.report.check_install import hook_command
    from learn.store import open_store
    from learn.store.runs import default_store_path

    witness = tmp_path / "pwned"
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    attack = (f'Never run `git push --force`; $(touch {witness}) `touch {witness}` "; rm -rf ~ '
              f"#'); __import__('os').system('touch {witness}') {{\"rules\": []}}")
    quotes = (f"never `git$(touch {witness}) push -f`", f"don't `touch {witness}` again")
    before = _program_files()
    qs = tuple(Quote(f"s{i}", q, "2026-03-12T00:00:00+00:00", str(project))
               for i, q in enumerate(quotes))
    bent = offer_check(dataclasses.replace(_outcome(), quotes_since=qs[:1],
                                           rule_text=f"never `git$(touch {witness}) push -f`"))
    assert bent is None  # `git$` is no program: no rule at all
    offer = offer_check(dataclasses.replace(_outcome(), rule_text=attack, quotes_since=qs))
    assert offer is not None and offer.surface_commands == ("git push",)
    with open_store(default_store_path()) as store:
        store.proposals.record([offer], run_id=None, fallback_project=str(project))
    done = CliRunner().invoke(cli, ["apply", "--only", offer.key, "--yes", "--project",
                                    str(project)])
    assert done.exit_code == 0, done.output
    assert _program_files() == before
    data = rules_file(str(project))
    settings = (project / ".claude" / "settings.local.json").read_text()
    [group] = json.loads(settings)["hooks"]["PreToolUse"]
    assert group["hooks"][0]["command"] == hook_command(data, "claude")
    assert str(witness) not in settings
    [rule] = json.loads(data.read_text())["rules"]
    assert (rule["program"], rule["subcommand"]) == ("git", "push")
    CliRunner().invoke(cli, ["check", "enforce", rule["id"], "--yes", "--project", str(project)])
    event = {"session_id": "s", "cwd": str(project), "tool_name": "Bash",
             "tool_input": {"command": "git -C app push -f"}}
    proc = subprocess.run([sys.executable, "-m", "learn.guard", "--rules", str(data)],
                          input=json.dumps(event), capture_output=True, text=True, check=True)
    said = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Never run `git push --force`" in said
    assert not witness.exists()


def test_a_check_added_by_hand_has_its_own_lines_in_the_digest() -> None:
    check = {"rule_id": "no-force-push", "key": None, "words": "`git push` with --force / -f",
             "mode": "record", "installed_at": "2026-03-10T00:00:00+00:00",
             "would_have_stopped": 3, "would_sessions": 2, "stopped": 0, "stopped_sessions": 0}
    result = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                       extra={"outcomes": [], "checks": [check]})
    lines = "\n".join(outcome_lines(result))
    assert "## learn's checks" in lines
    assert ("**no-force-push** (`git push` with --force / -f): learn's check (record-only since "
            "2026-03-10) would have stopped the agent 3 times in 2 sessions") in lines


@pytest.mark.parametrize(("command", "flags"), [
    # The spellings learn's check itself reads as one (learn.guard.flags.SAME): an offer
    # kept a table of its own beside it, and `cp -r`, `git branch -d`, `git checkout -f`
    # were offered in one spelling while the check knew all of them.
    (("cp", "-r", "a", "b"), ("--recursive", "-r", "-R")),
    (("git", "branch", "-d", "x"), ("--delete", "-d")),
    (("git", "checkout", "-f"), ("--force", "-f")),
    (("git", "branch", "-D", "x"), ("-D",)),  # `--delete --force` at once: no one word
    (("rm", "-r", "x"), ("--recursive", "-r", "-R")),
    (("ls", "-la"), ("-la",)),  # a program not in the table: as written
])
def test_a_check_offers_every_spelling_the_check_reads_as_the_flag(
        command: tuple[str, ...], flags: tuple[str, ...]) -> None:
    rule = check_rule_for([command], RULE, "r", None)
    assert rule is not None and rule.flags == flags


def test_each_offered_spelling_is_read_by_the_check_as_the_same_option() -> None:
    from learn.guard.flags import SAME, reading, sets, spellings

    for program, sub in SAME:
        for group in spellings(program, sub):
            r = reading(program, sub, group)
            assert len({sets(r, w) for w in group}) == 1, (program, sub, group)
