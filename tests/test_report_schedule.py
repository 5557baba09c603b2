"""Periodic digests: the shell line really runs learn run; the systemd, cron and launchd
renderings run learn's script holding it, through their own escaping; install is
idempotent and keeps the user's other cron lines."""

from __future__ import annotations

import dataclasses
import os
import plistlib
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.commands import schedule as schedule_cmd
from learn.report.schedule import (
    CRON_TAG,
    ScheduleSpec,
    cron_line,
    job_script,
    launchd_plist,
    merge_crontab,
    shell_line,
    systemd_service,
    systemd_timer,
)


def fake_learn(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "argv.log"
    exe = tmp_path / "bin" / "fake learn"  # a space, to prove the quoting
    exe.parent.mkdir()
    exe.write_text(f'#!/bin/sh\necho "$* | key=$ANTHROPIC_API_KEY" >> {shlex.quote(str(log))}\n')
    exe.chmod(0o755)
    return exe, log


def spec_for(tmp_path: Path, exe: Path, every: str = "weekly") -> ScheduleSpec:
    return ScheduleSpec(every="daily" if every == "daily" else "weekly", learn=(str(exe),),
                        digests_dir=tmp_path / "data dir" / "digests",
                        env_file=tmp_path / "schedule.env", path_env="/usr/bin:/bin")


def test_shell_line_runs_learn_with_todays_digest_file(tmp_path: Path) -> None:
    exe, log = fake_learn(tmp_path)
    spec = spec_for(tmp_path, exe)
    (tmp_path / "schedule.env").write_text("ANTHROPIC_API_KEY=sk-test-from-env-file\n")
    subprocess.run(["/bin/sh", "-c", shell_line(spec)], check=True, timeout=30)
    today = date.today().isoformat()
    assert log.read_text().splitlines() == [
        f"run --yes --quiet --all-projects --since 14d --out {spec.digests_dir}/digest-{today}.md"
        " | key=sk-test-from-env-file"]
    assert spec.digests_dir.is_dir() and spec.digests_dir.stat().st_mode & 0o777 == 0o700


def test_shell_line_one_project_and_exit_status(tmp_path: Path) -> None:
    exe = tmp_path / "learn"
    exe.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/calls\nexit 1\n')
    exe.chmod(0o755)
    spec = dataclasses.replace(spec_for(tmp_path, exe), project=tmp_path / "my proj")
    proc = subprocess.run(["/bin/sh", "-c", shell_line(spec)], timeout=30, check=False)
    assert proc.returncode == 1  # a failed run is a failed job
    assert f"--project {tmp_path}/my proj --since" in (tmp_path / "calls").read_text()


def _systemd_unquote(value: str) -> list[str]:
    # systemd: %% -> %, $$ -> $, then C-style double-quote parsing (close to POSIX shlex).
    return shlex.split(value.replace("%%", "%").replace("$$", "$"))


def test_systemd_units_carry_the_line_and_schedule(tmp_path: Path) -> None:
    exe, _ = fake_learn(tmp_path)
    spec = spec_for(tmp_path, exe)
    service = systemd_service(spec)
    exec_start = re.search(r"^ExecStart=(.*)$", service, re.M)
    assert exec_start is not None
    assert _systemd_unquote(exec_start.group(1)) == ["/bin/sh", str(spec.script)]
    assert "Type=oneshot" in service
    assert "OnCalendar=Mon *-*-* 09:00:00" in systemd_timer(spec)
    assert "OnCalendar=*-*-* 09:00:00" in systemd_timer(spec_for(tmp_path, exe, "daily"))
    assert "Persistent=true" in systemd_timer(spec)


def test_cron_line_escapes_percent_and_runs(tmp_path: Path) -> None:
    exe, log = fake_learn(tmp_path)
    spec = spec_for(tmp_path, exe, "daily")
    line = cron_line(spec)
    fields = line.split(" ", 5)
    assert fields[:5] == ["0", "9", "*", "*", "*"]
    assert cron_line(spec_for(tmp_path, exe)).split(" ", 5)[4] == "1"
    command = fields[5]
    assert "%" not in command.replace("\\%", "")
    spec.script.write_text(job_script(spec))  # what --install writes beside schedule.env
    # What cron hands to /bin/sh (it un-escapes \%): runs the script, which logs to the
    # digests dir.
    subprocess.run(["/bin/sh", "-c", command.replace("\\%", "%")], check=True, timeout=30)
    assert len(log.read_text().splitlines()) == 1
    assert (spec.digests_dir / "schedule.log").exists()


def test_merge_crontab_is_idempotent_and_keeps_other_lines() -> None:
    mine = f"0 9 * * 1 mkdir -p -m 700 d && ( exec learn run --yes --quiet ) {CRON_TAG}"
    base = "MAILTO=me@example.org\n0 1 * * * backup.sh\n"
    once = merge_crontab(base, mine)
    assert once == base + mine + "\n"
    assert merge_crontab(once, mine) == once
    assert merge_crontab(once, None) == base


def test_launchd_plist(tmp_path: Path) -> None:
    exe, _ = fake_learn(tmp_path)
    spec = spec_for(tmp_path, exe)
    data = plistlib.loads(launchd_plist(spec).encode())
    assert data["ProgramArguments"] == ["/bin/sh", str(spec.script)]
    assert data["StartCalendarInterval"] == {"Hour": 9, "Minute": 0, "Weekday": 1}


class FakeRunner:
    def __init__(self, crontab: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.crontab = crontab

    def __call__(self, argv: Sequence[str], stdin: str | None) -> tuple[int, str, str]:
        self.calls.append(list(argv))
        if list(argv) == ["crontab", "-l"]:
            return (0, self.crontab, "") if self.crontab is not None else \
                (1, "", "no crontab for me")
        if list(argv) == ["crontab", "-"]:
            self.crontab = stdin
        return 0, "", ""


def test_install_systemd_writes_units_and_enables(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRunner()
    monkeypatch.setattr(schedule_cmd, "runner", fake)
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: True)
    res = CliRunner().invoke(schedule_cmd.command, ["--daily", "--install"])
    assert res.exit_code == 0, res.output
    unit_dir = Path(os.environ["HOME"]) / ".config" / "systemd" / "user"
    script = Path(os.environ["HOME"]) / ".config" / "learn" / "learn-digest.sh"
    assert f'/bin/sh "{script}"' in (unit_dir / "learn-digest.service").read_text()
    # The job reads twice its period: a day missed is in the next digest.
    assert (f"{sys.executable} -P -m learn run --yes --quiet --all-projects --since 2d"
            in script.read_text())
    assert "OnCalendar=*-*-* 09:00:00" in (unit_dir / "learn-digest.timer").read_text()
    assert ["systemctl", "--user", "enable", "--now", "learn-digest.timer"] in fake.calls
    res = CliRunner().invoke(schedule_cmd.command, ["--remove"])
    assert res.exit_code == 0 and not (unit_dir / "learn-digest.timer").exists()


def test_print_only_installs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRunner()
    monkeypatch.setattr(schedule_cmd, "runner", fake)
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: True)
    res = CliRunner().invoke(schedule_cmd.command, [])
    assert res.exit_code == 0 and "[Timer]" in res.output and "OnCalendar=Mon" in res.output
    assert fake.calls == []
    assert not (Path(os.environ["HOME"]) / ".config" / "systemd").exists()


def test_install_cron_twice_keeps_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRunner()
    monkeypatch.setattr(schedule_cmd, "runner", fake)
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: False)
    monkeypatch.setattr(schedule_cmd, "has_cron", lambda: True)
    for _ in range(2):
        res = CliRunner().invoke(schedule_cmd.command, ["--weekly", "--install"])
        assert res.exit_code == 0, res.output
    assert fake.crontab is not None
    assert fake.crontab.count(CRON_TAG) == 1
    res = CliRunner().invoke(schedule_cmd.command, ["--remove"])
    assert res.exit_code == 0 and fake.crontab == ""


def test_launchd_install_refused_off_macos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule_cmd.sys, "platform", "linux")
    res = CliRunner().invoke(schedule_cmd.command, ["--launchd", "--install"])
    assert res.exit_code != 0 and "macOS only" in res.output
    res = CliRunner().invoke(schedule_cmd.command, ["--launchd"])
    assert res.exit_code == 0 and "<key>StartCalendarInterval</key>" in res.output


def _print_job(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(schedule_cmd, "runner", FakeRunner())
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: True)
    res = CliRunner().invoke(schedule_cmd.command, [])
    assert res.exit_code == 0, res.output
    return res.output


def test_schedule_warns_when_the_job_would_have_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # A key in this shell is not a key in the job: systemd and cron start it without.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-in-my-shell-only")
    env_file = Path(os.environ["HOME"]) / ".config" / "learn" / "schedule.env"
    out = _print_job(monkeypatch)
    assert "learn schedule: warning: the job runs the anthropic backend" in out
    assert f"put ANTHROPIC_API_KEY=… in {env_file}" in out
    env_file.parent.mkdir(parents=True)
    env_file.write_text("# the digest job's key\nexport ANTHROPIC_API_KEY='sk-ant-x'\n")
    assert "warning" not in _print_job(monkeypatch)


def test_schedule_warns_when_claude_is_not_on_the_jobs_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakes.claude_stub import write_claude_stub

    config = Path(os.environ["HOME"]) / ".config" / "learn" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[backend]\nname = "claude-cli"\n')
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    out = _print_job(monkeypatch)
    assert "the job runs the claude-cli backend, and `claude` is not on the job's PATH" in out
    stub = write_claude_stub(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(stub.path.parent))
    assert "warning" not in _print_job(monkeypatch)
