"""`learn schedule`: print (or install) a periodic digest job.

Without --install it only prints what it would install, so the user can read a
job that will run with their credentials before it exists.

Installing touches only what learn wrote: its unit files and plist (each says so in its
first line: learn.report.schedule.OWNED) and its crontab line. A file of the same name
that learn did not write, or a link there, is left as it is and the install refused
(it replaced `learn-digest.service` whatever it was, and `--remove` deleted it); the
files are written inside their folder held open (learn.report.held_folder), never
through a link; the rest of the crontab goes back byte for byte.

One job, wherever it is: `--remove` removes learn's units, crontab line and plist, each
where it finds one, then the script (a `--cron` line stayed and kept running on a machine
where systemd had appeared, audit60 F7), and `--install` into one scheduler removes learn's
job from the others (two jobs ran at once, and one failed on the other's lock). On macOS
launchd is the default: cron there skips a run missed in sleep and cuts long commands (F6).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import click

from learn.errors import EXIT_USAGE
from learn.invocation import learn_argv
from learn.paths import config_dir, data_dir, ensure_private_dir
from learn.report.confine import read_regular
from learn.report.errors import ApplyError, ConcurrentEditError
from learn.report.held_folder import (
    Folder,
    Held,
    data_of,
    held_now,
    hold,
    replace_in,
    seen,
    unlink_in,
)
from learn.report.schedule import (
    CARRIED,
    OWNED,
    REACH,
    SCRIPT,
    UNIT,
    ScheduleSpec,
    cron_line,
    cron_too_long,
    env_file_problem,
    job_script,
    launchd_path,
    launchd_plist,
    linger_warning,
    merge_crontab,
    since_for,
    systemd_dir,
    systemd_service,
    systemd_timer,
    unwritable,
    written_by_learn,
)

# (argv, stdin) -> (exit code, stdout, stderr); replaced in tests.
Runner = Callable[[Sequence[str], str | None], tuple[int, str, str]]


def _run(argv: Sequence[str], stdin: str | None) -> tuple[int, str, str]:
    # Bytes both ways, decoded so they encode back to the same bytes: text mode read a
    # crontab's "\r\n" (and a lone "\r") as "\n", so `# off\r0 * * * * job` came back
    # as a comment and a job, and a byte that is not UTF-8 stopped with a traceback.
    data = None if stdin is None else stdin.encode("utf-8", "surrogateescape")
    try:
        proc = subprocess.run(list(argv), input=data, capture_output=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, "", str(exc)
    return (proc.returncode, proc.stdout.decode("utf-8", "surrogateescape"),
            proc.stderr.decode("utf-8", "replace"))


runner: Runner = _run


def has_systemd() -> bool:
    # /run/systemd/system exists only when systemd is PID 1 (sd_booted's test);
    # a systemctl binary alone (containers, WSL1) does not mean timers will fire.
    return shutil.which("systemctl") is not None and Path("/run/systemd/system").is_dir()


def has_cron() -> bool:
    # No `crontab` command, no cron to install into: said as that, not as the
    # "[Errno 2] No such file or directory: 'crontab'" of running it.
    return shutil.which("crontab") is not None


def carried_env() -> tuple[tuple[str, str], ...]:
    """The CARRIED variables set now, as learn reads them here: `~` expanded and made
    absolute (a relative one would be read from the job's own folder, $HOME)."""
    return tuple((name, str(Path(value).expanduser().absolute()))
                 for name in CARRIED if (value := os.environ.get(name)))


def _unwritable(spec: ScheduleSpec) -> str | None:
    """Which value of `spec` no job can carry, and why (learn.report.schedule.unwritable),
    else None. The variables first: the folders below are made of them, and the fix is
    to the variable."""
    values = {
        **dict(spec.env),
        "--project": str(spec.project) if spec.project else "",
        "--since": spec.since,
        "PATH": spec.path_env or "",
        "the Python learn runs under": " ".join(spec.learn),
        "learn's data folder (the digests')": str(spec.digests_dir),
        "learn's config folder (schedule.env's)": str(spec.env_file),
    }
    for what, value in values.items():
        problem = unwritable(value)
        if problem:
            return f"{what} {problem}"
    return None


def make_spec(every: str, since: str | None, project: Path | None = None) -> ScheduleSpec:
    """The job for these options; a ClickException, before anything is written, when a
    value of it holds a control character (it would become structure of the job) or a
    byte that is not UTF-8, or when `learn run` would refuse its --since at every run."""
    from learn.transcripts.files.discover import parse_since

    since = since or since_for(every)
    spec = ScheduleSpec(
        every="daily" if every == "daily" else "weekly",
        # The interpreter learn runs under now: a service manager's PATH will not
        # have the virtualenv on it, and `python -m learn` needs nothing else; `-P`, or
        # a ~/learn.py ran instead (cron and systemd start the job in $HOME).
        learn=tuple(learn_argv()),
        # Absolute: a relative LEARN_DATA_DIR would be read from the job's own folder.
        digests_dir=data_dir().absolute() / "digests",
        env_file=config_dir().absolute() / "schedule.env",
        since=since,
        path_env=os.environ.get("PATH"),
        project=project.resolve() if project else None,
        # LEARN_DATA_DIR and the rest, or the job's own `learn run` used the default
        # folders while its digests and schedule.env were the moved ones.
        env=carried_env(),
    )
    problem = _unwritable(spec)
    if problem:
        raise click.ClickException(f"{problem}. Nothing was written")
    try:
        parse_since(since)
    except ValueError as exc:
        raise click.ClickException(f"{exc}. Nothing was written") from None
    return spec


def env_file_keys(path: Path) -> set[str]:
    """The variables `path` sets (KEY=value lines, `export` allowed), as the job's shell reads
    it: none when the job will not read it (env_file_problem). Read bounded and without
    blocking (learn.report.confine.read_regular): a schedule.env that was a FIFO hung here."""
    if env_file_problem(path):
        return set()
    try:
        raw = read_regular(path)
    except ApplyError:
        return set()
    text = raw.decode("utf-8", "replace") if raw is not None else ""
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


def reach_warning(spec: ScheduleSpec) -> str | None:
    """The endpoint and proxy variables set now that the job will not have (REACH): they
    are not carried, and only schedule.env can give them to it."""
    job_env = env_file_keys(spec.env_file)
    missing = [name for name in REACH if os.environ.get(name) and name not in job_env]
    if not missing:
        return None
    names = ", ".join(missing)
    return (f"{names} {'is' if len(missing) == 1 else 'are'} set in this shell but will not "
            "reach the job (a scheduled job does not see your shell's variables), so it calls "
            f"the model without {'it' if len(missing) == 1 else 'them'}; fix: put "
            f"{missing[0]}=… in {spec.env_file} if the job needs it")


def env_file_refusal(spec: ScheduleSpec) -> str | None:
    """Why the job will not read its env file, or None. It runs the file as shell with the
    person's credentials at every run, so a file others may write (or a link to one) is
    not read: installing the job then is refused, printing it warns."""
    problem = env_file_problem(spec.env_file)
    if problem is None:
        return None
    return (f"the job reads {spec.env_file} as shell with your credentials, and {problem}; "
            "the job skips it at every run until it is your own file (not a link) that only "
            f"you can write: chmod 600 {spec.env_file}, chmod go-w {spec.env_file.parent}")


class NoScheduler(click.ClickException):
    """Nothing here to install the job into: exit 2, a setup to change, as for no `claude`
    (docs/usage.md, exit codes)."""

    exit_code = EXIT_USAGE


def _no_scheduler(force_cron: bool) -> None:
    """`--install` where neither a systemd user manager (or --cron said not to use it) nor
    a `crontab` command is there: says what to do instead."""
    what = ("cron is not available here (no `crontab` command on PATH)" if force_cron else
            "neither a systemd user manager nor cron (a `crontab` command on PATH) is "
            "available here")
    instead = "; on macOS: learn schedule --launchd --install" if sys.platform == "darwin" else ""
    raise NoScheduler(f"{what}, so the job cannot be installed. Nothing was installed; fix: "
                      "run `learn schedule` (without --install) to print the job and set it up "
                      f"with the scheduler you have, or install cron and run this again{instead}")


def _check(code: int, err: str, what: str) -> None:
    if code != 0:
        raise click.ClickException(f"{what} failed: {err.strip() or f'exit {code}'}")


@click.command(name="schedule")
# Two flags, not one value both set: with a shared value the last one given won, so
# `--weekly --daily` silently scheduled daily; apart, a conflict can be refused.
@click.option("--weekly", is_flag=True, help="Every Monday at 09:00 (default).")
@click.option("--daily", is_flag=True, help="Every day at 09:00.")
@click.option("--since", default=None, metavar="SPAN|DATE",
              help="How far back each scheduled run reads (default: twice the period, 14d "
                   "weekly, 2d daily).")
@click.option("--project", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Only this project's sessions (default: every project).")
@click.option("--install", is_flag=True, help="Install the job (default: only print it).")
@click.option("--remove", is_flag=True,
              help="Remove learn's job from every scheduler it is found in.")
@click.option("--cron", "force_cron", is_flag=True,
              help="Use cron even where systemd runs (or on macOS).")
@click.option("--launchd", is_flag=True, help="A launchd agent (the default on macOS).")
def command(weekly: bool, daily: bool, since: str | None, project: Path | None,
            install: bool, remove: bool, force_cron: bool, launchd: bool) -> None:
    """Set up a periodic digest: a systemd user timer, else a crontab line; launchd on macOS.

    The job is a small script learn writes, <config dir>/learn-digest.sh, which the
    scheduler runs (<config dir>: ~/.config/learn or LEARN_CONFIG_DIR; <data dir>:
    ~/.local/share/learn or LEARN_DATA_DIR; `learn schedule` prints both paths). Each
    run writes <data dir>/digests/digest-<date>.md, also when the run could not start
    (saying why), and logs to <data dir>/digests/schedule.log. A run needs a model: put
    ANTHROPIC_API_KEY=... in <config dir>/schedule.env (chmod 600) if it is not otherwise
    available to the job; the job reads that file only while it is your own
    file that nobody else can write. The job keeps LEARN_DATA_DIR, LEARN_CONFIG_DIR,
    LEARN_CACHE_DIR, the XDG_*_HOME folders and the agents' folder variables
    (CLAUDE_CONFIG_DIR, CODEX_HOME, ...) as they are set now. `--remove` removes learn's
    job from every scheduler; only learn's own units, plist, script and crontab line are
    replaced or removed.
    """
    if install and remove:
        raise click.UsageError("--install and --remove cannot be combined")
    if weekly and daily:
        raise click.UsageError("--weekly and --daily cannot be combined: choose one")
    if force_cron and launchd:
        raise click.UsageError("--cron and --launchd cannot be combined: choose one")
    spec = make_spec("daily" if daily else "weekly", since, project)
    if not remove:
        refusal = env_file_refusal(spec)
        if refusal and install:
            raise click.ClickException(f"{refusal}. Nothing was installed")
        for warning in (refusal, backend_warning(spec), reach_warning(spec)):
            if warning:
                click.echo(f"learn schedule: warning: {warning}", err=True)
    try:
        if remove:
            _remove_everywhere(spec, keep=None, force_cron=force_cron)
            return
        if launchd or (sys.platform == "darwin" and not force_cron):
            chosen = "launchd"
        elif not force_cron and has_systemd():
            chosen = "systemd"
        else:
            chosen = "cron"
        if not install:
            click.echo(f"# {spec.script} (the job the scheduler runs; written by --install)\n"
                       f"{job_script(spec)}")
        if chosen == "launchd":
            _launchd(spec, install)
        elif chosen == "systemd":
            _systemd(spec, install)
        elif install and not has_cron():
            _no_scheduler(force_cron)
        else:
            _cron(spec, install)
        if install:
            _remove_everywhere(spec, keep=chosen, force_cron=force_cron)
    # ApplyError: a unit that is not a regular file, or one that changed while learn wrote.
    except (ApplyError, OSError) as exc:
        raise click.ClickException(f"{exc}") from exc


def _remove_everywhere(spec: ScheduleSpec, *, keep: str | None, force_cron: bool) -> None:
    """Remove learn's job from every scheduler but `keep` (None: from all of them, and the
    script too), saying what was removed; with `keep` None and nothing found, says that."""
    removed: list[str] = []
    if keep != "systemd":
        removed += _systemd_remove()
    if keep != "launchd":
        removed += _launchd_remove()
    if keep != "cron" and has_cron():
        removed += _cron_remove()
    if keep is not None:
        for what in removed:
            click.echo(f"removed {what}: learn's job runs from one scheduler only")
        return
    removed += _script_remove(spec)
    for what in removed:
        click.echo(f"removed {what}")
    if not removed:
        cron = ("no learn-digest crontab line" if has_cron() else
                "cron is not available here (no `crontab` command on PATH)")
        click.echo(f"no learn-digest job is installed (no learn-digest units in "
                   f"{systemd_dir()}, no agent at {launchd_path(Path.home())}, {cron}, "
                   f"no {spec.script}); nothing to remove")


@contextlib.contextmanager
def _folder(path: Path, *, make: bool, private: bool = False) -> Iterator[Folder | None]:
    """`path` (its links resolved once, here) held open, reached from the root again with
    no link followed (learn.report.held_folder.hold); made when missing and `make`, else
    None. Every write and removal below names its file in this folder."""
    real = Path(os.path.realpath(path))
    if not make and not real.is_dir():
        yield None
        return
    folder = hold(real, seen(real), private=private)
    try:
        yield folder
    finally:
        folder.close()


def _ours(folder: Folder, leaf: str, instead: str = "schedule with --cron") -> Held | None:
    """What learn's file `leaf` holds (None: there is none); a ClickException, before
    anything changes, when the name is a link or a file learn did not write."""
    shown = folder.path / leaf
    try:
        st = os.stat(folder.name(leaf), dir_fd=folder.fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise click.ClickException(f"{shown} is a link; learn neither writes through it nor "
                                   "replaces it. Nothing was changed: remove the link, or "
                                   f"{instead}")
    held = held_now(folder, leaf)
    if held is not None and not written_by_learn(held.data):
        raise click.ClickException(f"{shown} exists and learn did not write it (its first line "
                                   f"is not \"{OWNED}\"); not touching it. Nothing was "
                                   f"changed: rename yours, or {instead}")
    return held


def _unchanged(folder: Folder, leaf: str, was: Held | None) -> None:
    if data_of(held_now(folder, leaf)) != data_of(was):
        raise ConcurrentEditError(f"{folder.path / leaf} changed while learn was writing it; "
                                  "nothing was written to it. Run `learn schedule` again")


def _replace(folder: Folder, leaf: str, text: str, was: Held | None,
             mode: int | None = None) -> bool:
    """`leaf` holding `text`, renamed into place unless it changed since `_ours` read it;
    whether anything was written. A new file is 0600 (`mode`, when given, whatever was
    there); a rewrite keeps its mode, less any write bit for others (a unit others may
    write is theirs to run)."""
    data = text.encode("utf-8")
    if was is not None and was.data == data and (
            mode is None or stat.S_IMODE(was.st.st_mode) == mode):
        return False
    if mode is None:
        mode = 0o600 if was is None else stat.S_IMODE(was.st.st_mode) & ~0o022
    replace_in(folder, leaf, data, mode, was, lambda: _unchanged(folder, leaf, was))
    return True


def _remove(folder: Folder, leaf: str, was: Held | None) -> None:
    if was is not None:
        _unchanged(folder, leaf, was)
        unlink_in(folder, leaf)


def _systemd(spec: ScheduleSpec, install: bool) -> None:
    unit_dir = systemd_dir()
    names = (f"{UNIT}.service", f"{UNIT}.timer")
    service, timer = (unit_dir / n for n in names)
    if not install:
        click.echo(f"# {service}\n{systemd_service(spec)}\n# {timer}\n{systemd_timer(spec)}")
        click.echo("# to install: learn schedule --install   (or save the files above, then)\n"
                   f"#   systemctl --user daemon-reload && systemctl --user enable --now "
                   f"{UNIT}.timer")
        return
    with _folder(unit_dir, make=True) as folder:
        assert folder is not None
        # Both looked at before either changes: a timer of somebody else's stops the
        # service (and the script) being written too.
        held = [_ours(folder, n) for n in names]
        _write_script(spec)
        for name, was, text in zip(names, held, (systemd_service(spec), systemd_timer(spec)),
                                   strict=True):
            _replace(folder, name, text, was)
    code, _, err = runner(["systemctl", "--user", "daemon-reload"], None)
    _check(code, err, "systemctl --user daemon-reload")
    code, _, err = runner(["systemctl", "--user", "enable", "--now", f"{UNIT}.timer"], None)
    _check(code, err, f"systemctl --user enable --now {UNIT}.timer")
    click.echo(f"installed {timer} ({spec.every}), running {spec.script}; digests go to "
               f"{spec.digests_dir}")
    click.echo(f"check it with: systemctl --user list-timers {UNIT}.timer")
    # Installed all the same: on a desktop somebody is logged in at 09:00, and enabling
    # lingering is the person's (or their admin's) decision, not learn's.
    linger = linger_warning()
    if linger:
        click.echo(f"learn schedule: warning: {linger}", err=True)


def _systemd_remove() -> list[str]:
    """learn's units disabled and removed, wherever systemd is (or is no longer) running."""
    unit_dir = systemd_dir()
    names = (f"{UNIT}.service", f"{UNIT}.timer")
    with _folder(unit_dir, make=False) as folder:
        if folder is None:
            return []
        held = [_ours(folder, n) for n in names]
        if held == [None, None]:
            return []
        runner(["systemctl", "--user", "disable", "--now", f"{UNIT}.timer"], None)
        for name, was in zip(names, held, strict=True):
            _remove(folder, name, was)
    # Not checked: the files are gone, and a machine without systemd any more says no.
    runner(["systemctl", "--user", "daemon-reload"], None)
    return [" and ".join(str(unit_dir / n) for n, was in zip(names, held, strict=True) if was)]


def _cron(spec: ScheduleSpec, install: bool) -> None:
    line = cron_line(spec)
    if not install:
        click.echo(f"# crontab line (install with: learn schedule --cron --install)\n{line}")
        return
    too_long = cron_too_long(line)
    if too_long:
        raise click.ClickException(f"{too_long}. Nothing was installed; fix: point "
                                   "LEARN_CONFIG_DIR at a folder with a shorter name, or use "
                                   "systemd or launchd")
    current = _crontab()
    merged = merge_crontab(current, line)
    wrote = _write_script(spec)
    if merged == current:
        click.echo(f"already installed: the crontab line ({spec.every})"
                   + (f"; rewrote {spec.script}" if wrote else ""))
        return
    # crontab takes the whole table or refuses it: a failure here leaves the old one.
    code, _, err = runner(["crontab", "-"], merged)
    _check(code, err, "crontab -")
    click.echo(f"installed the crontab line ({spec.every}), running {spec.script}; digests "
               f"go to {spec.digests_dir}")


def _crontab() -> str:
    code, current, err = runner(["crontab", "-l"], None)
    if code != 0:
        if "no crontab" not in err.lower():
            _check(code, err, "crontab -l")
        return ""
    return current


def _cron_remove() -> list[str]:
    current = _crontab()
    merged = merge_crontab(current, None)
    if merged == current:
        return []
    code, _, err = runner(["crontab", "-"], merged)
    _check(code, err, "crontab -")
    return ["the learn-digest crontab line"]


def _launchd(spec: ScheduleSpec, install: bool) -> None:
    path = launchd_path(Path.home())
    plist = launchd_plist(spec)
    if not install:
        click.echo(f"<!-- {path} -->\n{plist}")
        click.echo(f"<!-- to install: learn schedule --launchd --install, or save it and run: "
                   f"launchctl load -w {path} -->")
        return
    if sys.platform != "darwin":
        raise click.ClickException("launchd is macOS only; use systemd or cron here")
    with _folder(path.parent, make=True) as folder:
        assert folder is not None
        was = _ours(folder, path.name)
        _write_script(spec)
        # launchd opens StandardOutPath (in the digests folder) before the script runs,
        # and with its own umask: a first run into a missing folder lost its output.
        ensure_private_dir(spec.digests_dir)
        if was is not None:
            # `load` of an agent already loaded fails: the old one goes first.
            runner(["launchctl", "unload", str(path)], None)
        _replace(folder, path.name, plist, was)
    code, _, err = runner(["launchctl", "load", "-w", str(path)], None)
    _check(code, err, "launchctl load")
    click.echo(f"installed {path} ({spec.every}), running {spec.script}; digests go to "
               f"{spec.digests_dir}")


def _launchd_remove() -> list[str]:
    path = launchd_path(Path.home())
    with _folder(path.parent, make=False) as folder:
        if folder is None:
            return []
        was = _ours(folder, path.name)
        if was is None:
            return []
        if sys.platform == "darwin":
            runner(["launchctl", "unload", "-w", str(path)], None)
        _remove(folder, path.name, was)
    return [str(path)]


def _write_script(spec: ScheduleSpec) -> bool:
    """The job's script in learn's config folder, 0700 (made 0700 too); whether it changed."""
    with _folder(spec.script.parent, make=True, private=True) as folder:
        assert folder is not None
        was = _ours(folder, SCRIPT, instead="move yours aside")
        return _replace(folder, SCRIPT, job_script(spec), was, mode=0o700)


def _script_remove(spec: ScheduleSpec) -> list[str]:
    with _folder(spec.script.parent, make=False) as folder:
        if folder is None:
            return []
        was = _ours(folder, SCRIPT, instead="move yours aside")
        if was is None:
            return []
        _remove(folder, SCRIPT, was)
    return [str(spec.script)]
