"""Spellings of a forbidden flag the program itself accepts, each once past learn's check:
a long option cut to a prefix (`git reset --har`) and the long and short spellings mixed
(`rm -r --force` against a rule on `rm -rf`). learn.guard.flags reads them."""

from __future__ import annotations

import pytest

from learn.guard.rules import CheckRule, check_line, rule_words


def _rule(program: str, subcommand: str | None, *flags: str) -> CheckRule:
    return CheckRule(id="r", program=program, subcommand=subcommand, flags=flags,
                     reason="Never.", mode="enforce")


def _stopped(rule: CheckRule, line: str) -> str | None:
    hits = check_line(line, [rule])
    return hits[0].words if hits else None


HARD = _rule("git", "reset", "--hard")
NO_VERIFY = _rule("git", "commit", "--no-verify")
FORCE = _rule("git", "push", "--force")
RM_RF = _rule("rm", None, "-rf")


@pytest.mark.parametrize(("rule", "line", "broken"), [
    (HARD, "git reset --har", "git reset --har"),
    (HARD, "git reset --h HEAD~1", "git reset --h"),  # git 2.39 resets hard
    (NO_VERIFY, "git commit --no-verif -m x", "git commit --no-verif"),
    (NO_VERIFY, "git commit -m x --no-v", "git commit --no-v"),
    (FORCE, "git push origin main --forc", "git push --forc"),
    (FORCE, "git push --fo=yes", "git push --fo=yes"),
    (_rule("rm", None, "--recursive"), "rm --recur build", "rm --recur"),
    (_rule("curl", None, "--insecure"), "curl --insec https://x", "curl --insec"),
])
def test_a_long_option_cut_to_a_prefix_is_that_option(rule: CheckRule, line: str,
                                                       broken: str) -> None:
    assert _stopped(rule, line) == broken


@pytest.mark.parametrize(("rule", "line"), [
    (FORCE, "git push --force-with-lease"),  # a longer, other flag
    (FORCE, "git push --force-with"),  # a prefix of that other flag, not of --force
    (_rule("git", "push", "--force-with-lease"), "git push --force"),  # an exact name wins
    (HARD, "git reset --soft HEAD~1"),
    (HARD, "git reset --hardest"),
    (HARD, "git reset -- --har"),  # after `--`, a name
    (HARD, "git reset --"),
    (NO_VERIFY, "git commit --no-edit"),
])
def test_a_longer_or_other_flag_and_a_name_after_the_dashes_are_not_a_prefix(
        rule: CheckRule, line: str) -> None:
    assert _stopped(rule, line) is None


@pytest.mark.parametrize(("rule", "line", "broken"), [
    (RM_RF, "rm --recursive --force build", "rm --recursive --force"),
    (RM_RF, "rm -r --force build", "rm -r --force"),
    (RM_RF, "rm --force build -R", "rm --force -R"),
    (RM_RF, "rm -Rf build", "rm -Rf"),
    (RM_RF, "rm --recur --f build", "rm --recur --f"),
    (_rule("rm", None, "--recursive", "--force"), "rm -f x", "rm -f"),
    (_rule("rm", None, "--force"), "rm -rf x", "rm -rf"),
    (_rule("rm", None, "-r"), "rm --recursive x", "rm --recursive"),
    (_rule("git", "push", "-f"), "git push --force", "git push --force"),
    (FORCE, "git -C app push -uf origin x", "git push -uf"),
    (_rule("git", "commit", "-n"), "git commit --no-verify -m x", "git commit --no-verify"),
    (NO_VERIFY, "git commit -an -m x", "git commit -an"),
    (_rule("git", "clean", "-fdx"), "git clean --force -d -x", "git clean --force -d -x"),
    (_rule("git", "clean", "-fdx"), "git clean -d -x --f", "git clean -d -x --f"),
    (_rule("git", "clean", "--force"), "git clean -fd", "git clean -fd"),
    (_rule("git", "checkout", "-f"), "git checkout --force main", "git checkout --force"),
    (_rule("git", "checkout", "--force"), "git checkout -f main", "git checkout -f"),
    (_rule("git", "branch", "-D"), "git branch --delete --force x", "git branch --delete --force"),
    (_rule("git", "branch", "-D"), "git branch -d -f x", "git branch -d -f"),
    (_rule("git", "branch", "-D"), "git branch -df x", "git branch -df"),
    (_rule("git", "branch", "--delete", "--force"), "git branch -D x", "git branch -D"),
    (_rule("cp", None, "-r"), "cp --recursive a b", "cp --recursive"),
    (_rule("cp", None, "--recursive"), "cp -R a b", "cp -R"),
    (_rule("chmod", None, "-R"), "chmod --recursive 777 x", "chmod --recursive"),
    (_rule("chown", None, "--recursive"), "chown -R me x", "chown -R"),
])
def test_a_rule_in_either_spelling_stops_the_other(rule: CheckRule, line: str,
                                                   broken: str) -> None:
    assert _stopped(rule, line) == broken


@pytest.mark.parametrize(("rule", "line"), [
    (RM_RF, "rm --recursive build"),  # one of the two
    (RM_RF, "rm -r build"),
    (RM_RF, "rm -- --recursive --force"),  # files so named
    (_rule("git", "branch", "-D"), "git branch -d x"),  # a delete that refuses unmerged
    (_rule("git", "branch", "-D"), "git branch -f x HEAD~1"),
    (_rule("git", "push", "-f"), "git push --force-with-lease"),
    (_rule("chmod", None, "--recursive"), "chmod -r x"),  # chmod's -r takes read away
    (_rule("git", "commit", "-n"), "git push --no-verify"),  # another subcommand
])
def test_half_a_rule_or_another_command_is_not_the_rule(rule: CheckRule, line: str) -> None:
    assert _stopped(rule, line) is None


@pytest.mark.parametrize(("rule", "line"), [
    (_rule("docker", "rm", "-f"), "docker rm --force web"),
    (_rule("git", "rm", "-r"), "git rm --recursive x"),
    (_rule("tar", None, "-x"), "tar --extract -f a.tar"),
    (_rule("git", None, "-f"), "git push --force"),  # the table is per subcommand
])
def test_a_program_not_in_the_table_compares_its_flags_as_written(rule: CheckRule,
                                                                  line: str) -> None:
    assert _stopped(rule, line) is None


def test_the_hits_log_says_the_flag_the_rule_names_not_the_spelling() -> None:
    assert rule_words(FORCE._replace(flags=("--force", "-f")), "git push --forc") == \
        "git push --force"
    assert rule_words(FORCE._replace(flags=("--force", "-f")), "git push -f") == "git push -f"
    assert rule_words(RM_RF, "rm -r --force") == "rm -rf -rf"
