"""Two gaps of the periodic digest: a systemd timer that cannot fire, a failure over a digest.

A systemd *user* timer fires only while its user's manager runs, which without lingering
is only while the user is logged in: `learn schedule --install` and `learn doctor` said
nothing, and on a machine reached by ssh now and then the digest simply stopped. And a
run that stopped before its digest wrote its "could not run" digest over the digest a
run had written earlier the same day. Real files, the job's real script run by /bin/sh,
fake `systemctl`/`crontab` (tests/test_schedule_audit.py); one run of the real `learn`.
"""

from __future__ import annotations

import os
import pwd
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_schedule_audit import schedule, store  # noqa: F401  (store: a fixture)

from learn.commands.run import _write_failure, not_run_digest
from learn.doctor_schedule import check_schedule
from learn.report import schedule as schedule_mod
from learn.report.schedule import (
    FAILED_SUFFIX,
    STOPPED_HEADS,
    ScheduleSpec,
    job_script,
    systemd_timer,
)

REPO = Path(__file__).resolve().parents[1]
ME = pwd.getpwuid(os.getuid()).pw_name


# ------------------------------------------------------------------ lingering


@pytest.fixture
def linger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty linger folder in place of /var/lib/systemd/linger: lingering off."""
    folder = tmp_path / "linger"
    folder.mkdir()
    monkeypatch.setattr(schedule_mod, "LINGER_DIR", folder)
    return folder


def test_installing_the_systemd_timer_without_lingering_warns_with_the_fix(
        store: Path, linger: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code == 0, res.output
    assert "installed" in res.output
    [warning] = [x for x in res.output.splitlines() if "lingering is off" in x]
    assert warning.startswith("learn schedule: warning: ")
    assert f"loginctl enable-linger {ME}" in warning


def test_installing_the_systemd_timer_with_lingering_on_says_nothing_of_it(
        store: Path, linger: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    (linger / ME).touch()
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code == 0, res.output
    assert "linger" not in res.output


def test_a_crontab_line_runs_with_nobody_logged_in_so_no_linger_warning(
        store: Path, linger: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    res = schedule(monkeypatch, "--install", "--cron", systemd=True)
    assert res.exit_code == 0, res.output
    assert "linger" not in res.output


def _job(config: Path, units: Path | None) -> None:
    """learn's job script in `config`, and its systemd timer in `units` when given."""
    config.mkdir(parents=True)
    (config / "learn-digest.sh").write_text(
        "#!/bin/sh\n# Written by learn schedule, which replaces or removes this file.\n"
        "# every=weekly\n")
    if units is not None:
        units.mkdir(parents=True)
        spec = ScheduleSpec(every="weekly", learn=("learn",), digests_dir=Path("/d"),
                            env_file=config / "schedule.env")
        (units / "learn-digest.timer").write_text(systemd_timer(spec))


def test_doctor_says_a_systemd_timer_without_lingering_runs_only_while_logged_in(
        tmp_path: Path, linger: Path) -> None:
    config, data, units = tmp_path / "config", tmp_path / "data", tmp_path / "units"
    _job(config, units)
    check = check_schedule(config, data, unit_dir=units)
    assert check is not None and check.status == "warn", check
    assert f"lingering is off for {ME}" in check.detail
    assert f"loginctl enable-linger {ME}" in check.hint
    (linger / ME).touch()
    check = check_schedule(config, data, unit_dir=units)
    assert check is not None and check.status == "ok", check
    assert "linger" not in check.detail + check.hint


def test_doctor_adds_the_linger_fix_to_a_timer_that_has_not_run(
        tmp_path: Path, linger: Path) -> None:
    config, data, units = tmp_path / "config", tmp_path / "data", tmp_path / "units"
    _job(config, units)
    now = time.time()
    os.utime(config / "learn-digest.sh", (now - 9 * 86400, now - 9 * 86400))
    check = check_schedule(config, data, now=now, unit_dir=units)
    assert check is not None and check.status == "warn" and "has not run" in check.detail
    assert f"loginctl enable-linger {ME}" in check.hint


@pytest.mark.parametrize("timer", ["none", "not learn's"])
def test_doctor_says_nothing_of_lingering_for_a_job_that_is_not_learns_timer(
        tmp_path: Path, linger: Path, timer: str) -> None:
    config, data, units = tmp_path / "config", tmp_path / "data", tmp_path / "units"
    _job(config, None)  # cron or launchd: no timer of learn's
    if timer == "not learn's":
        units.mkdir()
        (units / "learn-digest.timer").write_text("[Timer]\nOnCalendar=daily\n")
    check = check_schedule(config, data, unit_dir=units)
    assert check is not None and check.status == "ok", check


# ------------------------------------------------------------------ a failure beside a digest


def test_the_heads_the_job_tells_a_failure_by_are_the_ones_learn_run_writes() -> None:
    for began in (False, True):
        text = not_run_digest("no key", began=began)
        assert text.startswith(STOPPED_HEADS), text


def _spec(tmp_path: Path, learn: tuple[str, ...]) -> ScheduleSpec:
    spec = ScheduleSpec(every="daily", learn=learn, digests_dir=tmp_path / "data" / "digests",
                        env_file=tmp_path / "config" / "schedule.env", path_env="/usr/bin:/bin")
    spec.script.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    spec.script.write_text(job_script(spec))
    return spec


def _run_job(spec: ScheduleSpec) -> int:
    env = {"HOME": str(spec.env_file.parent), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["/bin/sh", str(spec.script)], env=env, timeout=60,
                          check=False).returncode


def _today(spec: ScheduleSpec) -> tuple[Path, Path]:
    day = time.strftime("%Y-%m-%d")
    return (spec.digests_dir / f"digest-{day}.md",
            spec.digests_dir / f"digest-{day}{FAILED_SUFFIX}")


GOOD = "[learn-digest] Read 12 sessions in 2 projects.\n\n## Directives\n"


def test_a_failure_after_a_good_digest_goes_beside_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    digest = tmp_path / "digest-2026-12-06.md"
    digest.write_text(GOOD)
    failure = not_run_digest("ANTHROPIC_API_KEY is not set")
    _write_failure(digest, failure)
    assert digest.read_text() == GOOD
    beside = tmp_path / f"digest-2026-12-06{FAILED_SUFFIX}"
    assert beside.read_text() == failure
    assert str(beside) in capsys.readouterr().err
    # Another --out name keeps its suffix: notes.txt -> notes.failed.txt.
    other = tmp_path / "notes.txt"
    other.write_text("my own notes\n")
    _write_failure(other, failure)
    assert other.read_text() == "my own notes\n"
    assert (tmp_path / "notes.failed.txt").read_text() == failure


def test_a_failure_with_no_digest_there_is_the_digest(tmp_path: Path) -> None:
    digest = tmp_path / "digest-2026-12-06.md"
    beside = tmp_path / f"digest-2026-12-06{FAILED_SUFFIX}"
    failure = not_run_digest("another learn run is in progress")
    _write_failure(digest, failure)
    assert digest.read_text() == failure and not beside.exists()
    # A second failure replaces the first (no digest lost), as does an empty file.
    again = not_run_digest("ANTHROPIC_API_KEY is not set", began=True)
    _write_failure(digest, again)
    assert digest.read_text() == again and not beside.exists()
    digest.write_text("")
    _write_failure(digest, failure)
    assert digest.read_text() == failure and not beside.exists()


def test_a_failure_never_reads_a_fifo_named_as_the_digest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "digest.md"
    os.mkfifo(fifo)
    _write_failure(fifo, not_run_digest("no key"))  # returns: refused, said, never blocks
    assert "--out" in capsys.readouterr().err


def test_the_job_keeps_the_last_52_failures_as_it_keeps_digests(tmp_path: Path) -> None:
    spec = _spec(tmp_path, ("/bin/true",))
    spec.digests_dir.mkdir(parents=True)
    names = [f"digest-{2020 + i // 12}-{i % 12 + 1:02d}-01{FAILED_SUFFIX}" for i in range(60)]
    for name in names:
        (spec.digests_dir / name).write_text("x\n")
    _run_job(spec)
    left = sorted(p.name for p in spec.digests_dir.glob(f"*{FAILED_SUFFIX}"))
    assert left == sorted(names[-schedule_mod.KEEP_DIGESTS:])


def test_the_real_learn_run_without_a_key_leaves_the_mornings_digest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    learn = ("/usr/bin/env", f"PYTHONPATH={REPO}", sys.executable, "-P", "-m", "learn")
    spec = ScheduleSpec(every="daily", learn=learn, digests_dir=tmp_path / "data" / "digests",
                        env_file=tmp_path / "config" / "schedule.env", path_env="/usr/bin:/bin",
                        env=(("LEARN_DATA_DIR", str(tmp_path / "data")),
                             ("LEARN_CONFIG_DIR", str(tmp_path / "config")),
                             ("LEARN_CACHE_DIR", str(tmp_path / "cache"))))
    spec.script.parent.mkdir(parents=True, mode=0o700)
    spec.script.write_text(job_script(spec))
    digest, failed = _today(spec)
    spec.digests_dir.mkdir(parents=True, mode=0o700)
    digest.write_text(GOOD)
    done = subprocess.run(["env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin", "/bin/sh",
                           "-c", f"/bin/sh {shlex.quote(str(spec.script))}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, (spec.digests_dir / "schedule.log").read_text()
    assert digest.read_text() == GOOD
    assert failed.read_text().startswith("[learn-digest] learn run could not run")
