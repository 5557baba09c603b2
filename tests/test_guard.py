"""learn's check (learn.guard): a command line read as a shell reads it, rules as validated
data, the hook's answers, and installing / removing it in the settings."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from learn.guard.hook import command_of, decide
from learn.guard.rules import (
    BadRules,
    CheckRule,
    RuleSet,
    check_line,
    match,
    parse_rules,
    read_hits,
    tally,
)
from learn.guard.shell import simple_commands
from learn.report.check_install import (
    CheckError,
    claude_settings,
    codex_hooks,
    codex_prefix_rules,
    hook_command,
    plan_rules,
    with_mode,
)
from learn.report.check_writes import write_plan

GUARD = Path(__file__).resolve().parents[1] / "learn" / "guard"
FORCE = CheckRule(id="no-force-push", program="git", subcommand="push",
                  flags=("--force", "-f"), arguments=("+*",),
                  reason="Never force push; ask me first.", mode="enforce")


@pytest.mark.parametrize(("line", "argvs"), [
    ("cd app && git push -f", [("cd", "app"), ("git", "push", "-f")]),
    ("FOO=1 BAR='a b' git -C app push -f; echo hi",
     [("git", "-C", "app", "push", "-f"), ("echo", "hi")]),
    ('echo "$(git push -f)"', [("echo", "$SUBST"), ("git", "push", "-f")]),
    ("echo `git push -f`", [("echo", "$SUBST"), ("git", "push", "-f")]),
    ("git$(echo x) push -f", [("git$SUBST", "push", "-f"), ("echo", "x")]),
    ('x="$(git push -f)" true', [("true",), ("git", "push", "-f")]),
    ("git push -f 2>/dev/null | cat", [("git", "push", "-f"), ("cat",)]),
    ("bash -lc 'cd app && git push -f'", [("cd", "app"), ("git", "push", "-f")]),
    ("sudo -u me env -i A=1 nohup timeout 10 git push -f", [("git", "push", "-f")]),
    ("cat <<EOF\ngit push -f\nEOF\ngit status", [("cat",), ("git", "status")]),
    ("git commit -m 'never git push -f'", [("git", "commit", "-m", "never git push -f")]),
    ("if git push -f; then echo ok; fi", [("git", "push", "-f"), ("echo", "ok"), ("fi",)]),
    ("( cd app; git push -f ) || true", [("cd", "app"), ("git", "push", "-f"), ("true",)]),
    ("echo '`git push -f`'", [("echo", "`git push -f`")]),
    ("eval 'git push -f'", [("git", "push", "-f")]),
    ("git push -f # a comment", [("git", "push", "-f")]),
    ("git push 'unclosed", [("git", "push", "unclosed")]),
])
def test_a_line_is_read_as_the_simple_commands_a_shell_runs(line: str, argvs: list[tuple[str, ...]]) -> None:
    assert [c.argv for c in simple_commands(line)] == argvs


@pytest.mark.parametrize(("line", "broken"), [
    ("git push --force", "git push --force"),
    ("git push origin main --force", "git push --force"),
    ("git -C app push -f", "git push -f"),
    ("cd app && git push -f", "git push -f"),
    ("git -c push.default=current --git-dir=.git push -uf origin x", "git push -uf"),
    ("git push --force=yes", "git push --force=yes"),
    ("git push origin +main", "git push +main"),
    ("/usr/bin/git push -f", "git push -f"),
    ("bash -c 'git push origin HEAD -f'", "git push -f"),
    ("git push origin feature/x", None),
    ("git push --force-with-lease", None),
    ("git commit -mfix", None),
    ("git push origin -- -f", None),  # after `--`, a name, not a flag
    ("git pull --force", None),
    ("echo git push -f", None),
    ("git log --grep='push -f'", None),
])
def test_a_rule_matches_its_flags_in_any_spelling_and_nothing_else(line: str,
                                                                   broken: str | None) -> None:
    hits = check_line(line, [FORCE])
    assert (hits[0].words if hits else None) == broken


@pytest.mark.parametrize(("line", "broken"), [
    ("rm -rf build", "rm -rf"),
    ("rm -fr build", "rm -fr"),
    ("rm -r -f build", "rm -r -f"),
    ("rm build -v -fr", "rm -fr"),
    ("sudo rm -rfv /", "rm -rfv"),
    ("rm -f stale.lock", None),
    ("rm -r empty/", None),
    ("rm -- -rf", None),  # a file named -rf
])
def test_a_cluster_in_a_rule_is_its_letters_together(line: str, broken: str | None) -> None:
    rule = CheckRule(id="no-rm-rf", program="rm", reason="Never rm -rf.", flags=("-rf",))
    hits = check_line(line, [rule])
    assert (hits[0].words if hits else None) == broken


def test_a_rule_without_flags_forbids_the_subcommand_itself() -> None:
    rule = FORCE._replace(id="no-push", flags=(), arguments=())
    assert match(rule, simple_commands("git -C x push")[0]) == "git push"
    assert match(rule, simple_commands("git status")[0]) is None


def _file(rules: list[dict[str, object]], project: str | None = None) -> str:
    return json.dumps({"format": 1, "project": project, "rules": rules})


@pytest.mark.parametrize(("rule", "said"), [
    ({"program": "git; rm -rf ~"}, "not a plain word"),
    ({"subcommand": "$(touch x)"}, "not a plain word"),
    ({"flags": ["--force; ls"]}, "not a plain word"),
    ({"flags": "-f"}, "list of strings"),
    ({"targets": ["main; ls"]}, "not a plain word"),
    ({"reason": ""}, "reason"),
    ({"mode": "block"}, "mode"),
    ({"id": "Bad Id"}, "rule id"),
])
def test_the_data_file_is_validated_word_by_word(rule: dict[str, object], said: str) -> None:
    base = {**FORCE.to_json(), **rule}
    with pytest.raises(BadRules, match=said):
        parse_rules(_file([base]))


def test_a_bad_file_is_refused_whole_and_a_good_one_round_trips() -> None:
    for text in ("not json", "[]", json.dumps({"format": 2, "rules": []}),
                 _file([FORCE.to_json(), FORCE.to_json()])):
        with pytest.raises(BadRules):
            parse_rules(text)
    reason = "Never force push.\x1b[31m\nreally"
    [rule] = parse_rules(_file([{**FORCE.to_json(), "reason": reason}])).rules
    assert rule.reason == "Never force push. [31m really"  # one printable line
    again = RuleSet("/p", (FORCE,))
    assert parse_rules(again.dumps()) == again


def _event(command: str, cwd: str = "/w/shop", tool: str = "Bash") -> dict[str, object]:
    return {"session_id": "s1", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": {"command": command, "description": "x"}}


def test_the_hook_denies_with_the_persons_words_or_notes_only(tmp_path: Path) -> None:
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet("/w/shop", (FORCE,)).dumps())
    hits, answer = decide(_event("cd app && git push -f"), str(rules))
    assert answer is not None
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith("Never force push; ask me first.")
    assert "`git push -f`" in out["permissionDecisionReason"]
    assert decide(_event("git push origin feature/x"), str(rules)) == ([], None)
    assert decide(_event("git push -f", cwd="/w/other"), str(rules)) == ([], None)
    assert decide(_event("git push -f", tool="Read"), str(rules)) == ([], None)
    rules.write_text(RuleSet("/w/shop", (FORCE._replace(mode="record"),)).dumps())
    hits, answer = decide(_event("git push -f"), str(rules))
    assert answer is None and [h.rule.id for h in hits] == ["no-force-push"]
    assert command_of({"tool_name": "shell", "tool_input": {"command": ["git", "push", "-f"]}}) \
        == "git push -f"


def _run_hook(rules: Path, event: dict[str, object] | str) -> subprocess.CompletedProcess[str]:
    data = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run([sys.executable, "-m", "learn.guard", "--rules", str(rules)],
                          input=data, capture_output=True, text=True, timeout=60)


def test_the_program_notes_hits_without_the_command_line_and_never_fails(tmp_path: Path) -> None:
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet("/w/shop", (FORCE,)).dumps())
    secret = "https://me:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x.git"
    proc = _run_hook(rules, _event(f"git push -f {secret}"))
    assert proc.returncode == 0 and json.loads(proc.stdout)["hookSpecificOutput"]
    [hit] = read_hits(rules)
    assert hit["rule"] == "no-force-push" and hit["stopped"] is True and hit["words"] == "git push -f"
    assert "ghp_" not in (tmp_path / "r.hits.jsonl").read_text()
    assert (tmp_path / "r.hits.jsonl").stat().st_mode & 0o777 == 0o600
    assert tally(read_hits(rules), "no-force-push") == (1, 1)
    # Bad input, a broken data file: the command runs, the log says why.
    assert _run_hook(rules, "not json").stdout == ""
    rules.write_text("{broken")
    proc = _run_hook(rules, _event("git push -f"))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert "BadRules" in (tmp_path / "check.log").read_text()


def test_an_unwritable_hits_log_does_not_let_a_stopped_command_through(tmp_path: Path) -> None:
    (tmp_path / "r.hits.jsonl").mkdir()  # a folder where the log goes: no one writes there
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet(None, (FORCE,)).dumps())
    proc = _run_hook(rules, _event("git push -f"))
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "hits not noted" in (tmp_path / "check.log").read_text()


def _sources() -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(GUARD.glob("*.py"))}


ADVERSARIAL = ['"; rm -rf ~; echo "', "$(touch WITNESS)", "`touch WITNESS`",
               "'); import os; os.system('touch WITNESS') #", '\\n"}]}, {"id": "x"',
               "<!-- learn --> {{ WITNESS }}"]


def test_the_check_program_holds_no_text_of_the_rules_it_checks(tmp_path: Path) -> None:
    """What a person (or a transcript) said reaches the check only as data: the program's
    files are the same before and after, the settings name only the fixed program and
    the data file, and the words travel as a JSON string, never run."""
    witness = tmp_path / "pwned"
    before = _sources()
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    rules = [FORCE._replace(id=f"r{i}", reason=text.replace("WITNESS", str(witness)))
             for i, text in enumerate(ADVERSARIAL)]
    plan = plan_rules(str(project), rules)
    write_plan(plan, str(project))
    assert _sources() == before
    settings = json.loads(claude_settings(str(project)).read_text())
    [group] = settings["hooks"]["PreToolUse"]
    data_file = plan.changes[0].path
    assert group["hooks"][0]["command"] == hook_command(data_file, "claude")
    for text in ADVERSARIAL:
        assert text.replace("WITNESS", str(witness)) not in claude_settings(str(project)).read_text()
    stored = json.loads(data_file.read_text())
    assert [r["reason"] for r in stored["rules"]] == [r.reason for r in rules]
    proc = _run_hook(data_file, _event("git push -f", cwd=str(project)))
    said = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert all(r.reason in said for r in rules)
    assert not witness.exists()


def test_install_and_remove_restore_the_settings_byte_for_byte(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    settings = claude_settings(str(project))
    original = b'{"permissions":{"allow":["Bash(ls:*)"]},   "env": {"A": "1"}}'
    settings.write_bytes(original)
    settings.chmod(0o644)
    write_plan(plan_rules(str(project), [FORCE]), str(project))
    installed = json.loads(settings.read_text())
    assert installed["permissions"] == {"allow": ["Bash(ls:*)"]} and installed["env"] == {"A": "1"}
    assert settings.stat().st_mode & 0o777 == 0o644
    # Switching the mode touches the data file only.
    rules = with_mode([FORCE], "no-force-push", "record")
    plan = plan_rules(str(project), rules)
    assert [c.path for c in plan.changes if c.before != c.after] == [plan.changes[0].path]
    write_plan(plan, str(project))
    write_plan(plan_rules(str(project), []), str(project))
    assert settings.read_bytes() == original


def test_remove_keeps_what_the_person_changed_since(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    write_plan(plan_rules(str(project), [FORCE]), str(project))
    settings = claude_settings(str(project))
    data = json.loads(settings.read_text())
    data["permissions"] = {"allow": ["Bash(npm test:*)"]}  # Claude Code's "always allow"
    settings.write_text(json.dumps(data))
    plan = plan_rules(str(project), [])
    assert any("changed since" in n for n in plan.notes)
    write_plan(plan, str(project))
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(npm test:*)"]}}
    # No settings before, none left after (and the folder learn made goes too).
    other = tmp_path / "bare"
    other.mkdir()
    write_plan(plan_rules(str(other), [FORCE]), str(other))
    assert claude_settings(str(other)).exists()
    write_plan(plan_rules(str(other), []), str(other))
    assert not (other / ".claude").exists()


def test_a_broken_or_moving_settings_file_is_left_alone(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".claude").mkdir(parents=True)
    settings = claude_settings(str(project))
    settings.write_text("{not json")
    with pytest.raises(CheckError, match="not valid JSON"):
        plan_rules(str(project), [FORCE])
    settings.write_text("{}")
    plan = plan_rules(str(project), [FORCE])
    settings.write_text('{"model": "opus"}')
    with pytest.raises(CheckError, match="changed while learn was planning"):
        write_plan(plan, str(project))
    assert settings.read_text() == '{"model": "opus"}'


def test_codex_gets_the_same_program_in_its_hooks_json(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    home = tmp_path / "home"
    plan = plan_rules(str(project), [FORCE], agents=("claude", "codex"), home=home)
    assert any("trust" in n and "/hooks" in n for n in plan.notes)
    write_plan(plan, str(project))
    hooks = json.loads(codex_hooks(home).read_text())
    [group] = hooks["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash" and group["hooks"][0]["command"].endswith("--agent codex")
    write_plan(plan_rules(str(project), [], home=home), str(project))
    assert not codex_hooks(home).exists()


def test_the_stdin_reader_stops_at_one_object() -> None:
    from learn.hook_input import read_stdin

    r, w = os.pipe()
    os.write(w, b'{"a": 1}')  # the writer never closes: the object is the whole input
    try:
        assert read_stdin(io.FileIO(r, closefd=False), timeout=5.0) == b'{"a": 1}'
    finally:
        os.close(r)
        os.close(w)


def test_codex_without_hooks_gets_prefix_rules_only_once_a_rule_is_enforced(
        tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    home = tmp_path / "home"
    rules_path = home / ".codex" / "rules" / "learn-check.rules"
    noting = FORCE._replace(mode="record")
    plan = plan_rules(str(project), [noting], agents=("codex-rules",), home=home)
    assert any("runs no hooks" in n for n in plan.notes)
    write_plan(plan, str(project))
    assert not rules_path.exists()  # execpolicy cannot note: nothing until enforced
    write_plan(plan_rules(str(project), [FORCE], agents=("codex-rules",), home=home),
               str(project))
    text = rules_path.read_text()
    assert 'pattern = ["git", "push", "--force"]' in text and '"git", "push", "-f"' in text
    assert 'decision = "forbidden"' in text and "Never force push; ask me first." in text
    # Narrowed to main, a rule has no prefix: `git push --force` would forbid every branch.
    to_main = FORCE._replace(id="to-main", targets=("main", "*:main"))
    assert codex_prefix_rules([to_main]) is None
    write_plan(plan_rules(str(project), [], home=home), str(project))
    assert not rules_path.exists() and not rules_path.parent.exists()


def test_a_rule_added_by_hand_with_a_target_holds_only_where_it_is_named(
        tmp_path: Path) -> None:
    from click.testing import CliRunner

    from learn.cli import cli

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    where = ["--project", str(project)]
    added = CliRunner().invoke(cli, ["check", "add", "git", "push", "--flag", "-f", "--flag",
                                     "--force", "--target", "main", "--target", "*:main",
                                     "--reason", "Never force push to main.", "--enforce",
                                     "--yes", *where])
    assert added.exit_code == 0, added.output
    assert "`git push` with -f / --force naming `main`" in added.output

    def test(line: str) -> tuple[int, str]:
        r = CliRunner().invoke(cli, ["check", "test", line, *where])
        return r.exit_code, r.output

    assert test("git push -f origin HEAD:main") == (2, "reads as: git push -f origin HEAD:main\n"
                                                      "breaks git-push-f [enforce]: "
                                                      "`git push -f HEAD:main`\n")
    assert test("git push -f origin feature/x")[0] == 0
    assert test("git push origin main")[0] == 0


def _repo_with_worktree(tmp_path: Path) -> tuple[Path, Path, Callable[..., None]]:
    """A git repository `shop` with a sibling worktree `shop-fix`, and its git."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    main, worktree = tmp_path / "shop", tmp_path / "shop-fix"
    main.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=main, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "x")
    git("worktree", "add", "-q", "-b", "fix", str(worktree))
    return main, worktree, git


def _check(*args: str, where: Path) -> str:
    from click.testing import CliRunner

    from learn.cli import cli

    r = CliRunner().invoke(cli, ["check", *args, "--yes", "--project", str(where)])
    assert r.exit_code == 0, r.output
    return r.output


_NEEDS_GIT = pytest.mark.skipif(not __import__("shutil").which("git"), reason="needs git")


@_NEEDS_GIT
def test_the_hook_goes_into_the_checkout_the_command_runs_in(tmp_path: Path) -> None:
    # Claude Code reads the settings of the checkout a session runs in: a hook in the
    # main checkout never reaches a session in a worktree (the desktop app's included).
    from click.testing import CliRunner

    from learn.cli import cli

    main, worktree, _git = _repo_with_worktree(tmp_path)
    settings = worktree / ".claude" / "settings.local.json"
    _check("add", "git", "push", "--flag", "--force", "--reason", "Never force push.",
           where=worktree)
    hooks = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert any("-m learn.guard --rules" in h["command"] for entry in hooks for h in entry["hooks"])
    assert not (main / ".claude").exists()
    # One project: the rules are the repository's, seen from the main checkout too ...
    listed = CliRunner().invoke(cli, ["check", "list", "--project", str(main)])
    assert "Never force push." in listed.output
    # ... a rule added there puts the hook there as well and keeps the worktree's ...
    own = main / ".claude" / "settings.local.json"
    own.parent.mkdir()
    own.write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}\n')
    _check("add", "rm", "--flag", "-rf", "--reason", "Never rm -rf.", where=main)
    for f in (settings, own):
        assert "-m learn.guard --rules" in f.read_text()
    # ... and removing every rule, from either, takes it out of both.
    _check("remove", "--all", where=worktree)
    assert not settings.exists() and not (worktree / ".claude").exists()
    assert own.read_text() == '{"permissions": {"allow": ["Bash(ls:*)"]}}\n'
    assert CliRunner().invoke(cli, ["check", "list", "--project", str(worktree)]).output \
        .startswith("no check rules")


@_NEEDS_GIT
def test_a_removed_worktree_took_its_hook_and_the_check_goes_on_elsewhere(
        tmp_path: Path) -> None:
    main, worktree, git = _repo_with_worktree(tmp_path)
    _check("add", "git", "push", "--flag", "--force", "--reason", "Never force push.",
           where=worktree)
    git("worktree", "remove", "--force", str(worktree))
    out = _check("add", "rm", "--flag", "-rf", "--reason", "Never rm -rf.", where=main)
    assert f"{worktree} no longer exists" in out
    settings = main / ".claude" / "settings.local.json"
    assert "-m learn.guard --rules" in settings.read_text()
    assert not worktree.exists()  # nothing written where the checkout was
    _check("remove", "--all", where=main)
    assert not settings.exists() and not worktree.exists()


@pytest.mark.parametrize(("rule", "line", "noted"), [
    # The word that broke the rule is the very secret it is about: `-p` with the password
    # glued on, a clone URL holding a token. The log keeps the rule's words instead.
    (CheckRule(id="mysql-password", program="mysql", flags=("-p",),
               reason="never pass the mysql password on the command line", mode="record"),
     "mysql -pHunterSecretPw -u root", "mysql -p"),
    (CheckRule(id="no-token-url", program="git", subcommand="clone",
               arguments=("https://*:*@*",), reason="never put a token in a clone URL",
               mode="record"),
     "git clone https://bob:Zq8vN2mK4pL7xR9tWb3c@git.example.com/app.git",
     "git clone https://*:*@*"),
])
def test_the_hits_log_keeps_the_rules_words_not_the_secret(
        tmp_path: Path, rule: CheckRule, line: str, noted: str) -> None:
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet("/w/shop", (rule,)).dumps())
    assert _run_hook(rules, _event(line)).returncode == 0
    [hit] = read_hits(rules)
    assert hit["words"] == noted
    logged = (tmp_path / "r.hits.jsonl").read_text()
    assert "HunterSecretPw" not in logged and "Zq8vN2mK4pL7xR9tWb3c" not in logged
