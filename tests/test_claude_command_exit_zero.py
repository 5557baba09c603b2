"""`learn run --exit-zero`, /learn's line: Claude Code 2.1.332 drops a slash command whose
`!` line exits non-zero (the model never called, the digest and the words typed after
/learn lost), which is what a run with one failed stage (exit 1) or no usable backend
(exit 3) did to /learn. With the flag the run says what failed on stdout and exits 0; a
plain `learn run` keeps its codes for scripts. And a learn.md an earlier learn installed
(the line without the flag) is brought up to date by `learn install-claude-command`.
"""

from __future__ import annotations

import hashlib
import re
import socket
from pathlib import Path

from click.testing import CliRunner
from fakes.http_server import RecordedRequest, Reply
from test_e2e_robust import FaultyServer
from test_e2e_run import _env, _learn

from evals.corpora import demo
from learn.commands.install_claude_command import command as install
from learn.report.claude_command import EARLIER_TEXTS, command_text

REPO = Path(__file__).resolve().parents[1]
SHIPPED = (REPO / "learn" / "report" / "claude_command.md",
           REPO / "integrations" / "claude-code" / "commands" / "learn.md")
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"]


class FailingJudge(FaultyServer):
    """The oracle, except that every judge call fails: the run still reports the rest."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.tool_name == "record_verdicts":
            return self.error_reply(400, message="the judge is down in this test")
        return super().default_reply(request)


def test_a_failed_stage_is_exit_1_plainly_and_exit_0_with_what_failed_in_the_digest(
        tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    with FailingJudge(gold) as fake:
        plain = _learn(RUN, _env(root, fake))
        for_command = _learn([*RUN, "--exit-zero"], _env(root, fake))
    assert plain.returncode == 1, plain.stderr
    assert for_command.returncode == 0, for_command.stderr
    for done in (plain, for_command):
        assert done.stdout.startswith("[learn-digest]")
        failed = done.stdout.partition("## What failed")[2]
        assert "judge" in failed, done.stdout[-1500:]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_usable_backend_is_exit_3_plainly_and_a_digest_of_the_failure_with_the_flag(
        tmp_path: Path) -> None:
    root = tmp_path / "home"
    with FailingJudge(demo.build(root)) as fake:
        env = _env(root, fake)
    env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{_closed_port()}"  # nobody answers
    plain = _learn([*RUN, "--backend", "auto"], env)
    for_command = _learn([*RUN, "--backend", "auto", "--exit-zero"], env)
    assert plain.returncode == 3 and plain.stdout == "", plain.stderr
    assert for_command.returncode == 0, for_command.stderr
    assert for_command.stdout.startswith("[learn-digest] learn run could not run")
    assert "## What failed" in for_command.stdout and "anthropic" in for_command.stdout


def test_exit_zero_and_json_are_one_or_the_other(tmp_path: Path) -> None:
    from learn.commands.run import command as run

    result = CliRunner().invoke(run, ["--exit-zero", "--json", "--offline"])
    assert result.exit_code == 2
    assert "--exit-zero" in result.output


def test_the_flag_is_documented() -> None:
    from learn.commands.run import command as run

    result = CliRunner().invoke(run, ["--help"])
    assert "--exit-zero" in result.output and "/learn" in result.output


def test_the_command_runs_its_line_with_the_flag_and_pre_approves_exactly_that() -> None:
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8")
        [line] = re.findall(r"!`([^`]+)`", text)
        # A learn that knows the flag runs exactly this (an older one falls back:
        # tests/test_claude_command_skew.py).
        assert "then learn run --yes --quiet --backend auto --exit-zero;" in line
        assert f"allowed-tools: Bash({line})\n" in text


def test_an_earlier_learns_command_file_is_updated_without_force() -> None:
    own = Path.home() / ".claude" / "commands" / "learn.md"
    own.parent.mkdir(parents=True)
    old = (REPO / "tests" / "fixtures" / "claude_21332" / "learn_md_before_exit_zero.md")
    own.write_bytes(old.read_bytes())
    assert hashlib.sha256(old.read_bytes()).hexdigest() in EARLIER_TEXTS
    result = CliRunner().invoke(install, [])
    assert result.exit_code == 0, result.output
    assert "updated" in result.output
    assert own.read_text(encoding="utf-8") == command_text()
    backups = [p for p in own.parent.parent.rglob("*") if p.is_file() and p != own
               and p.read_bytes() == old.read_bytes()]
    assert backups or "backed up" in result.output


def test_somebody_elses_learn_md_is_still_refused_without_force() -> None:
    own = Path.home() / ".claude" / "commands" / "learn.md"
    own.parent.mkdir(parents=True)
    own.write_text("my own /learn: summarise what I learned today\n", encoding="utf-8")
    result = CliRunner().invoke(install, [])
    assert result.exit_code != 0
    assert own.read_text(encoding="utf-8").startswith("my own /learn")


def test_the_shipped_text_is_not_an_earlier_one() -> None:
    assert hashlib.sha256(command_text().encode()).hexdigest() not in EARLIER_TEXTS
