"""Spellings a shell runs as a forbidden command, each once past learn's check (audit 2,
r3 and what reading it turned up): the check must read them as the shell does."""

from __future__ import annotations

import pytest

from learn.guard.rules import CheckRule, check_line
from learn.guard.shell import simple_commands

FORCE = CheckRule(id="no-force-push", program="git", subcommand="push",
                  flags=("--force", "-f"), arguments=("+*",),
                  reason="Never force push.", mode="enforce")


def _stopped(line: str) -> str | None:
    hits = check_line(line, [FORCE])
    return hits[0].words if hits else None


@pytest.mark.parametrize("line", [
    # A backslash-newline is a line continuation (POSIX 2.2.1), inside double quotes too.
    "git push \\\n  --force origin main",
    "git push origin main \\\n--force",
    "git push -f\\\n",
    "g\\\nit push -f",
    "git pu\\\nsh -f",
    "bash -c 'git push \\\n  -f'",
    'bash -c "git push \\\n  -f"',
    "echo $(git push \\\n -f)",
    # A comment ends before its newline, which still ends the command.
    "cd app  # go there\ngit push -f",
    "git status # note \\\ngit push -f",  # a backslash in a comment is the comment's
    "echo \\ #; git push -f",  # an escaped space, then a word `#`: no comment
    # A heredoc begins only at a `<<` outside quotes, and its word is read whole.
    'echo "a<<EOF"\ngit push -f',
    "echo 'x <<EOF'\ngit push -f",
    "cat <<E\\\nOF\nbody\nEOF\ngit push -f",
    "cat <<'EOF'\nbody \\\nEOF\ngit push -f",  # a quoted heredoc keeps its backslash
    "cat <<< here\ngit push -f",  # a here-string has no body
    "echo $((1<<x))\ngit push -f",  # a shift in arithmetic is no heredoc
    "(( y = 1 << x ))\ngit push -f",
    # A cluster of single-letter flags of any length.
    "git push -vquf",
    "git push -vqnuf origin main",
    # Programs that run a command written in their arguments.
    "watch git push -f",
    "watch -n 5 'git push -f'",
    "watch -x git push -f",
    "script -qc 'git push -f' /dev/null",
    "script --command 'git push -f'",
    "find . -maxdepth 0 -exec git push -f \\;",
    "find . -execdir git push -f {} +",
    "git -c alias.p='push -f' p",
    "git -c alias.p='!git push -f' p",
    "git -c alias.p=push p -f",
])
def test_a_spelling_the_shell_runs_as_a_force_push_is_stopped(line: str) -> None:
    assert _stopped(line) is not None, [c.argv for c in simple_commands(line)]


@pytest.mark.parametrize("line", [
    "cat <<EOF\ngit push -f\nEOF\ngit status",  # a heredoc body is text
    "cat <<-EOF\n\tgit push -f\n\tEOF\ngit status",
    "git commit -m 'git push \\\n -f'",  # a single-quoted backslash-newline stays
    "echo '#' git push -f",
    "git status # git push -f",
    "watch git status",
    "find . -name '*.py' -exec grep -l push {} +",
    "git -c alias.p='push -f' status",
    "git push origin $(git branch --show-current)",
])
def test_what_the_shell_does_not_run_as_a_force_push_is_let_through(line: str) -> None:
    assert _stopped(line) is None, [c.argv for c in simple_commands(line)]


def test_a_continuation_joins_words_as_the_shell_does() -> None:
    assert [c.argv for c in simple_commands("git push \\\n  --force origin main")] == \
        [("git", "push", "--force", "origin", "main")]
    assert [c.argv for c in simple_commands("g\\\nit push")] == [("git", "push")]
    assert [c.argv for c in simple_commands('echo "a\\\nb" \'c\\\nd\'')] == \
        [("echo", "ab", "c\\\nd")]
    assert [c.argv for c in simple_commands("cd app # there\nls")] == [("cd", "app"), ("ls",)]
