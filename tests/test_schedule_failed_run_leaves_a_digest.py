"""A scheduled run that fails still leaves a digest saying why, and doctor says it (audit60 F1).

Every way the job could fail before its digest (no key in schedule.env, an endpoint that
does not answer, a `learn run` holding the lock) left no digest file, only a line in a log
nobody reads: the weekly digest stopped arriving and nothing said why. Now `learn run
--out` writes the "could not run" digest there too (the exit code kept), in the job the
missing key's fix names the job's schedule.env, and `learn doctor` warns about a job whose
last run failed or that has not run. Real `learn` subprocesses, real files, a fake
`crontab`, the job run as cron runs it (`env -i`, `/bin/sh -c`); no network.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_schedule_audit import FAKE_CRONTAB, cron_hands_sh

from learn.commands import schedule as schedule_cmd
from learn.doctor_schedule import check_schedule
from learn.lock import run_lock

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--yes", "--quiet"]


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
               PYTHONPATH=str(REPO), **extra)
    (root / "home").mkdir(parents=True, exist_ok=True)
    return env


def _learn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------ learn run --out


def test_a_run_with_no_key_writes_the_could_not_run_digest_to_out_and_keeps_its_exit(
        tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    done = _learn([*RUN, "--out", str(out)], _env(tmp_path))
    assert done.returncode == 2, done.stderr
    text = out.read_text()
    assert text.startswith("[learn-digest] learn run could not run")
    assert "## What failed" in text and "ANTHROPIC_API_KEY is not set" in text
    assert "export ANTHROPIC_API_KEY" in text  # a person at a terminal: export it


def test_in_the_scheduled_job_the_missing_keys_fix_names_schedule_env(tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    done = _learn([*RUN, "--out", str(out)], _env(tmp_path, LEARN_SCHEDULED_JOB="1"))
    assert done.returncode == 2
    env_file = tmp_path / "config" / "schedule.env"
    for said in (out.read_text(), done.stderr):
        assert f"put ANTHROPIC_API_KEY=sk-ant-… in {env_file}" in said, said
        assert "export ANTHROPIC_API_KEY" not in said


def test_an_endpoint_that_does_not_answer_leaves_a_digest_and_exit_3(tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    env = _env(tmp_path, ANTHROPIC_API_KEY="test-key",
               ANTHROPIC_BASE_URL=f"http://127.0.0.1:{_closed_port()}")
    done = _learn([*RUN, "--out", str(out)], env)
    assert done.returncode == 3, done.stderr
    assert "## What failed" in out.read_text() and "anthropic" in out.read_text()
    assert "test-key" not in out.read_text()


def test_a_run_that_finds_the_lock_held_leaves_a_digest_saying_so_and_exit_75(
        tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    env = _env(tmp_path, LEARN_LOCK_TIMEOUT="0")
    # Offline: no backend to set up, so the run gets as far as the lock.
    with run_lock(directory=tmp_path / "data"):
        done = _learn([*RUN, "--offline", "--embedder", "tfidf", "--out", str(out)], env)
    assert done.returncode == 75, done.stderr
    text = out.read_text()
    assert text.startswith("[learn-digest] learn run could not run")
    assert "another learn run is in progress" in text


def test_an_out_file_learn_refuses_gets_nothing_not_even_the_failure(tmp_path: Path) -> None:
    env = _env(tmp_path)
    refused = tmp_path / "home" / ".claude" / "CLAUDE.md"
    refused.parent.mkdir(parents=True)
    done = _learn([*RUN, "--out", str(refused)], env)
    assert done.returncode == 2 and "refusing to write" in done.stderr
    assert not refused.exists()


# ------------------------------------------------------------------ the installed job


@pytest.fixture
def fake_crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bindir, kept = tmp_path / "fakebin", tmp_path / "kept"
    bindir.mkdir()
    kept.mkdir()
    (bindir / "crontab").write_text(FAKE_CRONTAB)
    (bindir / "crontab").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}/usr/bin:/bin")
    monkeypatch.setenv("FAKE_STORE", str(kept))
    monkeypatch.setattr(schedule_cmd, "runner", schedule_cmd._run)
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: False)
    monkeypatch.setattr(schedule_cmd.sys, "platform", "linux")
    # The job runs this checkout's learn (cron does not carry PYTHONPATH).
    monkeypatch.setattr(schedule_cmd, "learn_argv",
                        lambda: ["/usr/bin/env", f"PYTHONPATH={REPO}", sys.executable, "-P",
                                 "-m", "learn"])
    return kept


def test_the_installed_job_with_no_key_leaves_a_digest_a_log_line_and_a_doctor_warning(
        fake_crontab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, config = tmp_path / "data", tmp_path / "config"
    monkeypatch.setenv("LEARN_DATA_DIR", str(data))
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(config))
    res = CliRunner().invoke(schedule_cmd.command, ["--install"])
    assert res.exit_code == 0, res.output
    [line] = (fake_crontab / "crontab").read_text().splitlines()
    assert check_schedule(config, data) is not None  # installed: doctor looks at it
    done = subprocess.run(["env", "-i", f"HOME={os.environ['HOME']}", "SHELL=/bin/sh",
                           "PATH=/usr/bin:/bin", "/bin/sh", "-c", cron_hands_sh(line)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    [digest] = (data / "digests").glob("digest-*.md")
    env_file = config / "schedule.env"
    assert "learn run could not run" in digest.read_text()
    assert f"put ANTHROPIC_API_KEY=sk-ant-… in {env_file}" in digest.read_text()
    log = (data / "digests" / "schedule.log").read_text().splitlines()
    assert log[-1].startswith("learn-digest: ") and log[-1].endswith(" exit 2"), log
    check = check_schedule(config, data)
    assert check is not None and check.status == "warn"
    assert "failed (exit 2)" in check.detail and str(env_file) in check.detail
    # Once it works again, doctor is content.
    (data / "digests" / "schedule.log").write_text("learn-digest: 2026-01-05T09:00:03 exit 0\n")
    ok = check_schedule(config, data)
    assert ok is not None and ok.status == "ok" and digest.name in ok.detail


def _installed(config: Path, every: str = "weekly") -> Path:
    config.mkdir(parents=True)
    script = config / "learn-digest.sh"
    script.write_text("#!/bin/sh\n# Written by learn schedule, which replaces or removes this "
                      f"file.\n# every={every}\n")
    return script


@pytest.mark.parametrize("every, days, stale", [("weekly", 7.5, False), ("weekly", 8.5, True),
                                                ("daily", 1.5, False), ("daily", 2.5, True)])
def test_doctor_warns_when_the_newest_digest_is_older_than_the_period_and_a_day(
        tmp_path: Path, every: str, days: float, stale: bool) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    script = _installed(config, every)
    digests = data / "digests"
    digests.mkdir(parents=True)
    digest = digests / "digest-2026-01-05.md"
    digest.write_text("[learn-digest] ...\n")
    now = time.time()
    os.utime(digest, (now - days * 86400, now - days * 86400))
    os.utime(script, (now - 60 * 86400, now - 60 * 86400))
    check = check_schedule(config, data, now=now)
    assert check is not None
    assert check.status == ("warn" if stale else "ok"), check
    if stale:
        assert "digest-2026-01-05.md" in check.detail and "has not run" in check.detail
        assert f"learn schedule --{every} --install" in check.hint


def test_doctor_says_nothing_without_an_installed_job_and_warns_when_none_ever_ran(
        tmp_path: Path) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    assert check_schedule(config, data) is None
    script = _installed(config)
    now = time.time()
    assert check_schedule(config, data, now=now).status == "ok"  # type: ignore[union-attr]
    os.utime(script, (now - 9 * 86400, now - 9 * 86400))
    check = check_schedule(config, data, now=now)
    assert check is not None and check.status == "warn" and "no digest in 9 days" in check.detail


def test_doctor_names_a_job_whose_python_is_gone(tmp_path: Path) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    _installed(config)
    (data / "digests").mkdir(parents=True)
    (data / "digests" / "schedule.log").write_text(
        "learn-digest: 2026-01-05T09:00:01+0000 exit 0\n"
        "/bin/sh: 1: exec: /home/me/venv/bin/python3: not found\n"
        "learn-digest: 2026-01-12T09:00:01+0000 exit 127\n")
    check = check_schedule(config, data)
    assert check is not None and check.status == "warn"
    assert "exit 127" in check.detail and "python3: not found" in check.detail


def test_doctor_never_prints_a_key_the_log_holds(tmp_path: Path) -> None:
    # A schedule.env line with a space after `=` runs the key as a command: the shell's
    # "not found" quotes it into the log, and doctor quoted the log (audit 60).
    config, data = tmp_path / "config", tmp_path / "data"
    _installed(config)
    (data / "digests").mkdir(parents=True)
    key = "sk-ant-api03-" + "Ab3dEf6hIj9kLm" * 6 + "-AbCdEfAA"
    (data / "digests" / "schedule.log").write_text(
        f"/bin/sh: 2: {key}: not found\n"
        "learn-digest: 2026-01-12T09:00:01+0000 exit 137\n")
    check = check_schedule(config, data)
    assert check is not None and check.status == "warn" and "exit 137" in check.detail
    assert "Ab3dEf6hIj9kLm" not in check.detail


def test_learn_doctor_shows_the_schedules_line(tmp_path: Path) -> None:
    from learn.cli import cli

    config = Path(os.environ["HOME"]) / ".config" / "learn"
    _installed(config)
    now = time.time()
    os.utime(config / "learn-digest.sh", (now - 9 * 86400, now - 9 * 86400))
    result = CliRunner().invoke(cli, ["doctor"], catch_exceptions=False)
    [line] = [x for x in result.output.splitlines() if x[2:].startswith("schedule ")]
    assert line.startswith("!") and "no digest in 9 days" in line, result.output


def test_a_job_waits_for_the_network_and_never_for_a_refused_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A laptop's job runs at wake, before the network is up: the preflight failed in 0.4 s
    # and the week's digest was lost. With LEARN_PREFLIGHT_WAIT the check is asked again
    # while nothing answers; an answer that says no is not waited on.
    from learn.commands import run as run_cmd
    from learn.models import preflight
    from learn.models.preflight import Readiness

    answers = [Readiness(False, "anthropic: nothing answers", problem="unavailable",
                         network=True)] * 2 + [Readiness(True, "anthropic: answers")]
    asked: list[int] = []

    def check(name: str, config: object) -> Readiness:
        asked.append(1)
        return answers[len(asked)]

    slept: list[float] = []
    monkeypatch.setattr(preflight, "check_backend_ready", check)
    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setenv("LEARN_PREFLIGHT_WAIT", "600")
    got = run_cmd._network_waited(answers[0], "anthropic", None)
    assert got.ok and slept == [10.0, 20.0]
    refused = Readiness(False, "anthropic: refused the API key (HTTP 401)", problem="unavailable")
    slept.clear()
    assert run_cmd._network_waited(refused, "anthropic", None) is refused and slept == []
    monkeypatch.delenv("LEARN_PREFLIGHT_WAIT")
    assert run_cmd._network_waited(answers[0], "anthropic", None) is answers[0] and slept == []
