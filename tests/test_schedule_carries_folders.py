"""The scheduled job runs with the folders learn had when it was installed.

The audit's case: `LEARN_DATA_DIR=~/altdata LEARN_CONFIG_DIR=~/altconf learn schedule
--cron` wrote a line whose digests went to altdata and whose schedule.env was altconf's,
but the `learn run` inside it was started without either variable, so it read and wrote
the default store and config. Each scheduler's job is installed here through the command
(fake `crontab`, `systemctl`, `launchctl` on PATH), then run as that scheduler hands it to
/bin/sh, with none of this shell's variables: what learn sees is what the person set,
however odd the folder names (`%`, quotes, `$`, backticks, `]]>`). A value no format can
carry (a line break, a byte that is not UTF-8) is refused before anything is written.
Without any of the variables the job is, byte for byte, what learn wrote when the job
became a script (tests/fixtures/schedule, rendered when learn-digest.sh was introduced;
the crontab line, units and plist before it held the whole job, see audit60 F2).

And on a machine with neither a systemd user manager nor a `crontab` command, `--install`
says so with the way out (exit 2, as for no `claude`), and `--remove` has nothing to remove.
"""

from __future__ import annotations

import os
import plistlib
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_schedule_audit import FAKE_CRONTAB, FAKE_LOGGER, cron_hands_sh

from learn.commands import schedule as schedule_cmd
from learn.report.schedule import (
    ScheduleSpec,
    cron_is_ours,
    cron_line,
    job_script,
    launchd_plist,
    shell_line,
    systemd_service,
    systemd_timer,
    unwritable,
)

FIXTURES = Path(__file__).parent / "fixtures" / "schedule"

# Everything a shell, cron, systemd or XML reads as structure, and none of it a line break.
ODD = "a 100% b \\%c 'q' \"dq\" $HOME ${X} `touch PWNED1` $(touch PWNED2) ;touch PWNED3; ]]> <&>"
FOLDERS = ("LEARN_DATA_DIR", "LEARN_CONFIG_DIR", "LEARN_CACHE_DIR")
XDG = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake `crontab`, `systemctl` and `launchctl` first on PATH, keeping what they are
    given in the folder returned; learn's job runs a fake learn that writes down the
    folder variables it was started with."""
    bindir, store = tmp_path / "fakebin", tmp_path / "kept"
    bindir.mkdir()
    store.mkdir()
    for name, text in (("crontab", FAKE_CRONTAB), ("systemctl", FAKE_LOGGER),
                       ("launchctl", FAKE_LOGGER)):
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    seen = store / "seen"
    exe = bindir / "fake learn"
    exe.write_text("#!/bin/sh\n{ " + "".join(f'printf "%s\\n" "{v}=${{{v}-unset}}"; '
                                             for v in (*FOLDERS, *XDG))
                   + 'printf "%s\\n" "key=$ANTHROPIC_API_KEY" "$@"; } > '
                   + shlex.quote(str(seen)) + "\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_STORE", str(store))
    monkeypatch.setattr(schedule_cmd, "runner", schedule_cmd._run)
    monkeypatch.setattr(schedule_cmd, "learn_argv", lambda: [str(exe)])
    return store


def schedule(monkeypatch: pytest.MonkeyPatch, *args: str, systemd: bool = False) -> Result:
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: systemd)
    return CliRunner().invoke(schedule_cmd.command, list(args))


def run_as_scheduled(sh_command: str, tmp_path: Path) -> dict[str, str]:
    """`sh -c sh_command` as a scheduler starts it: in an empty folder, none of this
    shell's variables; what the fake learn saw, by name."""
    cwd = tmp_path / "job cwd"
    cwd.mkdir(exist_ok=True)
    env = {"HOME": os.environ["HOME"], "PATH": "/usr/bin:/bin"}
    done = subprocess.run(["/bin/sh", "-c", sh_command], cwd=cwd, env=env, timeout=30,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []  # no `touch PWNED` ran
    lines = (tmp_path / "kept" / "seen").read_text().splitlines()
    seen = dict(x.split("=", 1) for x in lines if re.match(r"(LEARN|XDG)_\w+=|key=", x))
    seen["--out"] = lines[lines.index("--out") + 1]
    return seen


def systemd_hands_sh(service: str) -> str:
    """ExecStart= as systemd reads it, as a command for `sh -c`: the script's path word,
    `%%` a `%`, the double quotes' C escapes (`\\\\`, `\\"`) undone, `$$` a `$`."""
    found = re.search(r'^ExecStart=/bin/sh "((?:[^"\\]|\\.)*)"$', service, re.M)
    assert found is not None, service
    word = re.sub(r"\\(.)", r"\1", found.group(1).replace("%%", "%"))
    return shlex.join(["/bin/sh", word.replace("$$", "$")])


def set_folders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, names: tuple[str, ...],
                odd: str = ODD) -> dict[str, Path]:
    folders = {name: tmp_path / f"{name.lower()} {odd}" for name in names}
    for name, folder in folders.items():
        monkeypatch.setenv(name, str(folder))
    return folders


def give_key(folders: dict[str, Path]) -> None:
    env_file = folders["LEARN_CONFIG_DIR"] / "schedule.env"
    env_file.parent.mkdir(parents=True, mode=0o700)
    env_file.write_text("ANTHROPIC_API_KEY=sk-from-altconf\n")
    env_file.chmod(0o600)


def assert_carried(seen: dict[str, str], folders: dict[str, Path]) -> None:
    for name in (*FOLDERS, *XDG):
        assert seen[name] == (str(folders[name]) if name in folders else "unset"), name
    assert seen["key"] == "sk-from-altconf"  # altconf's schedule.env, read by the job
    digests = folders["LEARN_DATA_DIR"] / "digests"
    assert seen["--out"].startswith(f"{digests}/digest-")
    assert (digests).is_dir()


# ------------------------------------------------------------------ each scheduler


def test_the_crontab_line_runs_learn_with_the_folders_it_was_installed_with(
        kept: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = set_folders(monkeypatch, tmp_path, (*FOLDERS, *XDG))
    give_key(folders)
    res = schedule(monkeypatch, "--cron", "--install")
    assert res.exit_code == 0, res.output
    [line] = (kept / "crontab").read_text().splitlines()
    assert cron_is_ours(line)
    assert_carried(run_as_scheduled(cron_hands_sh(line), tmp_path), folders)
    assert (folders["LEARN_DATA_DIR"] / "digests" / "schedule.log").exists()


def test_the_systemd_service_runs_learn_with_the_folders_it_was_installed_with(
        kept: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = set_folders(monkeypatch, tmp_path, FOLDERS)
    give_key(folders)
    res = schedule(monkeypatch, "--install", systemd=True)
    assert res.exit_code == 0, res.output
    unit = Path(os.environ["HOME"]) / ".config" / "systemd" / "user" / "learn-digest.service"
    service = unit.read_text()
    # One ExecStart line, nothing else of the values' making in the unit.
    assert [x.split("=", 1)[0] for x in service.splitlines() if "=" in x.split(" ", 1)[0]] == [
        "Description", "Type", "ExecStart", "Nice"]
    assert_carried(run_as_scheduled(systemd_hands_sh(service), tmp_path), folders)


def test_the_launch_agent_runs_learn_with_the_folders_it_was_installed_with(
        kept: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule_cmd.sys, "platform", "darwin")
    folders = set_folders(monkeypatch, tmp_path, (*FOLDERS, "XDG_CACHE_HOME"))
    give_key(folders)
    res = schedule(monkeypatch, "--launchd", "--install")
    assert res.exit_code == 0, res.output
    path = Path(os.environ["HOME"]) / "Library" / "LaunchAgents" / "dev.learn.digest.plist"
    text = path.read_text()
    assert "]]>" not in text and "<&>" not in text  # XML's specials escaped
    data = plistlib.loads(text.encode())
    assert set(data) == {"Label", "ProgramArguments", "StartCalendarInterval",
                         "StandardOutPath", "StandardErrorPath", "RunAtLoad"}
    sh, script = data["ProgramArguments"]
    assert sh == "/bin/sh"
    assert_carried(run_as_scheduled(shlex.join([sh, script]), tmp_path), folders)
    # launchd opens its log before the script runs: the folder is there, private.
    assert (folders["LEARN_DATA_DIR"] / "digests").stat().st_mode & 0o777 == 0o700


def test_the_printed_job_carries_the_folders_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What the person copies into place by hand is the installed job.
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("LEARN_DATA_DIR", "~/altdata")  # as learn reads it: ~ expanded
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEARN_CONFIG_DIR", "altconf")  # and absolute: the job runs in $HOME
    res = schedule(monkeypatch, "--cron")
    assert res.exit_code == 0, res.output
    assert (f"export LEARN_DATA_DIR={home}/altdata; export LEARN_CONFIG_DIR={tmp_path}/altconf;"
            in res.output)
    assert "LEARN_CACHE_DIR" not in res.output and "XDG_" not in res.output


def test_an_empty_variable_is_not_carried(monkeypatch: pytest.MonkeyPatch) -> None:
    # learn reads LEARN_DATA_DIR="" as unset; the job must too.
    monkeypatch.setenv("LEARN_DATA_DIR", "")
    assert schedule_cmd.make_spec("weekly", "7d").env == ()


# ------------------------------------------------------------------ refused


@pytest.mark.parametrize("value", ["\n* * * * * touch /tmp/pwned", "a\rb", "a\u2028b",
                                   "a\x1b[2Kb", "caf\udce9"],
                         ids=["newline", "cr", "line-separator", "escape", "not-utf8"])
@pytest.mark.parametrize("name", [*FOLDERS, *XDG])
@pytest.mark.parametrize("how", [("--cron", "--install"), ("--install",), ()],
                         ids=["cron", "systemd", "printed"])
def test_a_variable_no_job_can_carry_is_refused_and_nothing_is_written(
        kept: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, name: str,
        how: tuple[str, ...]) -> None:
    monkeypatch.setenv(name, str(tmp_path / f"alt{value}"))
    res = schedule(monkeypatch, *how, systemd=True)
    assert res.exit_code == 1, res.output
    [line] = [x for x in res.output.splitlines() if x.strip()]  # one line says why
    assert line.startswith(f"Error: {name} holds ") and "Nothing was written" in line
    assert "touch /tmp/pwned" not in res.output or "\\n" in line  # shown escaped, not a line
    assert list(kept.iterdir()) == []  # neither crontab nor systemctl was run
    assert not (Path(os.environ["HOME"]) / ".config" / "systemd").exists()


@pytest.mark.parametrize("value", ["a\x00b", "a\nb", "caf\udce9"])
def test_the_job_is_not_rendered_with_a_value_it_cannot_carry(tmp_path: Path,
                                                              value: str) -> None:
    # make_spec refuses first; the renderer refuses too (a NUL cannot even be set in
    # the environment, but a spec built by hand can hold one).
    assert unwritable(value) is not None
    spec = ScheduleSpec("weekly", ("learn",), tmp_path, tmp_path / "schedule.env",
                        env=(("LEARN_DATA_DIR", value),))
    for render in (shell_line, cron_line, systemd_service, launchd_plist):
        with pytest.raises(ValueError, match="LEARN_DATA_DIR"):
            render(spec)
    bad_name = ScheduleSpec("weekly", ("learn",), tmp_path, tmp_path / "schedule.env",
                            env=(("X=1; touch /tmp/pwned; Y", "v"),))
    with pytest.raises(ValueError, match="not a name"):
        shell_line(bad_name)


# ------------------------------------------------------------------ unchanged without them

FIXED = ScheduleSpec(every="weekly", learn=("/venv/bin/python", "-P", "-m", "learn"),
                     digests_dir=Path("/home/me/.local/share/learn/digests"),
                     env_file=Path("/home/me/.config/learn/schedule.env"),
                     path_env="/usr/bin:/bin", project=Path("/home/me/code/shop 100%"))


def test_without_the_variables_every_job_is_byte_for_byte_what_it_was() -> None:
    assert (cron_line(FIXED) + "\n").encode() == (FIXTURES / "crontab-line").read_bytes()
    assert systemd_service(FIXED).encode() == (FIXTURES / "learn-digest.service").read_bytes()
    assert systemd_timer(FIXED).encode() == (FIXTURES / "learn-digest.timer").read_bytes()
    assert launchd_plist(FIXED).encode() == (FIXTURES / "dev.learn.digest.plist").read_bytes()
    assert job_script(FIXED).encode() == (FIXTURES / "learn-digest.sh").read_bytes()


def test_without_the_variables_the_command_carries_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = schedule_cmd.make_spec("weekly", "7d")
    assert spec.env == ()
    res = schedule(monkeypatch, "--cron")
    assert res.exit_code == 0, res.output
    exported = re.findall(r"export (\w+)=", res.output)
    assert exported == ["PATH", "LEARN_LOCK_TIMEOUT", "LEARN_PREFLIGHT_WAIT",
                        "LEARN_SCHEDULED_JOB"], exported


# ------------------------------------------------------------------ no scheduler here


@pytest.fixture
def no_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No `crontab` (nor anything else) on PATH, no systemd; the real runner."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(schedule_cmd, "runner", schedule_cmd._run)


@pytest.mark.parametrize("args, said", [
    (("--install",), "neither a systemd user manager nor cron"),
    (("--cron", "--install"), "cron is not available here (no `crontab` command on PATH)"),
])
def test_install_with_no_scheduler_says_so_and_what_to_do(
        no_scheduler: None, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...],
        said: str) -> None:
    res = schedule(monkeypatch, *args)
    assert res.exit_code == 2, res.output
    assert said in res.output and "Nothing was installed" in res.output
    assert "run `learn schedule` (without --install) to print the job" in res.output
    assert "Errno" not in res.output


@pytest.mark.parametrize("args", [("--remove",), ("--cron", "--remove")])
def test_remove_with_no_scheduler_has_nothing_to_remove(
        no_scheduler: None, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]) -> None:
    res = schedule(monkeypatch, *args)
    assert res.exit_code == 0, res.output
    assert "nothing to remove" in res.output and "Errno" not in res.output


def test_printing_the_job_needs_no_scheduler(no_scheduler: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    res = schedule(monkeypatch)
    assert res.exit_code == 0, res.output
    assert [x for x in res.output.splitlines() if cron_is_ours(x)]
