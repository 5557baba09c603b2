"""Doctor's line on the periodic digest: did the installed job run, and did it work?

A scheduled run that failed left its reason only in schedule.log (or the journal), and
a job that never ran (a cut crontab line, a timer with nobody logged in, a moved
virtualenv) left nothing at all: the person saw the weekly digest stop arriving and
`learn doctor` said nothing about the schedule (audit60 F1). So, when learn's job script
is installed (learn.report.schedule.SCRIPT): a digest older than the job's period and a
day, or a last run that ended in an error, is one warning with the fix.

When the job is learn's systemd user timer and lingering is off for the user, the line
says so with the fix (learn.report.schedule.linger_warning): such a timer fires only while
the user is logged in, so "it has not run" had no reason given.

Cheap by design (doctor must stay fast): a stat of the script, one glob of the digests
folder, the last 16 KiB of the log, the timer unit's first bytes and a stat of the linger
mark; no scheduler is asked.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from learn.check import Check
from learn.paths import tail_lines
from learn.report.schedule import (
    FAILED_SUFFIX,
    LOG,
    SCRIPT,
    UNIT,
    linger_off,
    systemd_dir,
    written_by_learn,
)

_DAY = 86400.0
_EVERY = re.compile(rb"^# every=(daily|weekly)$", re.M)
_EXIT = re.compile(r"^learn-digest: (\S+) exit (\d+)$")


def check_schedule(config_dir: Path, data_dir: Path, *, now: float | None = None,
                   unit_dir: Path | None = None, linger_dir: Path | None = None) -> Check | None:
    """A line when learn's job is installed here; None when it is not. `unit_dir` is where
    systemd's user units are (default learn.report.schedule.systemd_dir), `linger_dir`
    where logind marks lingering users (default learn.report.schedule.LINGER_DIR)."""
    script = config_dir / SCRIPT
    try:
        data = script.read_bytes()[:4096]
        installed_at = script.stat().st_mtime
    except OSError:
        return None
    if not written_by_learn(data):
        return None
    found = _EVERY.search(data)
    every = found.group(1).decode() if found else "weekly"
    period = _DAY if every == "daily" else 7 * _DAY
    now = time.time() if now is None else now
    digests = data_dir / "digests"
    log = digests / LOG
    newest = _newest_digest(digests)
    again = f"run the job once by hand to see it work: /bin/sh {script}"
    user = _timer_linger(unit_dir, linger_dir)
    linger = (f"lingering is off for {user}, so the systemd timer fires only while {user} is "
              "logged in" if user else "")
    also = f"; lingering is off: loginctl enable-linger {user}" if user else ""
    failure = _last_failure(log)
    if failure is not None:
        code, why = failure
        # The log holds what the shell said, which may quote a key (a schedule.env line
        # with a space after `=` runs the key as a command): shown by shape-redaction.
        from learn.redaction.redact import redact_message

        why = redact_message(why)
        beside = _newest_digest(digests, failed=True)
        kept = (f"; what failed is in {beside[0]}, beside the day's digest it did not replace"
                if beside and (newest is None or beside[1] >= newest[1]) else "")
        return Check("schedule", "warn",
                     f"the last {every} digest run failed (exit {code})"
                     + (f": {why}" if why else "") + kept,
                     f"fix what it says (see {log}), then {again}{also}")
    since = newest[1] if newest else installed_at
    if now - since > period + _DAY:
        days = int((now - since) // _DAY)
        what = (f"the newest digest, {newest[0].name}, is {days} days old" if newest else
                f"no digest in {days} days since the job was installed")
        return Check("schedule", "warn",
                     f"{what}, and the job runs {every}: it has not run",
                     "check that the scheduler runs it (systemctl --user list-timers "
                     "learn-digest.timer; crontab -l; launchctl list dev.learn.digest), or "
                     f"reinstall it: learn schedule --{every} --install; then {again}{also}")
    last = f"; last digest {newest[0].name}" if newest else "; no digest yet"
    if user:
        return Check("schedule", "warn", f"{every} digest job installed ({script}){last}; "
                     f"{linger}",
                     f"loginctl enable-linger {user} (then it runs with nobody logged in)")
    return Check("schedule", "ok", f"{every} digest job installed ({script}){last}")


def _timer_linger(unit_dir: Path | None, linger_dir: Path | None) -> str | None:
    """The user's name when the installed job is learn's systemd user timer and lingering
    is off for them (linger_off); else None (cron and launchd run with nobody logged in)."""
    from learn.report.confine import read_regular
    from learn.report.errors import ApplyError

    timer = (systemd_dir() if unit_dir is None else unit_dir) / f"{UNIT}.timer"
    try:
        data = read_regular(timer)  # bounded, never blocking on a FIFO of that name
    except ApplyError:
        return None
    return linger_off(linger_dir) if data and written_by_learn(data) else None


def _newest_digest(digests: Path, *, failed: bool = False) -> tuple[Path, float] | None:
    """The newest digest-*.md (with `failed`: the newest digest-*.failed.md, what a run
    that stopped wrote beside the day's digest, which is not a digest)."""
    best: tuple[Path, float] | None = None
    try:
        for path in digests.glob(f"digest-*{FAILED_SUFFIX if failed else '.md'}"):
            if not failed and path.name.endswith(FAILED_SUFFIX):
                continue
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            if best is None or mtime > best[1]:
                best = (path, mtime)
    except OSError:
        return None
    return best


def _last_failure(log: Path) -> tuple[int, str] | None:
    """(exit code, the run's last `learn…` line before it) when the log's last run ended
    non-zero; None when it ended 0 or there is no log."""
    tail = tail_lines(log)
    if tail is None:
        return None
    for i in range(len(tail) - 1, -1, -1):
        found = _EXIT.match(tail[i].strip())
        if found is None:
            continue
        code = int(found.group(2))
        if code == 0:
            return None
        why = ""
        for line in reversed(tail[:i]):
            if _EXIT.match(line.strip()):
                break  # the run before
            if line.startswith(("learn", "/bin/sh", "sh:", "exec")) or "not found" in line:
                why = line.strip()[:300]
                break
        return code, why
    return None
