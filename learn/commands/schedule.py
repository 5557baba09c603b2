"""`learn schedule`: print (or install) a periodic digest job.

Without --install it only prints what it would install, so the user can read a
job that will run with their credentials before it exists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from learn.paths import atomic_write_text, config_dir, data_dir
from learn.report.schedule import (
    UNIT,
    ScheduleSpec,
    cron_line,
    launchd_path,
    launchd_plist,
    merge_crontab,
    systemd_dir,
    systemd_service,
    systemd_timer,
)

# (argv, stdin) -> (exit code, stdout, stderr); replaced in tests.
Runner = Callable[[Sequence[str], str | None], tuple[int, str, str]]


def _run(argv: Sequence[str], stdin: str | None) -> tuple[int, str, str]:
    try:
        proc = subprocess.run(list(argv), input=stdin, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", str(exc)
    return proc.returncode, proc.stdout, proc.stderr


runner: Runner = _run


def has_systemd() -> bool:
    # /run/systemd/system exists only when systemd is PID 1 (sd_booted's test);
    # a systemctl binary alone (containers, WSL1) does not mean timers will fire.
    return shutil.which("systemctl") is not None and Path("/run/systemd/system").is_dir()


# C0 and C1 controls and the Unicode line separators. A newline in a folder name
# became a line of the unit (`ExecStartPre=...` of the folder's choosing) and split
# the crontab entry into lines `--remove` never found: no quoting survives a line
# break in a systemd unit or a crontab, so such a value is refused, not escaped.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _control_character(spec: ScheduleSpec) -> str | None:
    """Which value of `spec` holds a control character, and which, else None."""
    values = {
        "--project": str(spec.project) if spec.project else "",
        "--since": spec.since,
        "PATH": spec.path_env or "",
        "the Python learn runs under": " ".join(spec.learn),
        "learn's data folder (the digests')": str(spec.digests_dir),
        "learn's config folder (schedule.env's)": str(spec.env_file),
    }
    for what, value in values.items():
        found = _CONTROL.search(value)
        if found:
            return f"{what} holds a control character ({found.group()!r} in {value!r})"
    return None


def make_spec(every: str, since: str, project: Path | None = None) -> ScheduleSpec:
    """The job for these options; a ClickException, before anything is written, when a
    value of it holds a control character (it would become structure of the job)."""
    spec = ScheduleSpec(
        every="daily" if every == "daily" else "weekly",
        # The interpreter learn runs under now: a service manager's PATH will not
        # have the virtualenv on it, and `python -m learn` needs nothing else.
        learn=(sys.executable, "-m", "learn"),
        digests_dir=data_dir() / "digests",
        env_file=config_dir() / "schedule.env",
        since=since,
        path_env=os.environ.get("PATH"),
        project=project.resolve() if project else None,
    )
    problem = _control_character(spec)
    if problem:
        raise click.ClickException(f"{problem}, which a unit or crontab line cannot quote "
                                   "(a line break starts a line of its own). Nothing was "
                                   "written")
    return spec


def env_file_keys(path: Path) -> set[str]:
    """The variables `path` sets (KEY=value lines, `export` allowed), as the job's shell reads it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return set()
    keys = set()
    for line in text.splitlines():
        line = line.strip().removeprefix("export ").strip()
        name, eq, value = line.partition("=")
        if eq and name.isidentifier() and value.strip().strip("'\""):
            keys.add(name)
    return keys


def backend_warning(spec: ScheduleSpec) -> str | None:
    """Why the job would fail at its hour, or None. A job started by systemd, cron or
    launchd sees none of the shell's variables: only the env file and the PATH it
    is given. A config error is left to the job's own run to report."""
    from learn.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError:
        return None
    name = config.backend.name
    job_env = env_file_keys(spec.env_file)
    if name == "anthropic" and "ANTHROPIC_API_KEY" not in job_env:
        return (f"the job runs the anthropic backend, and {spec.env_file} sets no "
                "ANTHROPIC_API_KEY (a scheduled job does not see your shell's variables), so "
                f"every run will fail; fix: put ANTHROPIC_API_KEY=… in {spec.env_file} (chmod "
                "600), or set [backend] name = \"claude-cli\" in the config")
    if name == "claude-cli":
        binary = config.backend.claude_binary
        if shutil.which(binary, path=spec.path_env or os.defpath) is None:
            return (f"the job runs the claude-cli backend, and `{binary}` is not on the job's "
                    f"PATH, so every run will fail; fix: install Claude Code, or set [backend] "
                    "claude_binary to its full path")
    return None


def _check(code: int, err: str, what: str) -> None:
    if code != 0:
        raise click.ClickException(f"{what} failed: {err.strip() or f'exit {code}'}")


@click.command(name="schedule")
@click.option("--weekly", "every", flag_value="weekly", default=True,
              help="Every Monday at 09:00 (default).")
@click.option("--daily", "every", flag_value="daily", help="Every day at 09:00.")
@click.option("--since", default="7d", show_default=True,
              help="How far back each scheduled run reads.")
@click.option("--project", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Only this project's sessions (default: every project).")
@click.option("--install", is_flag=True, help="Install the job (default: only print it).")
@click.option("--remove", is_flag=True, help="Remove an installed job.")
@click.option("--cron", "force_cron", is_flag=True, help="Use cron even where systemd runs.")
@click.option("--launchd", is_flag=True, help="macOS: a launchd agent plist.")
def command(every: str, since: str, project: Path | None, install: bool, remove: bool, force_cron: bool,
            launchd: bool) -> None:
    """Set up a periodic digest: a systemd user timer, else a crontab line; --launchd on macOS.

    Each run writes <data dir>/digests/digest-<date>.md. A run needs a model: put
    ANTHROPIC_API_KEY=... in ~/.config/learn/schedule.env (chmod 600) if it is not
    otherwise available to the job; the job reads that file if it exists.
    """
    spec = make_spec(every, since, project)
    if not remove:
        warning = backend_warning(spec)
        if warning:
            click.echo(f"learn schedule: warning: {warning}", err=True)
    if launchd:
        _launchd(spec, install, remove)
    elif not force_cron and has_systemd():
        _systemd(spec, install, remove)
    else:
        _cron(spec, install, remove)


def _systemd(spec: ScheduleSpec, install: bool, remove: bool) -> None:
    unit_dir = systemd_dir()
    service, timer = unit_dir / f"{UNIT}.service", unit_dir / f"{UNIT}.timer"
    if remove:
        runner(["systemctl", "--user", "disable", "--now", f"{UNIT}.timer"], None)
        for f in (service, timer):
            f.unlink(missing_ok=True)
        code, _, err = runner(["systemctl", "--user", "daemon-reload"], None)
        _check(code, err, "systemctl --user daemon-reload")
        click.echo(f"removed {service} and {timer}")
        return
    if not install:
        click.echo(f"# {service}\n{systemd_service(spec)}\n# {timer}\n{systemd_timer(spec)}")
        click.echo("# to install: learn schedule --install   (or copy the files above, then)\n"
                   f"#   systemctl --user daemon-reload && systemctl --user enable --now "
                   f"{UNIT}.timer")
        return
    atomic_write_text(service, systemd_service(spec))
    atomic_write_text(timer, systemd_timer(spec))
    code, _, err = runner(["systemctl", "--user", "daemon-reload"], None)
    _check(code, err, "systemctl --user daemon-reload")
    code, _, err = runner(["systemctl", "--user", "enable", "--now", f"{UNIT}.timer"], None)
    _check(code, err, f"systemctl --user enable --now {UNIT}.timer")
    click.echo(f"installed {timer} ({spec.every}); digests go to {spec.digests_dir}")
    click.echo(f"check it with: systemctl --user list-timers {UNIT}.timer")


def _cron(spec: ScheduleSpec, install: bool, remove: bool) -> None:
    line = cron_line(spec)
    if not install and not remove:
        click.echo(f"# crontab line (install with: learn schedule --cron --install)\n{line}")
        return
    code, current, err = runner(["crontab", "-l"], None)
    if code != 0 and "no crontab" not in err.lower():
        _check(code, err, "crontab -l")
    merged = merge_crontab(current if code == 0 else "", None if remove else line)
    code, _, err = runner(["crontab", "-"], merged)
    _check(code, err, "crontab -")
    click.echo("removed the learn-digest crontab line" if remove
               else f"installed the crontab line ({spec.every}); digests go to "
                    f"{spec.digests_dir}")


def _launchd(spec: ScheduleSpec, install: bool, remove: bool) -> None:
    path = launchd_path(Path.home())
    plist = launchd_plist(spec)
    if not install and not remove:
        click.echo(f"<!-- {path} -->\n{plist}")
        click.echo(f"<!-- to install: learn schedule --launchd --install, or save it and run: "
                   f"launchctl load -w {path} -->")
        return
    if sys.platform != "darwin":
        raise click.ClickException("launchd is macOS only; use systemd or cron here")
    if remove:
        runner(["launchctl", "unload", "-w", str(path)], None)
        path.unlink(missing_ok=True)
        click.echo(f"removed {path}")
        return
    atomic_write_text(path, plist)
    code, _, err = runner(["launchctl", "load", "-w", str(path)], None)
    _check(code, err, "launchctl load")
    click.echo(f"installed {path} ({spec.every}); digests go to {spec.digests_dir}")
