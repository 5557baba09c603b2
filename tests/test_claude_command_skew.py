"""/learn when the command file and the `learn` it runs are not from the same learn.

A command file newer than learn (the plugin updated from a newer checkout, a project's copy
from a teammate's newer learn) ran `learn run ... --exit-zero` on a learn without the flag:
Claude Code 2.1.332 showed click's "No such option: --exit-zero" and nothing else, the
model never called (checked against the real client before the fix: "Shell command failed
for pattern ..."). The line now asks learn whether it knows the flag, runs the job once
either way, and says what to do; doctor and install-claude-command name a later learn's
copy. The other way round (an earlier file, this learn) is checked here too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from learn.commands.install_claude_command import command as install
from learn.doctor_command import check_claude_command
from learn.report.claude_command import (
    EARLIER_TEXTS,
    command_text,
    is_later,
    own_revision,
    revision,
)

REPO = Path(__file__).resolve().parents[1]
SHIPPED = (REPO / "learn" / "report" / "claude_command.md",
           REPO / "integrations" / "claude-code" / "commands" / "learn.md")
JOB = "run --yes --quiet --backend auto"  # the main job's argv, without the flag
PROBE = "run --exit-zero --help"
DIGEST = "[learn-digest] Read 3 sessions: 1 new proposal."

# An older learn: click, without --exit-zero. It logs each argv, rejects the flag as
# click does (exit 2, usage on stderr, before anything runs), and otherwise runs "the
# job": a digest and exit 0, a digest with what failed and exit 1, or exit 3 and only
# stderr when no backend answers (learn.commands.run's codes before --exit-zero).
OLDER_LEARN = """#!/bin/sh
printf '%s\\n' "$*" >> "$ARGV_LOG"
for a in "$@"; do
  if [ "$a" = --exit-zero ]; then
    printf "Usage: learn run [OPTIONS]\\nTry 'learn run --help' for help.\\n\\n" >&2
    printf 'Error: No such option: --exit-zero\\n' >&2
    exit 2
  fi
done
case "$RUN_ENDS" in
  failed) printf '%s\\n\\n## What failed\\n\\n- the judge: HTTP 400\\n' "$DIGEST"; exit 1 ;;
  no-backend) echo 'learn run: no usable backend (anthropic: connection refused)' >&2; exit 3 ;;
  *) echo "$DIGEST" ;;
esac
"""

# This learn's side: knows every flag; a run that crashes exits 1 even with --exit-zero.
LEARN_WITH_THE_FLAG = """#!/bin/sh
printf '%s\\n' "$*" >> "$ARGV_LOG"
case "$*" in *--help*) echo 'Usage: learn run [OPTIONS]'; exit 0 ;; esac
echo "$DIGEST"
[ "$RUN_ENDS" = crashed ] && { echo 'Traceback: boom' >&2; exit 1; }
exit 0
"""


def shell_line(text: str) -> str:
    [line] = re.findall(r"!`([^`]+)`", text)
    return line


def run_line(tmp_path: Path, fake: str | None, ends: str = "ok",
             line: str | None = None) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The command's `!` line run by bash, as Claude Code runs it, with `fake` as the only
    `learn` on PATH (None: no learn at all); the line, and each argv learn was run with."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    if fake is not None:
        (bindir / "learn").write_text(fake)
        (bindir / "learn").chmod(0o755)
    log = tmp_path / "argv.log"
    env = {"PATH": f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path),
           "ARGV_LOG": str(log), "RUN_ENDS": ends, "DIGEST": DIGEST}
    proc = subprocess.run(["/bin/bash", "-c", line or shell_line(command_text())],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    return proc, log.read_text().splitlines() if log.exists() else []


# ---------------------------------------------------------------- the line, older learn


@pytest.mark.parametrize("ends", ["ok", "failed", "no-backend"])
def test_an_older_learn_runs_the_job_once_and_the_line_exits_0_with_the_fix_first(
        tmp_path: Path, ends: str) -> None:
    proc, argv = run_line(tmp_path, OLDER_LEARN, ends)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # The marker first: learn never mines this turn as something the person said.
    assert out.startswith("[learn-digest] This /learn is newer than the learn it runs"), out
    assert "learn install-claude-command --force" in out and "pip install ." in out
    assert "No such option" not in out + proc.stderr  # the probe's refusal is not shown
    assert argv == [PROBE, JOB]  # asked once, and the job run once, without the flag
    if ends == "ok":
        assert out.endswith(f"follows.\n{DIGEST}\n")
    if ends == "failed":
        assert f"{DIGEST}\n\n## What failed\n\n- the judge" in out
    if ends == "no-backend":  # said on stderr: shown, since nothing else says it
        assert "no usable backend" in out
    assert ("exited non-zero" in out) == (ends != "ok")


def test_with_no_learn_on_path_the_line_still_exits_0_and_says_so(tmp_path: Path) -> None:
    proc, argv = run_line(tmp_path, None)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[learn-digest]") and "not on PATH" in proc.stdout
    assert "learn: command not found" in proc.stdout and argv == []


def test_the_words_typed_after_learn_never_reach_the_fallback(tmp_path: Path) -> None:
    """$ARGUMENTS is replaced in the prompt before the `!` lines run: it is not in the
    line, so nothing typed after /learn becomes shell, on either branch."""
    typed = "it's; touch PWNED `touch PWNED` $(touch PWNED) --since 7d"
    line = shell_line(command_text().replace("$ARGUMENTS", typed))
    assert line == shell_line(command_text()) and "$" not in line
    proc, argv = run_line(tmp_path, OLDER_LEARN, line=line)
    assert proc.returncode == 0 and argv == [PROBE, JOB]
    assert not (tmp_path / "PWNED").exists()


# ------------------------------------------------------- the line, a learn with the flag


def test_a_learn_with_the_flag_prints_only_its_digest_and_runs_the_job_once(
        tmp_path: Path) -> None:
    proc, argv = run_line(tmp_path, LEARN_WITH_THE_FLAG)
    assert (proc.returncode, proc.stdout) == (0, DIGEST + "\n"), proc.stderr
    assert argv == [PROBE, f"{JOB} --exit-zero"]


def test_a_run_that_crashes_is_not_run_again_without_the_flag(tmp_path: Path) -> None:
    """A fallback on the job's failure would run it twice (and blame the version)."""
    proc, argv = run_line(tmp_path, LEARN_WITH_THE_FLAG, "crashed")
    assert proc.returncode == 1 and "newer than" not in proc.stdout
    assert argv == [PROBE, f"{JOB} --exit-zero"]


def test_this_learn_takes_the_flag(tmp_path: Path) -> None:
    """This checkout's learn answers the probe: the line runs it with --exit-zero (no
    backend here, so its own one-failure digest, exit 0), never the fallback."""
    this_learn = f'#!/bin/sh\nexec "{sys.executable}" -m learn "$@"\n'
    proc, _ = run_line(tmp_path, this_learn)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[learn-digest]"), proc.stdout
    assert "newer than the learn" not in proc.stdout


# --------------------------------------------------------------- the file, as Claude Code reads it


@pytest.mark.parametrize("path", SHIPPED, ids=["packaged", "plugin"])
def test_the_frontmatter_is_yaml_and_pre_approves_the_whole_line_alone(path: Path) -> None:
    """Claude Code 2.1.332 approves a compound `!` line by an exact rule for the whole
    line (a line with a pipe was split and its parts asked about: checked against the real
    client), and reads the frontmatter as YAML: no `: `, ` #` or `,` in the line."""
    text = path.read_text(encoding="utf-8")
    fields = yaml.safe_load(text.split("---\n")[1])
    line = shell_line(text)
    assert fields["allowed-tools"] == f"Bash({line})"
    assert fields["learn-command-version"] == own_revision() == revision(text.encode())
    assert "|" not in line.replace("||", "") and "$" not in line  # no pipe
    assert shlex.split(line)  # one shell line, quotes balanced


def test_the_revision_is_read_from_the_frontmatter_only() -> None:
    body_quote = b"---\ndescription: mine\n---\nlearn-command-version: 99\n"
    assert revision(body_quote) is None and not is_later(body_quote)
    later = command_text().replace(f"learn-command-version: {own_revision()}\n",
                                   f"learn-command-version: {own_revision() + 1}\n")
    assert revision(later.encode()) == own_revision() + 1 and is_later(later.encode())
    assert not is_later(command_text().encode())
    assert hashlib.sha256(command_text().encode()).hexdigest() not in EARLIER_TEXTS


# ------------------------------------------------- an earlier command file, this learn


@pytest.mark.parametrize("line", [
    "learn run --yes --quiet --backend auto",  # every file before --exit-zero
    "learn run --yes --quiet --backend auto --exit-zero",  # the one before this fallback
])
def test_every_line_an_earlier_command_file_ran_is_one_this_learn_takes(line: str) -> None:
    from learn.commands.run import command as run

    args = shlex.split(line)[2:]
    ctx = run.make_context("run", args)  # click's parse: an unknown option raises here
    assert ctx.params["yes"] and ctx.params["quiet"] and ctx.params["backend"] == "auto"


# ------------------------------------------------------------ doctor and install


def _later_text() -> str:
    newer = own_revision() + 1
    return command_text().replace(f"learn-command-version: {own_revision()}\n",
                                  f"learn-command-version: {newer}\n").replace(
        "--exit-zero", "--exit-zero --a-flag-from-later")


def _put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_doctor_names_a_later_learns_copy_and_says_to_update_learn(tmp_path: Path) -> None:
    later = _put(tmp_path / "project" / ".claude" / "commands" / "learn.md", _later_text())
    _put(tmp_path / "claude" / "commands" / "learn.md", command_text())
    got = check_claude_command(tmp_path / "claude", tmp_path / "project")
    assert got is not None and got.status == "warn", got
    assert f"{later} (revision {own_revision() + 1})" in got.detail
    assert f"from a later learn than this one (revision {own_revision()})" in got.detail
    assert str(tmp_path / "claude") not in got.detail  # the current copy is not blamed
    assert "update learn" in got.hint and "learn install-claude-command --force" in got.hint


def test_doctor_names_an_earlier_and_a_later_copy_together(tmp_path: Path) -> None:
    earlier = (REPO / "tests" / "fixtures" / "claude_21332" / "learn_md_before_exit_zero.md")
    old = _put(tmp_path / "claude" / "commands" / "learn.md", earlier.read_text("utf-8"))
    new = _put(tmp_path / "project" / ".claude" / "commands" / "learn.md", _later_text())
    got = check_claude_command(tmp_path / "claude", tmp_path / "project")
    assert got is not None and got.status == "warn"
    assert f"{old} is an earlier learn's" in got.detail and f"{new} (revision" in got.detail
    assert "updates it" in got.hint and "update learn" in got.hint


def _plugin(claude_home: Path, text: str, enabled: bool = True) -> Path:
    """The learn plugin as `claude plugin install` leaves it (test_commands_doctor)."""
    root = claude_home / "plugins" / "cache" / "learn-local" / "learn" / "0.1.0"
    _put(claude_home / "plugins" / "installed_plugins.json", json.dumps({"version": 2, "plugins": {
        "learn@learn-local": [{"scope": "user", "installPath": str(root)}]}}))
    _put(claude_home / "settings.json", json.dumps({"enabledPlugins": {
        "learn@learn-local": enabled}}))
    return _put(root / "commands" / "learn.md", text)


def test_doctor_names_the_plugins_copy_when_it_is_a_later_learns(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    copy = _plugin(claude, _later_text())
    got = check_claude_command(claude, None)
    assert got is not None and got.status == "warn" and str(copy) in got.detail
    assert "update learn" in got.hint
    _plugin(claude, _later_text(), enabled=False)  # Claude Code does not run it
    assert check_claude_command(claude, None) is None
    _plugin(claude, command_text())  # this learn's: the plugin needs no line of its own
    assert check_claude_command(claude, None) is None


def test_install_refuses_a_later_learns_copy_saying_to_update_learn() -> None:
    own = _put(Path.home() / ".claude" / "commands" / "learn.md", _later_text())
    result = CliRunner().invoke(install, [])
    assert result.exit_code != 0
    assert "a later learn's /learn" in result.output and "Update learn" in result.output
    assert own.read_text(encoding="utf-8") == _later_text()
    result = CliRunner().invoke(install, ["--force"])
    assert result.exit_code == 0, result.output
    assert own.read_text(encoding="utf-8") == command_text()


# ------------------------------------------------------------------- the real Claude Code


@pytest.mark.parametrize("ends", ["ok", "failed"])
def test_claude_code_with_an_older_learn_calls_the_model_with_the_digest_and_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ends: str) -> None:
    """The real client (skipped without it, as test_claude_surfaces_real): before the
    fallback this was "Shell command failed ... No such option: --exit-zero", no model."""
    from test_claude_surfaces_real import QUIET, REQUEST, FailingJudge, _claude, _project

    claude = _claude()
    project, home = _project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    _put(home / ".claude" / "commands" / "learn.md", command_text())
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "learn").write_text(OLDER_LEARN)
    (bindir / "learn").chmod(0o755)
    log = tmp_path / "argv.log"
    fake = FailingJudge()
    with fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env.update(QUIET, HOME=str(home), ANTHROPIC_API_KEY="sk-ant-dummy-for-the-fake",
                   ANTHROPIC_BASE_URL=fake.base_url, ARGV_LOG=str(log), RUN_ENDS=ends,
                   DIGEST=DIGEST, PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
        proc = subprocess.run([str(claude), "-p", f"/learn {REQUEST}", "--output-format",
                               "json", "--model", "claude-haiku-4-5"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Shell command" not in proc.stdout, proc.stdout[-2000:]
    assert fake.conversation, proc.stdout[-2000:]  # the model was called, with the request
    sent = fake.conversation[0]
    assert "This /learn is newer than the learn it runs" in sent and DIGEST in sent
    assert "learn install-claude-command --force" in sent
    assert log.read_text().splitlines() == [PROBE, JOB]
