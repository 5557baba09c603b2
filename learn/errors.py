"""One line, with the fix, for a setup learn cannot work in, whichever command met it.

A corrupt learn.db, a data directory another user owns (after one `sudo learn …`),
an unwritable LEARN_DATA_DIR: each surfaces deep inside some command as an apsw,
store or OS error. The CLI edge (learn.cli) hands every exception a command lets
through to `explain`, which asks doctor's checks what is wrong, so every command
says what `learn doctor` says, in one line, instead of a traceback.

Exit codes, the same for every command: 0 ok; 1 failure or partial failure (a
damaged setup, a session or stage that failed); 2 usage or configuration (a flag,
a config key, no API key, no `claude`); 3 the model backend cannot be used now
(its host does not resolve or refuses, TLS fails, the key is refused, `claude` is
not logged in: said before anything is read, or the key refused mid-run, which stops
the run there); 75 another learn run holds the lock (or another learn command is writing to the agents' files)
(sysexits' EX_TEMPFAIL: try again later, as cron and scripts read it); 130
interrupted (Ctrl-C, the shell's 128 + SIGINT); 143 and 129 ended by SIGTERM or
SIGHUP, the same way (learn.termination).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_BUSY = 75
EXIT_INTERRUPTED = 130


def _store(exc: BaseException) -> tuple[str, int]:
    found = _first_failure(_store_checks())
    if found is not None:
        return found, EXIT_FAILURE
    return f"the store failed: {exc}; fix: `learn doctor` checks the setup", EXIT_FAILURE


def _full(exc: BaseException) -> tuple[str, int]:
    # Said as it is, before doctor's checks: they open the store read-only, which a
    # full disk lets through, and answered with what they found instead (a migration
    # the full disk had stopped: "the next `learn run` migrates it").
    return (f"{exc}; nothing was lost: what learn finished is kept; fix: free some disk space "
            "and run it again", EXIT_FAILURE)


def _config(exc: BaseException) -> tuple[str, int]:
    from learn.doctor_config import check_config

    check, _ = check_config()
    if check.status == "fail":
        return f"invalid config: {check.detail}; fix: {check.hint}", EXIT_USAGE
    return f"invalid config: {exc}", EXIT_USAGE


def _file(exc: BaseException) -> tuple[str, int]:
    assert isinstance(exc, OSError)
    where = Path(exc.filename) if exc.filename else None
    if where is not None:
        found = _first_failure(_dir_checks(where))
        if found is not None:
            return found, EXIT_FAILURE
    what = f"{where}: {exc.strerror}" if where is not None and exc.strerror else str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"{what}; fix: give yourself access to it (chown/chmod; `learn doctor` "
                "checks learn's own directories)", EXIT_FAILURE)
    if exc.errno == errno.ENOSPC:
        return f"{what}; fix: free some disk space and run it again", EXIT_FAILURE
    return what, EXIT_FAILURE


def _database_lost(exc: BaseException) -> tuple[str, int]:
    # A PostgreSQL store (or team database) that stopped mid-command: the server was
    # shut down or restarted, the network dropped, a statement ran past its limit
    # (learn.store.postgres). Said before any doctor check: those would connect to the
    # same server and wait on it again. What a run paid for is already in its `runs`
    # row (learn.store.run_usage), so running it again loses nothing.
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()),
                 type(exc).__name__)
    return (f"the database stopped answering or dropped the connection ({first}); what was "
            "committed is kept, a run's paid model calls included; fix: check the database is "
            "reachable and run it again", EXIT_FAILURE)


# Exception class ("module.qualname", matched along the exception's MRO so that
# matching imports nothing on the happy path) -> how to say it; None: not a
# setup problem, let it through (click already handles a closed pipe quietly).
EXPLAIN: dict[str, Callable[[BaseException], tuple[str, int]] | None] = {
    "builtins.BrokenPipeError": None,
    "learn.config.ConfigError": _config,
    "learn.store.db.StoreFullError": _full,
    "learn.store.db.StoreError": _store,
    "apsw.Error": _store,
    # psycopg's, met mid-command (connecting is a StoreError already): AdminShutdown,
    # a dropped connection, statement_timeout's QueryCanceled; not its SQL errors.
    "psycopg.OperationalError": _database_lost,
    "psycopg.InterfaceError": _database_lost,
    "builtins.OSError": _file,
}


def explain(exc: BaseException) -> tuple[str, int] | None:
    """(one line saying what is wrong and the fix, exit code), or None when `exc`
    is not a damaged or unwritable setup (a bug: let the traceback show)."""
    for cls in type(exc).__mro__:
        name = f"{cls.__module__}.{cls.__qualname__}"
        if name in EXPLAIN:
            how = EXPLAIN[name]
            if how is None:
                return None
            try:
                line, code = how(exc)
            except Exception:  # diagnosing must never hide the original error
                line, code = f"{exc}; fix: `learn doctor` checks the setup", EXIT_FAILURE
            # The line quotes a driver's, a validator's or the OS's error, and those
            # quote what they were given: a LEARN_DATABASE_URL whose port was a pasted
            # key ("cannot connect to postgresql://…@db:sk-ant-…/learn"), a config
            # value. The credentials learn holds go by value (learn.held_secrets), then
            # every shape (learn.redaction.redact), as a traceback's do (learn.crash_output):
            # the line is read where the traceback would be. Imported only here, on
            # the way out of a failed command.
            from learn.redaction.redact import redact_message

            return redact_message(line), code
    return None


def _first_failure(checks: Iterator[Any]) -> str | None:
    """The first failed check, else a store that only warns (a schema from another
    learn, which doctor can leave to the next run but a command that met it cannot)."""
    warned = None
    for check in checks:
        if check.status == "fail":
            return f"{check.detail}; fix: {check.hint}"
        if check.status == "warn" and check.name == "store" and warned is None:
            warned = f"{check.detail}; fix: {check.hint}"
    return warned


def _store_checks() -> Iterator[Any]:
    from learn.config import ConfigError
    from learn.doctor import check_dir, check_store
    from learn.paths import cache_dir, data_dir
    from learn.store.runs import default_store_path, default_store_target

    yield check_dir("data dir", data_dir())
    try:
        target: Path | str = default_store_target()
    except ConfigError:
        target = default_store_path()
    yield check_store(target)
    # The session index lives beside a PostgreSQL store's cache.
    yield check_dir("cache dir", cache_dir())


def _dir_checks(where: Path) -> Iterator[Any]:
    """Doctor's checks of the learn directory `where` is in (or on the way to)."""
    from learn.doctor import check_dir
    from learn.paths import cache_dir, config_dir, data_dir

    for name, directory in (("data dir", data_dir()), ("cache dir", cache_dir()),
                            ("config dir", config_dir())):
        if where == directory or directory in where.parents or where in directory.parents:
            yield check_dir(name, directory)
            if name == "data dir":
                yield from _store_checks()
