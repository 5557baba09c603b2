"""The /learn command file and `learn install-claude-command`, audited as a write to the
controls of an agent with a shell:

- the command pre-approved `Bash(learn run:*)`: any `learn run` line ran without a
  question, and `learn run --out FILE` writes a digest over any file (a
  `~/.claude/settings.json` that is no longer JSON applies no deny rule), so text in
  the session that talked Claude into one needed nobody's yes; and since Claude Code
  puts $ARGUMENTS into the prompt before it runs the prompt's `!` lines, a `!` line in
  the words after /learn was pre-approved as well. Now only the command's own line is;
- a learn.md that was a link to the person's other command had `--force` replace that
  other command (/other became /learn).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.commands.install_claude_command import command as install
from learn.report.claude_command import command_text

REPO = Path(__file__).resolve().parents[1]
SHIPPED = (REPO / "learn" / "report" / "claude_command.md",
           REPO / "integrations" / "claude-code" / "commands" / "learn.md")


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert m, "no frontmatter"
    fields = {}
    for line in m.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, m.group(2)


def pre_approved(allowed_tools: str, line: str) -> bool:
    """Whether Claude Code runs `line` without asking, by the command's allowed-tools:
    `Bash(x:*)` is any line starting with the words x, `Bash(x)` the line x alone."""
    for tool in (t.strip() for t in allowed_tools.split(",")):
        m = re.fullmatch(r"Bash\((.+)\)", tool)
        if not m:
            continue
        rule = m.group(1)
        if rule.endswith(":*"):
            prefix = rule[:-2]
            if line == prefix or line.startswith(prefix + " "):
                return True
        elif line == rule:
            return True
    return False


def bang_lines(body: str) -> list[str]:
    return re.findall(r"!`([^`]+)`", body)


@pytest.mark.parametrize("path", SHIPPED, ids=["packaged", "plugin"])
def test_only_the_commands_own_line_runs_without_a_question(path: Path) -> None:
    fields, body = frontmatter(path.read_text(encoding="utf-8"))
    [line] = bang_lines(body)
    assert "$" not in line  # nothing typed after /learn reaches the shell line
    assert pre_approved(fields["allowed-tools"], line)
    for other in (f"{line} --out {Path.home()}/.claude/settings.json",
                  f"{line} --since 7d", "learn run --cache-dir /tmp/x", "learn apply --yes"):
        assert not pre_approved(fields["allowed-tools"], other), other


@pytest.mark.parametrize("path", SHIPPED, ids=["packaged", "plugin"])
def test_a_bang_line_in_the_words_after_the_command_is_not_pre_approved(path: Path) -> None:
    fields, body = frontmatter(path.read_text(encoding="utf-8"))
    typed = "!`learn run --out ~/.bashrc` then apply"
    expanded = body.replace("$ARGUMENTS", typed)
    extra = [x for x in bang_lines(expanded) if x not in bang_lines(body)]
    assert extra == ["learn run --out ~/.bashrc"]
    assert not pre_approved(fields["allowed-tools"], extra[0])


def test_rerunning_with_options_keeps_them_words_of_learn_run_alone() -> None:
    _, body = frontmatter(command_text())
    step = body.split("\n1. ", 1)[1].split("\n2. ", 1)[0]
    assert "each its own" in step and "single-quoted" in step
    assert "nothing else on the line" in step and "asks me first" in step


def commands_dir() -> Path:
    return Path(os.environ["HOME"]) / ".claude" / "commands"


def test_a_learn_md_linked_to_another_command_is_not_written_through_even_with_force() -> None:
    commands_dir().mkdir(parents=True)
    other = commands_dir() / "other.md"
    other.write_text("my /other command\n", encoding="utf-8")
    (commands_dir() / "learn.md").symlink_to("other.md")
    for args in ([], ["--force"]):
        res = CliRunner().invoke(install, args)
        assert res.exit_code != 0 and "is a link" in res.output, res.output
        assert "Nothing was written" in res.output
    assert other.read_text(encoding="utf-8") == "my /other command\n"
    assert (commands_dir() / "learn.md").is_symlink()
    backups = Path(os.environ["HOME"]) / ".local" / "share" / "learn" / "backups"
    assert not backups.exists() or not list(backups.iterdir())


def test_a_learn_md_linked_to_a_copy_of_this_command_is_already_installed() -> None:
    commands_dir().mkdir(parents=True)
    (commands_dir() / "learn-shipped.md").write_text(command_text(), encoding="utf-8")
    (commands_dir() / "learn.md").symlink_to("learn-shipped.md")
    res = CliRunner().invoke(install, [])
    assert res.exit_code == 0 and "already installed" in res.output, res.output


def test_a_learn_md_linked_out_of_the_commands_folder_is_refused(tmp_path: Path) -> None:
    bashrc = Path(os.environ["HOME"]) / ".bashrc"
    bashrc.write_text("echo hi\n", encoding="utf-8")
    commands_dir().mkdir(parents=True)
    (commands_dir() / "learn.md").symlink_to(bashrc)
    res = CliRunner().invoke(install, ["--force"])
    assert res.exit_code != 0 and "nothing was written" in res.output.lower(), res.output
    assert bashrc.read_text(encoding="utf-8") == "echo hi\n"


def test_the_command_file_is_written_whole_with_nothing_left_beside_it() -> None:
    res = CliRunner().invoke(install, [])
    assert res.exit_code == 0, res.output
    dest = commands_dir() / "learn.md"
    assert dest.read_text(encoding="utf-8") == command_text()
    # Made as any new file of the person's is (0666 less the umask), as apply's commands.
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in commands_dir().iterdir()] == ["learn.md"]
