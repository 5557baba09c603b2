"""Periodic digests: a systemd user timer, a crontab line, or a launchd agent.

All three run the same shell line: `learn run --yes --quiet --since 7d --out
<data dir>/digests/digest-<date>.md`, over every project unless one is given
(a service starts in $HOME, where "the current project" means nothing). The run
writes its digest file even when some sessions failed, and exits non-zero then,
so the service manager records the failure without losing the digest.

Rendering is pure; installing shells out through an injectable runner.
"""

from __future__ import annotations

import os
import plistlib
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Every = Literal["daily", "weekly"]

UNIT = "learn-digest"
CRON_TAG = "# learn-digest"
LAUNCHD_LABEL = "dev.learn.digest"


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    every: Every
    learn: tuple[str, ...]  # how to invoke learn, e.g. ("/venv/bin/python", "-m", "learn")
    digests_dir: Path
    env_file: Path  # sourced if present: where an API key can live, 0600, written by the user
    since: str = "7d"
    path_env: str | None = None  # PATH to run with (the service manager's is minimal)
    project: Path | None = None  # None: every project
    hour: int = 9


def shell_line(spec: ScheduleSpec) -> str:
    learn = " ".join(shlex.quote(a) for a in spec.learn)
    out_dir = shlex.quote(str(spec.digests_dir))
    env = shlex.quote(str(spec.env_file))
    where = f"--project {shlex.quote(str(spec.project))}" if spec.project else "--all-projects"
    parts = []
    if spec.path_env:
        parts.append(f"export PATH={shlex.quote(spec.path_env)};")
    parts.append(f"if [ -f {env} ]; then set -a; . {env}; set +a; fi;")
    parts.append(f"mkdir -p -m 700 {out_dir} &&")
    # stdout is the same digest again; the file is what the schedule is for.
    parts.append(f"exec {learn} run --yes --quiet {where} --since {shlex.quote(spec.since)} "
                 f"--out {out_dir}/digest-$(date +%F).md >/dev/null")
    return " ".join(parts)


def _systemd_quote(line: str) -> str:
    # systemd expands %specifiers and $VARS itself: double them so the shell sees them.
    escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return '"' + escaped.replace("$", "$$") + '"'


def systemd_service(spec: ScheduleSpec) -> str:
    return (
        "[Unit]\n"
        "Description=learn: digest of what you keep telling your coding agent\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart=/bin/sh -c {_systemd_quote(shell_line(spec))}\n"
        "Nice=10\n"
    )


def systemd_timer(spec: ScheduleSpec) -> str:
    when = f"*-*-* {spec.hour:02d}:00:00"
    if spec.every == "weekly":
        when = f"Mon {when}"
    return (
        "[Unit]\n"
        f"Description=learn: {spec.every} digest\n"
        "\n"
        "[Timer]\n"
        f"OnCalendar={when}\n"
        # Persistent: a laptop asleep at 09:00 still gets its digest when it wakes.
        "Persistent=true\n"
        "RandomizedDelaySec=10min\n"
        "\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )


def cron_line(spec: ScheduleSpec) -> str:
    dow = "1" if spec.every == "weekly" else "*"
    # cron turns an unescaped % into a newline.
    log = shlex.quote(str(spec.digests_dir / "schedule.log"))
    out_dir = shlex.quote(str(spec.digests_dir))
    # The log sits in the digests dir, so that must exist before the redirect opens it.
    command = (f"mkdir -p -m 700 {out_dir} && ( {shell_line(spec)} ) >>{log} 2>&1"
               .replace("%", "\\%"))
    return f"0 {spec.hour} * * {dow} {command} {CRON_TAG}"


def merge_crontab(existing: str, line: str | None) -> str:
    """The crontab with our line replaced (or removed when `line` is None); the rest kept."""
    kept = [x for x in existing.splitlines() if not x.rstrip().endswith(CRON_TAG)]
    if line is not None:
        kept.append(line)
    return "\n".join(kept) + "\n" if kept else ""


def launchd_plist(spec: ScheduleSpec) -> str:
    interval: dict[str, int] = {"Hour": spec.hour, "Minute": 0}
    if spec.every == "weekly":
        interval["Weekday"] = 1
    log = str(spec.digests_dir / "schedule.log")
    data = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": ["/bin/sh", "-c", shell_line(spec)],
        "StartCalendarInterval": interval,
        "StandardOutPath": log,
        "StandardErrorPath": log,
        "RunAtLoad": False,
    }
    return plistlib.dumps(data, sort_keys=False).decode("utf-8")


def systemd_dir() -> Path:
    # systemd looks in $XDG_CONFIG_HOME/systemd/user (default ~/.config).
    value = os.environ.get("XDG_CONFIG_HOME")
    base = Path(value).expanduser() if value else Path.home() / ".config"
    return base / "systemd" / "user"


def launchd_path(home: Path) -> Path:
    return home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
