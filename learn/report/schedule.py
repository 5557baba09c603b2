"""Periodic digests: a systemd user timer, a crontab line, or a launchd agent.

All three run the same small script learn writes in its config folder
(`<config dir>/learn-digest.sh`, 0700, SCRIPT): `learn run --yes --quiet --since
<twice the period> --out <data dir>/digests/digest-<date>.md`, over every project unless
one is given (a service starts in $HOME, where "the current project" means nothing). The
run writes its digest file even when some sessions failed, or could not start at all (no
key, another run holding the lock: learn.commands.run writes "could not run" there), and
exits non-zero then, so the service manager records the failure without losing the
digest. The script logs to `<data dir>/digests/schedule.log` whatever the scheduler,
ending each run with a `learn-digest: <time> exit <code>` line that `learn doctor` reads.
A run that stops before its digest never replaces a digest of the same day: `learn run`
writes its "could not run" digest beside it, to `digest-<date>.failed.md`
(learn.commands.run._write_failure): both went to the same `--out`, so a failed run after a
good one the same day (the job run again by hand, a second run after a wake) wrote its
failure over that day's digest. The job keeps those as it keeps digests.

A systemd user timer fires only while its user's manager runs, which without lingering
(`loginctl enable-linger`) is only while the user is logged in: on a machine reached by
ssh now and then, the digest came only on the days somebody happened to log in.
`learn schedule` says so when it installs the timer (linger_warning), and doctor too
(learn.doctor_schedule, by linger_off).

Why a script and not the line itself: the line repeated each folder four or five times
and embedded the whole PATH, 892 bytes for /home/alice with PATH=/usr/bin:/bin and 1039
with a desktop PATH, and Vixie-derived cron (Debian's `cron`, macOS, FreeBSD) keeps only
the first 999 bytes of a command, silently: the cut line redirected into a folder and
never started learn (audit60 F2). The crontab line is now `/bin/sh '<script>'`, and one
that would still be over MAX_CRON_COMMAND is refused at install. The script holds only
learn's own paths, flags and variable names: nothing a transcript says reaches it.

Why twice the period (`--since 14d` weekly): a run missed while the laptop slept, or one
that failed at wake before the network was up, left that week's sessions out of every
scheduled digest; sessions already mined are cache hits and cost nothing.

Rendering is pure; installing shells out through an injectable runner.

The job runs where nothing of the person's shell is set, so the variables that moved
learn's folders when it was installed (CARRIED) are exported by the job's own line: with
LEARN_DATA_DIR and LEARN_CONFIG_DIR set, the cron line wrote its digests and read
schedule.env in the moved folders while the `learn run` inside it, started without them,
read and wrote the default store and config. One line for all three schedulers, as PATH
already was: cron has no per-line environment, and the line's quoting for each format
(systemd's `%%`/`$$`, cron's `\\%`, the plist's XML) is the one the folders' own names
already go through. A value no format can carry (a control character, a byte that is
not UTF-8) is refused before anything is written (unwritable), never escaped.

The job runs unattended with the person's credentials, so what it runs is only what
they can see: the env file it sources must be their own file that nobody else can
write (env_file_problem at install, and the job itself checks the file at every run:
a schedule.env made group-writable, or swapped for a link, after the install would
have run as their shell at 09:00). learn tells its own units and plist (a line saying
so, OWNED) and crontab line (its shape and tag, cron_is_ours) from a person's of the
same name, and touches only its own.
"""

from __future__ import annotations

import os
import plistlib
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Every = Literal["daily", "weekly"]

# What moves learn's folders (learn.paths) and the agents' (learn.transcripts: where each
# keeps its transcripts), in the order the job exports them; each is carried only when set
# and not empty (learn reads an empty one as unset). Without CLAUDE_CONFIG_DIR the job read
# 2 sessions (Codex's) where `learn sessions` by hand read 8, and said nothing (audit60 F3).
CARRIED = ("LEARN_DATA_DIR", "LEARN_CONFIG_DIR", "LEARN_CACHE_DIR",
           "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
           "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
           "OPENCODE_DB", "OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG")

# Where the model is reached: not carried (an endpoint or proxy of the moment, a VPN's, is
# not the job's to keep), but said at install when set now and not in schedule.env: a
# gateway user's job sent the key to api.anthropic.com and failed at every run.
REACH = ("ANTHROPIC_BASE_URL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
         "ALL_PROXY", "all_proxy")

# Exported by the job before schedule.env is read (the person may set either there).
# LEARN_LOCK_TIMEOUT: a run in progress at the job's hour finishes first; the default 10 s
# is for a person at a terminal, and the job exited 75 with no digest that week (F4).
# LEARN_SCHEDULED_JOB: `learn run` words its fixes for the job (put the key in
# schedule.env, not "export" it in a shell the job never sees).
JOB_ENV = (("LEARN_LOCK_TIMEOUT", "3600"), ("LEARN_PREFLIGHT_WAIT", "600"),
           ("LEARN_SCHEDULED_JOB", "1"))
SCHEDULED_ENV = "LEARN_SCHEDULED_JOB"

SCRIPT = "learn-digest.sh"
LOG = "schedule.log"
# The first line of the digest of a run that stopped before its digest
# (learn.commands.run.not_run_digest, pinned to it by tests/test_schedule_gaps.py): `learn
# run` tells a failure from a digest by these, and never puts one over a digest.
STOPPED_HEADS = ("[learn-digest] learn run could not run",
                 "[learn-digest] learn run stopped before its digest")
# Where such a failure goes when the day's digest is already there: digest-<date> + this.
FAILED_SUFFIX = ".failed.md"
# Where systemd-logind marks the users whose manager runs with nobody logged in: a file
# named for the user (`loginctl enable-linger` makes it). Read, never asked of loginctl:
# doctor stays a few stats. A module constant so tests can point it elsewhere.
LINGER_DIR = Path("/var/lib/systemd/linger")
# Vixie cron's MAX_COMMAND is 1000 with the terminating NUL: 999 bytes of command are kept.
MAX_CRON_COMMAND = 999
# Digests kept in the digests folder, a year of weekly ones (the oldest removed by the job).
KEEP_DIGESTS = 52
# schedule.log is moved to schedule.log.1 past this, as hook.log is (learn.hook.worker).
LOG_MAX_BYTES = 1 << 20

# C0 and C1 controls and the Unicode line separators. A newline in a folder name
# became a line of the unit (`ExecStartPre=...` of the folder's choosing) and split
# the crontab entry into lines `--remove` never found: no quoting survives a line
# break in a systemd unit or a crontab, so such a value is refused, not escaped.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A byte that is not UTF-8, as Python holds it (surrogateescape): a unit and a plist
# are UTF-8 text, and writing one stopped with a UnicodeEncodeError.
_NOT_UTF8 = re.compile(r"[\ud800-\udfff]")
_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

UNIT = "learn-digest"
CRON_TAG = "# learn-digest"
LAUNCHD_LABEL = "dev.learn.digest"
# The first line of each unit and plist learn writes: a file without it (or the lines
# learn wrote before it had one, _EARLIER) is somebody else's and is neither replaced nor
# removed. No `--` in it: it is also an XML comment.
OWNED = "Written by learn schedule, which replaces or removes this file."
_EARLIER = frozenset({"Description=learn: digest of what you keep telling your coding agent",
                      "Description=learn: daily digest", "Description=learn: weekly digest",
                      f"<string>{LAUNCHD_LABEL}</string>"})


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    every: Every
    learn: tuple[str, ...]  # how to invoke learn, e.g. ("/venv/bin/python", "-P", "-m", "learn")
    digests_dir: Path
    env_file: Path  # sourced if present: where an API key can live, 0600, written by the user
    since: str = "14d"
    path_env: str | None = None  # PATH to run with (the service manager's is minimal)
    project: Path | None = None  # None: every project
    hour: int = 9
    # (name, value) exported before learn runs: the CARRIED variables set at install.
    env: tuple[tuple[str, str], ...] = ()

    @property
    def script(self) -> Path:
        """The job's script, beside schedule.env in learn's config folder."""
        return self.env_file.with_name(SCRIPT)

    @property
    def log(self) -> Path:
        return self.digests_dir / LOG


def since_for(every: str) -> str:
    """How far back the job reads: twice its period."""
    return "2d" if every == "daily" else "14d"


def unwritable(value: str) -> str | None:
    """Why `value` cannot be part of a job learn writes (None: it can), said after the
    name of what holds it: no format's quoting carries it, so it is refused."""
    found = _CONTROL.search(value)
    if found:
        return (f"holds a control character ({found.group()!r} in {value!r}), which a unit or "
                "crontab line cannot quote (a line break starts a line of its own)")
    found = _NOT_UTF8.search(value)
    if found:
        return (f"holds a byte that is not UTF-8 (in {value!r}), which a unit or plist cannot "
                "hold")
    return None


def _export(name: str, value: str) -> str:
    """`export NAME='value';` for the job's shell. A value unwritable() refuses never gets
    here (learn.commands.schedule.make_spec); if one does, no job is rendered at all."""
    problem = unwritable(value)
    if not _NAME.fullmatch(name) or problem:
        raise ValueError(f"{name!r} cannot be exported by the job: {problem or 'not a name'}")
    return f"export {name}={shlex.quote(value)};"


def shell_line(spec: ScheduleSpec) -> str:
    learn = " ".join(shlex.quote(a) for a in spec.learn)
    out_dir = shlex.quote(str(spec.digests_dir))
    where = f"--project {shlex.quote(str(spec.project))}" if spec.project else "--all-projects"
    # umask first: `mkdir -p` made the folders above the digests 0755 (learn's data folder,
    # which learn keeps 0700) and the log took cron's 022.
    parts = ["umask 077;"]
    if spec.path_env:
        parts.append(_export("PATH", spec.path_env))
    parts.extend(_export(name, value) for name, value in JOB_ENV)
    # Before schedule.env is read: a variable the person sets there is theirs to set.
    parts.extend(_export(name, value) for name, value in spec.env)
    parts.append(_source_if_own(spec.env_file))
    parts.append(f"mkdir -p -m 700 {out_dir} &&")
    # stdout is the same digest again; the file is what the schedule is for.
    parts.append(f"exec {learn} run --yes --quiet {where} --since {shlex.quote(spec.since)} "
                 f"--out {out_dir}/digest-$(date +%F).md >/dev/null")
    return " ".join(parts)


def _source_if_own(env_file: Path) -> str:
    """The shell that reads `env_file` into the job only while it is the person's own
    regular file that nobody else may write (`find` prints it only then; it does not
    follow a link, so a link is not `-type f`); else a line in the job's log saying why."""
    env = shlex.quote(str(env_file))
    own = f'find {env} -prune -type f -user "$(id -u)" ! -perm -020 ! -perm -002'
    refused = ('echo "learn-digest: not reading" ' + env + ' "(a link, not yours, or '
               'writable by others; it must be your own file, chmod 600)" >&2')
    return (f'if [ -e {env} ] || [ -h {env} ]; then if [ -n "$({own})" ]; then '
            f"set -a; . {env}; set +a; else {refused}; fi; fi;")


def _systemd_quote(line: str) -> str:
    # systemd expands %specifiers and $VARS itself: double them so the shell sees them.
    escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return '"' + escaped.replace("$", "$$") + '"'


def job_script(spec: ScheduleSpec) -> str:
    """The script every scheduler runs: shell_line in a subshell, its output appended to
    schedule.log (rotated past LOG_MAX_BYTES), then a last line with the time and the exit
    code for `learn doctor`, and the digests past KEEP_DIGESTS removed, oldest first (and
    as many of the failures `learn run` wrote beside a digest, FAILED_SUFFIX)."""
    out_dir = shlex.quote(str(spec.digests_dir))
    log = shlex.quote(str(spec.log))
    # digest-YYYY-MM-DD.md only: a file of the person's own in the folder is theirs.
    day = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
    dated, failed = f"digest-{day}.md", f"digest-{day}{FAILED_SUFFIX}"
    return (
        "#!/bin/sh\n"
        f"# {OWNED}\n"
        f"# learn's {spec.every} digest job: cron, systemd or launchd runs it. Print it with\n"
        "# `learn schedule`; `learn schedule --remove` removes the job and this file.\n"
        f"# every={spec.every}\n"
        "umask 077\n"
        f"mkdir -p -m 700 {out_dir} || exit 1\n"
        f'if [ -n "$(find {log} -prune -size +{LOG_MAX_BYTES}c 2>/dev/null)" ]; then '
        f"mv -f {log} {log}.1; fi\n"
        f"exec >>{log} 2>&1\n"
        f"( {shell_line(spec)} )\n"
        "code=$?\n"
        'echo "learn-digest: $(date +%Y-%m-%dT%H:%M:%S%z) exit $code"\n'
        + "".join(f"( cd {out_dir} && ls -1r {pattern} 2>/dev/null | "
                  f"tail -n +{KEEP_DIGESTS + 1} | "
                  'while IFS= read -r old; do rm -f -- "$old"; done )\n'
                  for pattern in (dated, failed))
        + 'exit "$code"\n'
    )


def systemd_service(spec: ScheduleSpec) -> str:
    job_script(spec)  # a value no job can carry renders no part of one (ValueError)
    return (
        f"# {OWNED}\n"
        "[Unit]\n"
        "Description=learn: digest of what you keep telling your coding agent\n"
        "\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart=/bin/sh {_systemd_quote(str(spec.script))}\n"
        "Nice=10\n"
    )


def systemd_timer(spec: ScheduleSpec) -> str:
    when = f"*-*-* {spec.hour:02d}:00:00"
    if spec.every == "weekly":
        when = f"Mon {when}"
    return (
        f"# {OWNED}\n"
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
    """The crontab line: the script, by sh (no exec bit needed), and learn's tag."""
    job_script(spec)  # a value no job can carry renders no part of one (ValueError)
    dow = "1" if spec.every == "weekly" else "*"
    command = f"/bin/sh {shlex.quote(str(spec.script))}"
    return f"0 {spec.hour} * * {dow} {_cron_escape(command)} {CRON_TAG}"


def cron_too_long(line: str) -> str | None:
    """Why Vixie-derived cron would cut `line` (None: it would not): its command, as
    cron reads it (after the five time fields), over MAX_CRON_COMMAND bytes."""
    command = line.split(" ", 5)[5]
    size = len(command.encode("utf-8", "surrogateescape"))
    if size <= MAX_CRON_COMMAND:
        return None
    return (f"the crontab line's command is {size} bytes, and Debian's, macOS's and FreeBSD's "
            f"cron keep only the first {MAX_CRON_COMMAND} and drop the rest without a word, so "
            "the job would never run")


def _cron_escape(command: str) -> str:
    """`command` as a crontab line carries it to /bin/sh. cron cuts the command at a bare
    `%` (the rest becomes its stdin) and reads `\\%` as a `%`, stripping the backslash;
    a backslash right before a `%` (a folder named `a\\%b`) has no spelling cron keeps,
    so that `%` is moved out of its single quotes first (`'a\\'%'b'` is the same word
    to sh). A backslash in this line is only ever inside shlex's single quotes."""
    return command.replace("\\%", "\\'%'").replace("%", "\\%")


def cron_is_ours(line: str) -> bool:
    """Whether a crontab line is the one cron_line wrote (any version of it): its
    schedule, learn's run and the tag. A person's own line that mentions the tag
    (`... # learn-digest` after their own command) is theirs."""
    return _OUR_CRON.fullmatch(line.rstrip()) is not None


# Today's line (the script) and the long line learn wrote before it had a script.
_OUR_CRON = re.compile(r"0 \d{1,2} \* \* [1*] (?:/bin/sh \S.*" + re.escape(SCRIPT) + r"'?|"
                       r"(?:umask 077; )?mkdir -p -m 700 .* run --yes --quiet .*) "
                       + re.escape(CRON_TAG))


def merge_crontab(existing: str, line: str | None) -> str:
    """The crontab with our line replaced in place (appended when there was none; removed
    when `line` is None), every other byte kept: comments, blank lines, a CRLF, a `\\r`
    inside a line (split there, `# off\\r0 * * * * job` became a job of its own), a last
    line without a newline (given one only when our line goes after it: cron needs it)."""
    # Each line with its own ending; only "\n" ends a line for cron.
    pieces = re.findall(r"[^\n]*\n|[^\n]+\Z", existing)
    out: list[str] = []
    placed = line is None
    for piece in pieces:
        if not cron_is_ours(piece.removesuffix("\n")):
            out.append(piece)
        elif not placed:
            out.append(f"{line}\n")
            placed = True
    if not placed:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append(f"{line}\n")
    return "".join(out)


def written_by_learn(data: bytes) -> bool:
    """Whether a unit or plist file holds the line learn writes in it (OWNED), or one
    of the lines only learn's units and plist held before that line existed."""
    lines = {x.strip() for x in data.decode("utf-8", "replace").splitlines()}
    return bool({f"# {OWNED}", f"<!-- {OWNED} -->"} & lines or _EARLIER & lines)


def env_file_problem(path: Path) -> str | None:
    """Why the job must not source `path` (None: it may, or there is no such file): the
    job runs it as shell with the person's credentials, so it must be their own regular
    file (not a link) in their own folder, neither writable by anybody else."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for where, what in ((path.parent, "folder"), (path, "file")):
        try:
            # The folder followed (a ~/.config that is a link to dotfiles is the person's);
            # the file not: a link is refused, whatever it leads to.
            st = os.stat(where) if what == "folder" else os.lstat(where)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{where} cannot be looked at ({exc.strerror or exc})"
        if what == "file" and stat.S_ISLNK(st.st_mode):
            return f"{where} is a link"
        if what == "file" and not stat.S_ISREG(st.st_mode):
            return f"{where} is not a regular file"
        if uid is not None and st.st_uid != uid:
            return f"{where} belongs to another user (uid {st.st_uid})"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{where} is writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'}"
    return None


def launchd_plist(spec: ScheduleSpec) -> str:
    job_script(spec)  # a value no job can carry renders no part of one (ValueError)
    interval: dict[str, int] = {"Hour": spec.hour, "Minute": 0}
    if spec.every == "weekly":
        interval["Weekday"] = 1
    # What launchd itself writes (a script it cannot start); the folder is made at install:
    # launchd opens the file before the script runs.
    log = str(spec.log)
    data = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": ["/bin/sh", str(spec.script)],
        "StartCalendarInterval": interval,
        "StandardOutPath": log,
        "StandardErrorPath": log,
        "RunAtLoad": False,
    }
    text = plistlib.dumps(data, sort_keys=False).decode("utf-8")
    head, sep, rest = text.partition("<plist ")
    return f"{head}<!-- {OWNED} -->\n{sep}{rest}"


def linger_off(linger_dir: Path | None = None) -> str | None:
    """This user's name when lingering is off for them (no mark in `linger_dir`, default
    LINGER_DIR), so their systemd user timers fire only while they are logged in; None
    when it is on, or when that cannot be told."""
    user = _user_name()
    if user is None:
        return None
    where = LINGER_DIR if linger_dir is None else linger_dir
    try:
        return None if (where / user).exists() else user
    except OSError:
        return None


def linger_warning(linger_dir: Path | None = None) -> str | None:
    """What `learn schedule` says after installing the timer when lingering is off, with
    the fix; None when it is on."""
    user = linger_off(linger_dir)
    if user is None:
        return None
    return (f"lingering is off for {user}, so systemd runs your user timers only while you "
            "are logged in: the digest's timer does not fire while nobody is (a missed run "
            f"waits for the next login); fix: loginctl enable-linger {user}")


def _user_name() -> str | None:
    # The name logind files the linger mark under: the account's, not $USER (sudo, su).
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, AttributeError):
        return None


def systemd_dir() -> Path:
    # systemd looks in $XDG_CONFIG_HOME/systemd/user (default ~/.config).
    value = os.environ.get("XDG_CONFIG_HOME")
    base = Path(value).expanduser() if value else Path.home() / ".config"
    return base / "systemd" / "user"


def launchd_path(home: Path) -> Path:
    return home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
