"""The job as a script of learn's, run by whichever scheduler holds it (audit60 F2-F7, F10).

- The crontab line repeated every folder and the whole PATH: 892 to 1118 bytes, and
  Debian's, macOS's and FreeBSD's cron keep 999, silently. Now the line runs
  `<config>/learn-digest.sh` (0700, learn's header), and a line still over 999 is refused.
- The job did not see CLAUDE_CONFIG_DIR (and the other agents' folders): its digest
  covered Codex alone, exit 0. A gateway URL or proxy set now is said at install.
- A run in progress at the job's hour cost that week's digest (a 10 s lock wait).
- `--remove` left a `--cron` line running where systemd had appeared; an install into
  one scheduler left learn's job in another (two jobs, one failing on the other's lock).
- macOS got cron, not launchd; launchd's log folder did not exist at its first run.
- schedule.log grew forever; the digests too.
Fake `crontab`, `systemctl`, `launchctl` on PATH (tests/test_schedule_audit.py), real files.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_schedule_audit import FAKE_CRONTAB, FAKE_LOGGER, cron_hands_sh

from learn.commands import schedule as schedule_cmd
from learn.report.schedule import (
    KEEP_DIGESTS,
    MAX_CRON_COMMAND,
    OWNED,
    ScheduleSpec,
    cron_is_ours,
    job_script,
)

SEEN = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "LEARN_LOCK_TIMEOUT",
        "LEARN_SCHEDULED_JOB", "ANTHROPIC_BASE_URL")


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake schedulers on PATH keeping what they are given; a fake learn that writes down
    its arguments and the variables it was started with."""
    bindir, store = tmp_path / "fakebin", tmp_path / "kept"
    bindir.mkdir()
    store.mkdir()
    for name, text in (("crontab", FAKE_CRONTAB), ("systemctl", FAKE_LOGGER),
                       ("launchctl", FAKE_LOGGER)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    exe = bindir / "fake learn"
    exe.write_text("#!/bin/sh\n{ " + "".join(f'printf "%s\\n" "{v}=${{{v}-unset}}"; '
                                             for v in SEEN)
                   + 'printf "%s\\n" "$@"; } > ' + shlex.quote(str(store / "seen")) + "\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}/usr/bin:/bin")
    monkeypatch.setenv("FAKE_STORE", str(store))
    monkeypatch.setattr(schedule_cmd, "runner", schedule_cmd._run)
    monkeypatch.setattr(schedule_cmd, "learn_argv", lambda: [str(exe)])
    monkeypatch.setattr(schedule_cmd.sys, "platform", "linux")
    return store


def schedule(monkeypatch: pytest.MonkeyPatch, *args: str, systemd: bool = False) -> Result:
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: systemd)
    return CliRunner().invoke(schedule_cmd.command, list(args))


def home() -> Path:
    return Path(os.environ["HOME"])


def script() -> Path:
    return home() / ".config" / "learn" / "learn-digest.sh"


def units() -> list[Path]:
    folder = home() / ".config" / "systemd" / "user"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def crontab(kept: Path) -> str:
    path = kept / "crontab"
    return path.read_text() if path.exists() else ""


def run_as_cron(line: str, kept: Path) -> dict[str, str]:
    """The line as cron runs it (env -i, /bin/sh -c); what the fake learn saw."""
    done = subprocess.run(["env", "-i", f"HOME={home()}", "SHELL=/bin/sh", "PATH=/usr/bin:/bin",
                           "/bin/sh", "-c", cron_hands_sh(line)], capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    lines = (kept / "seen").read_text().splitlines()
    seen = dict(x.split("=", 1) for x in lines if x.split("=", 1)[0] in SEEN)
    seen["--since"] = lines[lines.index("--since") + 1]
    return seen


# ------------------------------------------------------------------ F2: a script, a short line


def test_the_crontab_line_runs_learns_script_and_stays_short_with_a_long_path(
        kept: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    desktop = ":".join(f"/home/alice/.local/share/tool{i}/bin" for i in range(20))
    monkeypatch.setenv("PATH", f"{os.environ['PATH']}:{desktop}")
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "learn work data"))
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code == 0, res.output
    [line] = crontab(kept).splitlines()
    assert cron_is_ours(line)
    assert line == f"0 9 * * 1 /bin/sh {shlex.quote(str(script()))} # learn-digest"
    assert len(line.split(" ", 5)[5].encode()) < 200
    text = script().read_text()
    assert text.startswith(f"#!/bin/sh\n# {OWNED}\n")
    assert stat.S_IMODE(script().stat().st_mode) == 0o700
    assert desktop in text  # the PATH is in the script, not in the line
    run_as_cron(line, kept)
    assert (tmp_path / "learn work data" / "digests" / "schedule.log").exists()


def test_a_reinstall_rewrites_the_script_and_remove_removes_it(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert schedule(monkeypatch, "--cron", "--install").exit_code == 0
    assert "# every=weekly" in script().read_text()
    script().chmod(0o755)
    res = schedule(monkeypatch, "--cron", "--install", "--daily")
    assert res.exit_code == 0, res.output
    assert "# every=daily" in script().read_text()
    assert stat.S_IMODE(script().stat().st_mode) == 0o700
    res = schedule(monkeypatch, "--remove")
    assert res.exit_code == 0, res.output
    assert f"removed {script()}" in res.output and "removed the learn-digest crontab line" \
        in res.output
    assert not script().exists() and crontab(kept) == ""


def test_a_script_learn_did_not_write_is_not_replaced(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script().parent.mkdir(parents=True)
    script().write_text("#!/bin/sh\necho mine\n")
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code != 0 and "learn did not write it" in res.output, res.output
    assert script().read_text() == "#!/bin/sh\necho mine\n"
    assert crontab(kept) == ""


def test_a_crontab_line_over_999_bytes_is_refused(
        kept: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    deep = tmp_path / "/".join(["c" * 200] * 5)  # the config folder's name alone is > 999
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(deep))
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code != 0, res.output
    assert f"keep only the first {MAX_CRON_COMMAND}" in res.output
    assert "Nothing was installed" in res.output
    assert crontab(kept) == "" and not (kept / "crontab.calls").exists()


def test_an_earlier_learns_long_crontab_line_is_replaced_by_the_short_one(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = ("0 9 * * 1 umask 077; mkdir -p -m 700 /h/d && ( exec /venv/bin/python -P -m learn "
           "run --yes --quiet --all-projects --since 7d --out /h/d/digest-$(date +\\%F).md "
           ">/dev/null ) >>/h/d/schedule.log 2>&1 # learn-digest")
    (kept / "crontab").write_text(f"0 1 * * * backup.sh\n{old}\n")
    assert schedule(monkeypatch, "--cron", "--install").exit_code == 0
    lines = crontab(kept).splitlines()
    assert lines[0] == "0 1 * * * backup.sh" and "learn-digest.sh" in lines[1]
    assert len(lines) == 2


# ------------------------------------------------------------------ F3, F4, F5


def test_the_job_sees_the_agents_folders_waits_for_a_run_and_reads_twice_its_period(
        kept: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    assert schedule(monkeypatch, "--cron", "--install").exit_code == 0
    [line] = crontab(kept).splitlines()
    seen = run_as_cron(line, kept)
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        assert seen[name] == str(tmp_path / name.lower())
    assert seen["LEARN_LOCK_TIMEOUT"] == "3600"  # a run in progress finishes first
    assert seen["LEARN_SCHEDULED_JOB"] == "1"
    assert seen["--since"] == "14d"  # a missed week is still read by the next run
    assert schedule(monkeypatch, "--cron", "--install", "--daily").exit_code == 0
    assert run_as_cron(line.replace(" 1 ", " * ", 1), kept)["--since"] == "2d"


def test_a_gateway_url_or_proxy_set_now_is_said_at_install_until_schedule_env_has_it(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://gateway.example/anthropic")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    env_file = script().with_name("schedule.env")
    res = schedule(monkeypatch, "--cron")
    assert "warning: ANTHROPIC_BASE_URL, HTTPS_PROXY are set in this shell but will not " \
           "reach the job" in res.output, res.output
    assert f"put ANTHROPIC_BASE_URL=… in {env_file}" in res.output
    env_file.parent.mkdir(parents=True, mode=0o700)
    env_file.write_text("ANTHROPIC_API_KEY=sk-x\nANTHROPIC_BASE_URL=https://gateway.example/a\n"
                        "HTTPS_PROXY=http://proxy.example:3128\n")
    env_file.chmod(0o600)
    assert "warning" not in schedule(monkeypatch, "--cron").output


# ------------------------------------------------------------------ F7: one job


def test_remove_finds_a_cron_line_on_a_machine_with_systemd(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (kept / "crontab").write_text("0 1 * * * backup.sh\n")
    assert schedule(monkeypatch, "--cron", "--install").exit_code == 0
    res = schedule(monkeypatch, "--remove", systemd=True)
    assert res.exit_code == 0, res.output
    assert "removed the learn-digest crontab line" in res.output
    assert crontab(kept) == "0 1 * * * backup.sh\n" and not script().exists()


def test_installing_into_systemd_removes_learns_crontab_line(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert schedule(monkeypatch, "--cron", "--install").exit_code == 0
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code == 0, res.output
    assert "removed the learn-digest crontab line: learn's job runs from one scheduler" \
        in res.output
    assert crontab(kept) == "" and [p.name for p in units()] == ["learn-digest.service",
                                                                 "learn-digest.timer"]
    assert script().exists()  # the timer runs it
    res = schedule(monkeypatch, "--cron", "--install", systemd=True)
    assert res.exit_code == 0, res.output
    assert units() == [] and len(crontab(kept).splitlines()) == 1
    assert "systemctl --user disable --now learn-digest.timer" in \
        (kept / "calls").read_text()


def test_remove_with_nothing_installed_says_where_it_looked(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = schedule(monkeypatch, "--remove", systemd=True)
    assert res.exit_code == 0 and "nothing to remove" in res.output, res.output
    assert not (kept / "crontab.calls").exists()


# ------------------------------------------------------------------ F6: macOS


def test_on_macos_install_uses_launchd_and_makes_its_log_folder(
        kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule_cmd.sys, "platform", "darwin")
    res = schedule(monkeypatch, "--install")
    assert res.exit_code == 0, res.output
    plist = home() / "Library" / "LaunchAgents" / "dev.learn.digest.plist"
    assert plist.exists() and crontab(kept) == ""
    digests = home() / ".local" / "share" / "learn" / "digests"
    assert stat.S_IMODE(digests.stat().st_mode) == 0o700
    # --cron still forces cron, and takes learn's agent away.
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code == 0, res.output
    assert not plist.exists() and len(crontab(kept).splitlines()) == 1


# ------------------------------------------------------------------ F10: what grows


def test_the_script_rotates_its_log_and_keeps_the_last_52_digests(tmp_path: Path) -> None:
    exe = tmp_path / "learn"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    spec = ScheduleSpec("weekly", (str(exe),), tmp_path / "data" / "digests",
                        tmp_path / "cfg" / "schedule.env", path_env="/usr/bin:/bin")
    spec.digests_dir.mkdir(parents=True)
    names = [f"digest-{2020 + i // 12}-{i % 12 + 1:02d}-01.md" for i in range(60)]
    for name in names:
        (spec.digests_dir / name).write_text("x\n")
    (spec.digests_dir / "digest-notes.md").write_text("mine\n")
    spec.log.write_bytes(b"x" * ((1 << 20) + 10))
    spec.script.parent.mkdir()
    spec.script.write_text(job_script(spec))
    done = subprocess.run(["/bin/sh", str(spec.script)], timeout=30, check=False)
    assert done.returncode == 0
    left = sorted(p.name for p in spec.digests_dir.glob("digest-*.md"))
    assert left == sorted([*names[-KEEP_DIGESTS:], "digest-notes.md"])
    assert spec.log.with_name("schedule.log.1").stat().st_size == (1 << 20) + 10
    assert spec.log.read_text().startswith("learn-digest: ")
