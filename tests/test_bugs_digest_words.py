"""What the digest, `learn apply --help`, `learn stats` and `learn demo --apply` say is
true where the person is: the config file learn really reads, no pointer into a docs/
folder an installed learn does not have, the stages by the names stderr gives them, the
decline rule as the store applies it, and the demo's own store in the demo's hint."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Funnel, RunResult, RunUsage
from learn.report.digest import WHAT_TO_DO, WHAT_TO_DO_FIRST, empty_reason, render_digest_markdown

REPO = Path(__file__).resolve().parents[1]


def test_the_digest_names_the_config_file_learn_reads(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(tmp_path / "conf"))
    quiet = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(sessions_seen=3))
    said = empty_reason(quiet)
    assert f"[thresholds] in `{tmp_path / 'conf' / 'config.toml'}`" in said
    assert "~/.config/learn" not in said


def test_the_digest_points_to_no_docs_folder_an_installed_learn_lacks() -> None:
    for guide in (WHAT_TO_DO, WHAT_TO_DO_FIRST):
        assert "docs/" not in guide and "`learn demo`" in guide


def test_failed_stages_are_named_as_the_failures_and_progress_name_them() -> None:
    failed = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(sessions_seen=3),
                       failed_stages=("mine", "name", "mine"),
                       failures=("mine: session a: boom", "name: batch 0: boom"))
    md = render_digest_markdown(failed)
    assert "Failed after retries: stages mine, name (see" in md
    assert "mining" not in md and "naming" not in md


def test_dismiss_help_says_what_decline_does() -> None:
    from learn.commands.apply import command as apply_command
    from learn.commands.decline import command as decline_command

    rule = "not proposed again until said in twice as many sessions as when declined"
    for command in (apply_command, decline_command):
        shown = " ".join(CliRunner().invoke(command, ["--help"], terminal_width=400).output.split())
        assert rule in shown, shown


def test_demo_apply_points_to_the_demos_own_store(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    (tmp_path / "home").mkdir(exist_ok=True)

    def learn(*args: str, **over: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "learn", *args], env={**env, **over},
                              cwd=tmp_path / "home", capture_output=True, text=True, timeout=300)

    assert learn("demo").returncode == 0
    applied = learn("demo", "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    nothing = [line for line in applied.stdout.splitlines() if line.startswith("nothing to apply")]
    assert nothing, applied.stdout  # a demo project the judge gave nothing to apply
    assert not any("`learn digest --all` lists every state" in line for line in nothing)
    # The command the hint gives runs, from the person's own shell, on the demo's store.
    given = nothing[0].split("`")[1]
    assert given.startswith("LEARN_DATA_DIR=")
    assignment, *command = shlex.split(given)
    name, value = assignment.split("=", 1)
    listed = learn(*command[1:], **{name: value})
    assert listed.returncode == 0, listed.stderr
    assert "(every state)" in listed.stdout
