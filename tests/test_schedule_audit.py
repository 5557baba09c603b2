"""`learn schedule` writes to a person's crontab, systemd units and LaunchAgents, and the
job it installs runs unattended with their credentials. What an audit of that found,
each pinned here with real files and a fake `crontab`, `systemctl` or `launchctl` on
PATH (the command's own runner, not a stand-in for it):

- the crontab was read in text mode and split on every line break Python knows: a CRLF
  came back as LF, and a `\\r` inside a comment (`# off:\\r* * * * * job`) came back as
  a job of its own; any line ending in `# learn-digest` was taken for learn's own and
  deleted; a reinstall moved learn's line to the end, and `--remove` with nothing
  installed rewrote the table anyway;
- a unit, or a plist, of the same name that learn did not write was replaced, and
  `--remove` disabled and deleted it; a link at the unit path was replaced by a file;
- schedule.env was sourced as shell whatever it was: group- or world-writable, or a
  link to somebody else's file, it ran as the person's shell at 09:00;
- a folder named `a\\%b` split the crontab command (cron has no spelling for a
  backslash before a `%`); the folders above the digests were made 0755 and the cron
  log 0644; a `--since` the run refuses was installed to fail at every run."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from learn.commands import schedule as schedule_cmd
from learn.report.schedule import (
    OWNED,
    ScheduleSpec,
    cron_is_ours,
    cron_line,
    job_script,
    shell_line,
    systemd_service,
    systemd_timer,
)

REPO = Path(__file__).resolve().parents[1]

FAKE_CRONTAB = """#!/bin/sh
# crontab as cron ships it: -l prints the table byte for byte, - takes a whole new one
# (or, with $STORE.refuse present, refuses it and keeps the old).
store="$FAKE_STORE/crontab"
case "$1" in
  -l) [ -f "$store" ] || { echo "no crontab for $(id -un)" >&2; exit 1; }; cat "$store";;
  -) echo "-" >> "$FAKE_STORE/crontab.calls"
     if [ -f "$FAKE_STORE/crontab.refuse" ]; then
       cat >/dev/null; echo "crontab: errors in crontab file, can't install" >&2; exit 1
     fi
     cat > "$store.new" && mv "$store.new" "$store";;
esac
"""

FAKE_LOGGER = """#!/bin/sh
# Every call kept, one line each; `launchctl load` of a loaded agent fails, as launchd's does.
echo "$(basename "$0") $*" >> "$FAKE_STORE/calls"
if [ "$(basename "$0")" = launchctl ]; then
  case "$1" in
    load) [ -f "$FAKE_STORE/loaded" ] && { echo "service already loaded" >&2; exit 5; }
          touch "$FAKE_STORE/loaded";;
    unload) rm -f "$FAKE_STORE/loaded";;
  esac
fi
"""


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of fake `crontab`, `systemctl` and `launchctl` first on PATH; what they
    keep goes to the folder returned."""
    bindir, kept = tmp_path / "fakebin", tmp_path / "kept"
    bindir.mkdir()
    kept.mkdir()
    for name, text in (("crontab", FAKE_CRONTAB), ("systemctl", FAKE_LOGGER),
                       ("launchctl", FAKE_LOGGER)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_STORE", str(kept))
    monkeypatch.setattr(schedule_cmd, "runner", schedule_cmd._run)  # the real one
    return kept


def schedule(monkeypatch: pytest.MonkeyPatch, *args: str, systemd: bool = False) -> Result:
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: systemd)
    return CliRunner().invoke(schedule_cmd.command, list(args))


def calls(store: Path) -> list[str]:
    path = store / "calls"
    return path.read_text().splitlines() if path.exists() else []


def crontab_writes(store: Path) -> int:
    path = store / "crontab.calls"
    return len(path.read_text().splitlines()) if path.exists() else 0


def our_line(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    res = schedule(monkeypatch, "--cron", *args)
    assert res.exit_code == 0, res.output
    [line] = [x for x in res.output.splitlines() if cron_is_ours(x)]
    return line


# ------------------------------------------------------------------ the crontab


# CRLF lines, a comment whose `\r` hides a job, blank lines, an env line, a person's own
# line tagged `# learn-digest`, a byte that is not UTF-8, and no newline at the end.
THEIRS = (b"MAILTO=me@example.org\r\n# off for now:\r* * * * * rm -rf ~/scratch\n\n"
          b"SHELL=/bin/bash\n0 3 * * * ~/bin/mirror-digests # learn-digest\n"
          b"0 1 * * * ~/bin/caf\xe9.sh")


def test_the_rest_of_the_crontab_goes_back_byte_for_byte(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (store / "crontab").write_bytes(THEIRS)
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code == 0, res.output
    line = our_line(monkeypatch)
    # Theirs whole; the newline cron needs after their last line, then ours.
    assert (store / "crontab").read_bytes() == THEIRS + b"\n" + line.encode() + b"\n"
    res = schedule(monkeypatch, "--cron", "--remove")
    assert res.exit_code == 0, res.output
    assert (store / "crontab").read_bytes() == THEIRS + b"\n"


def test_a_reinstall_replaces_learns_line_where_it_is_and_an_unchanged_one_is_not_rewritten(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weekly = our_line(monkeypatch).encode()
    (store / "crontab").write_bytes(b"# mine\n" + weekly + b"\n0 1 * * * backup.sh\n")
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code == 0 and "already installed" in res.output, res.output
    assert crontab_writes(store) == 0
    res = schedule(monkeypatch, "--cron", "--install", "--daily")
    assert res.exit_code == 0, res.output
    daily = our_line(monkeypatch, "--daily").encode()
    assert (store / "crontab").read_bytes() == b"# mine\n" + daily + b"\n0 1 * * * backup.sh\n"


def test_remove_with_no_line_of_learns_writes_nothing(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (store / "crontab").write_bytes(b"0 3 * * * ~/bin/mirror-digests # learn-digest\n")
    res = schedule(monkeypatch, "--cron", "--remove")
    assert res.exit_code == 0 and "nothing to remove" in res.output, res.output
    assert crontab_writes(store) == 0
    assert (store / "crontab").read_bytes() == b"0 3 * * * ~/bin/mirror-digests # learn-digest\n"


def test_a_crontab_that_will_not_install_loses_nothing(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (store / "crontab").write_bytes(THEIRS)
    (store / "crontab.refuse").touch()
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code != 0 and "can't install" in res.output
    assert (store / "crontab").read_bytes() == THEIRS


def cron_hands_sh(line: str) -> str:
    """The command cron runs for a crontab line (cronie's do_command.c): the five time
    fields off, `\\%` read as `%`, and cut at the first bare `%` (the rest is stdin)."""
    command = line.split(" ", 5)[5]
    out, escaped = [], False
    for ch in command:
        if escaped:
            if ch == "%":
                out[-1] = "%"
            else:
                out.append(ch)
            escaped = False
            continue
        if ch == "%":
            break
        out.append(ch)
        escaped = ch == "\\"
    return "".join(out)


def write_script(spec: ScheduleSpec) -> None:
    """The job's script where `--install` writes it (beside schedule.env)."""
    spec.script.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    spec.script.write_text(job_script(spec))


def fake_learn(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True)
    log = folder.parent / "argv.log"
    exe = folder / "learn"
    exe.write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > {shlex.quote(str(log))}\n'
                   'echo "key=$ANTHROPIC_API_KEY" >&2\n')
    exe.chmod(0o755)
    return exe, log


ODD = "we\\%ird $HOME \"q\" 'x' 100% `id`"


def odd_spec(tmp_path: Path) -> tuple[ScheduleSpec, Path]:
    exe, log = fake_learn(tmp_path / ODD / "bin")
    return ScheduleSpec(every="daily", learn=(str(exe),), digests_dir=tmp_path / ODD / "digests",
                        env_file=tmp_path / "cfg" / "schedule.env", path_env="/usr/bin:/bin",
                        project=tmp_path / ODD / "proj"), log


def test_a_folder_with_a_backslash_before_a_percent_reaches_the_job_intact(
        tmp_path: Path) -> None:
    spec, log = odd_spec(tmp_path)
    write_script(spec)
    done = subprocess.run(["/bin/sh", "-c", cron_hands_sh(cron_line(spec))], timeout=30,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    argv = log.read_text().splitlines()
    assert argv[argv.index("--project") + 1] == str(spec.project)
    assert argv[argv.index("--out") + 1].startswith(f"{spec.digests_dir}/digest-")
    assert (spec.digests_dir / "schedule.log").exists()


def test_the_job_makes_its_folders_and_log_private(tmp_path: Path) -> None:
    exe, _ = fake_learn(tmp_path / "bin")
    spec = ScheduleSpec(every="weekly", learn=(str(exe),),
                        digests_dir=tmp_path / "data" / "learn" / "digests",
                        env_file=tmp_path / "cfg" / "schedule.env", path_env="/usr/bin:/bin")
    write_script(spec)
    done = subprocess.run(["/bin/sh", "-c", cron_hands_sh(cron_line(spec))], timeout=30,
                          capture_output=True, text=True, check=False, umask=0o022)
    assert done.returncode == 0, done.stderr
    for folder in (tmp_path / "data", tmp_path / "data" / "learn", spec.digests_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE((spec.digests_dir / "schedule.log").stat().st_mode) == 0o600


# ------------------------------------------------------------------ schedule.env


def run_job(spec: ScheduleSpec) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", shell_line(spec)], timeout=30, capture_output=True,
                          text=True, check=False, cwd=spec.env_file.parent)


@pytest.mark.parametrize("how", ["group-writable", "world-writable", "a link", "a folder"])
def test_the_job_does_not_source_an_env_file_others_can_write(tmp_path: Path, how: str) -> None:
    exe, log = fake_learn(tmp_path / "bin")
    spec = ScheduleSpec(every="weekly", learn=(str(exe),), digests_dir=tmp_path / "digests",
                        env_file=tmp_path / "cfg" / "schedule.env", path_env="/usr/bin:/bin")
    spec.env_file.parent.mkdir(mode=0o700)
    planted = tmp_path / "planted.env"
    planted.write_text("ANTHROPIC_API_KEY=theirs\ntouch PWNED\n")
    planted.chmod(0o600)
    if how == "a link":
        spec.env_file.symlink_to(planted)
    elif how == "a folder":
        spec.env_file.mkdir()
    else:
        spec.env_file.write_text(planted.read_text())
        spec.env_file.chmod(0o620 if how == "group-writable" else 0o602)
    done = run_job(spec)
    assert done.returncode == 0, done.stderr
    assert not (spec.env_file.parent / "PWNED").exists()
    assert "key=\n" in done.stderr and "learn-digest: not reading" in done.stderr
    assert log.exists()  # the run still ran, without the file


def test_the_job_sources_the_persons_own_private_env_file(tmp_path: Path) -> None:
    exe, _ = fake_learn(tmp_path / "bin")
    spec = ScheduleSpec(every="weekly", learn=(str(exe),), digests_dir=tmp_path / "digests",
                        env_file=tmp_path / "cfg" / "schedule.env", path_env="/usr/bin:/bin")
    spec.env_file.parent.mkdir(mode=0o700)
    spec.env_file.write_text("export ANTHROPIC_API_KEY='sk-mine'\n")
    spec.env_file.chmod(0o600)
    done = run_job(spec)
    assert done.returncode == 0 and "key=sk-mine" in done.stderr, done.stderr


def env_file() -> Path:
    return Path(os.environ["HOME"]) / ".config" / "learn" / "schedule.env"


@pytest.mark.parametrize("how", ["group-writable", "a link"])
def test_install_is_refused_while_the_env_file_is_not_the_persons_own(
        store: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str) -> None:
    env_file().parent.mkdir(parents=True, mode=0o700)
    if how == "a link":
        other = tmp_path / "shared.env"
        other.write_text("ANTHROPIC_API_KEY=x\n")
        env_file().symlink_to(other)
    else:
        env_file().write_text("ANTHROPIC_API_KEY=x\n")
        env_file().chmod(0o660)
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code != 0 and "Nothing was installed" in res.output, res.output
    assert "chmod 600" in res.output
    assert not unit_dir().exists() and calls(store) == []
    printed = schedule(monkeypatch, systemd=True)  # only printing: a warning
    assert printed.exit_code == 0 and "warning: the job reads" in printed.output


def test_a_fifo_for_an_env_file_does_not_hang_the_command(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    env_file().parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(env_file(), 0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "XDG_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "learn", "schedule", "--cron"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "is not a regular file" in done.stderr


# ------------------------------------------------------------------ systemd units


def unit_dir() -> Path:
    return Path(os.environ["HOME"]) / ".config" / "systemd" / "user"


def test_a_unit_learn_did_not_write_is_neither_replaced_nor_removed(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unit_dir().mkdir(parents=True)
    theirs = unit_dir() / "learn-digest.service"
    theirs.write_text("[Service]\nExecStart=/home/me/bin/learn-digest-mailer\n")
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code != 0 and "learn did not write it" in res.output, res.output
    assert theirs.read_text() == "[Service]\nExecStart=/home/me/bin/learn-digest-mailer\n"
    assert not (unit_dir() / "learn-digest.timer").exists()  # nothing half-installed
    res = schedule(monkeypatch, "--remove", systemd=True)
    assert res.exit_code != 0 and "learn did not write it" in res.output, res.output
    assert theirs.exists() and calls(store) == []  # not disabled either


def test_a_link_at_the_unit_path_is_not_written_through_nor_replaced(
        store: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    unit_dir().mkdir(parents=True)
    target = tmp_path / "dotfiles" / "learn-digest.timer"
    target.parent.mkdir()
    target.write_text(systemd_timer(ScheduleSpec("weekly", ("learn",), tmp_path, tmp_path)))
    (unit_dir() / "learn-digest.timer").symlink_to(target)
    before = target.read_bytes()
    res = schedule(monkeypatch, "--install", "--daily", systemd=True)
    assert res.exit_code != 0 and "is a link" in res.output, res.output
    assert (unit_dir() / "learn-digest.timer").is_symlink() and target.read_bytes() == before
    assert not (unit_dir() / "learn-digest.service").exists() and calls(store) == []


def test_units_learn_wrote_are_replaced_and_removed_and_kept_private(
        store: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Units an earlier learn wrote, before they carried the OWNED line, are learn's too.
    unit_dir().mkdir(parents=True)
    old = ScheduleSpec("weekly", ("/old/python", "-m", "learn"), tmp_path / "d", tmp_path / "e")
    for name, text in (("service", systemd_service(old)), ("timer", systemd_timer(old))):
        (unit_dir() / f"learn-digest.{name}").write_text(text.replace(f"# {OWNED}\n", ""))
        (unit_dir() / f"learn-digest.{name}").chmod(0o664)
    res = schedule(monkeypatch, "--install", "--daily", systemd=True)
    assert res.exit_code == 0, res.output
    for name in ("service", "timer"):
        unit = unit_dir() / f"learn-digest.{name}"
        assert unit.read_text().startswith(f"# {OWNED}\n")
        # Its mode kept, less the group's write: a unit others may write runs their code.
        assert stat.S_IMODE(unit.stat().st_mode) == 0o644
    assert "OnCalendar=*-*-* 09:00:00" in (unit_dir() / "learn-digest.timer").read_text()
    assert sorted(p.name for p in unit_dir().iterdir()) == ["learn-digest.service",
                                                            "learn-digest.timer"]
    assert calls(store) == ["systemctl --user daemon-reload",
                            "systemctl --user enable --now learn-digest.timer"]
    res = schedule(monkeypatch, "--remove", systemd=True)
    assert res.exit_code == 0, res.output
    assert list(unit_dir().iterdir()) == []
    assert calls(store)[2:] == ["systemctl --user disable --now learn-digest.timer",
                                "systemctl --user daemon-reload"]


# ------------------------------------------------------------------ launchd


def plist() -> Path:
    return Path(os.environ["HOME"]) / "Library" / "LaunchAgents" / "dev.learn.digest.plist"


def test_a_launch_agent_learn_did_not_write_is_left_alone(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule_cmd.sys, "platform", "darwin")
    plist().parent.mkdir(parents=True)
    plist().write_text("<plist><dict><key>Label</key><string>mine</string></dict></plist>\n")
    for flag in ("--install", "--remove"):
        res = schedule(monkeypatch, "--launchd", flag)
        assert res.exit_code != 0 and "learn did not write it" in res.output, res.output
    assert "<string>mine</string>" in plist().read_text() and calls(store) == []


def test_a_launch_agent_installed_twice_is_reloaded_not_loaded_twice(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule_cmd.sys, "platform", "darwin")
    for every in ("--weekly", "--daily"):
        res = schedule(monkeypatch, "--launchd", "--install", every)
        assert res.exit_code == 0, res.output
    assert "<key>Weekday</key>" not in plist().read_text()
    assert calls(store) == [f"launchctl load -w {plist()}", f"launchctl unload {plist()}",
                            f"launchctl load -w {plist()}"]


# ------------------------------------------------------------------ the options


def test_a_since_learn_run_would_refuse_is_refused_before_anything_is_installed(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = schedule(monkeypatch, "--cron", "--install", "--since", "last tuesday")
    assert res.exit_code != 0 and "cannot read --since" in res.output, res.output
    assert not (store / "crontab").exists() and crontab_writes(store) == 0


def test_install_and_remove_together_are_refused(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (store / "crontab").write_bytes(b"0 1 * * * backup.sh\n")
    res = schedule(monkeypatch, "--cron", "--install", "--remove")
    assert res.exit_code != 0 and "cannot be combined" in res.output
    assert crontab_writes(store) == 0


def test_the_printed_job_is_the_installed_one(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What the person reads before installing is what runs.
    printed = schedule(monkeypatch, systemd=True).output
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code == 0, res.output
    for name in ("service", "timer"):
        unit = unit_dir() / f"learn-digest.{name}"
        assert unit.read_text() in printed
        assert stat.S_IMODE(unit.stat().st_mode) == 0o600  # a new file of learn's is private
