"""What the SessionEnd hook has been doing, for `learn doctor`: read only, nothing created.

The hook never fails Claude Code and prints nothing, so without this its queue
and its failures were invisible: a hook whose worker died, or whose backend had
no key or no login, queued sessions forever and said so only in hook.log, while
doctor said "1 queued, 0 failed" (the failed attempt was back in the queue) and
"not installed" for the hook the plugin had installed and Claude Code had fired.
So: a hook counts as installed from the person's settings.json or from an
enabled plugin; a queued session with failed attempts is a failure to report;
and the log's last error is reported unless a session was mined after it.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from learn.hook.queue import SessionQueue, hook_dir
from learn.hook.settings import (
    HOOKS,
    in_shell_form,
    is_bare,
    is_learn_hook,
    learn_hooks,
    starts_in_folder,
)
from learn.hook.worker import LOG_NAME
from learn.paths import tail_lines

# A queued session older than this with nothing in progress: no worker is draining.
STUCK_AFTER_S = 15 * 60


@dataclass(frozen=True, slots=True)
class HookHealth:
    installed: bool  # in Claude Code's settings.json or an enabled plugin
    queued: int
    working: int
    failed: int  # given up (failed/)
    oldest_queued_s: float | None  # age of the oldest queued session
    last_failure: str | None  # the newest failed attempt's error (given up or to retry)
    last_log_error: str | None  # the log's last error, when nothing succeeded after it
    log: Path
    failed_dir: Path
    retrying: int = 0  # queued again after a failed attempt
    how: str = ""  # "settings.json", "plugin learn@learn-local", or both
    bare: bool = False  # the settings hook runs a bare `learn` (needs it on Claude Code's PATH)
    in_folder: bool = False  # it runs `python -m learn` without -P (settings.starts_in_folder)
    # One of learn's own hooks (either event) is a shell line: what PowerShell, Claude
    # Code's shell on Windows without Git Bash, cannot run (settings.in_shell_form).
    shell_form: bool = False

    @property
    def stuck(self) -> bool:
        return (self.working == 0 and self.oldest_queued_s is not None
                and self.oldest_queued_s > STUCK_AFTER_S)


def hook_health(settings: Path, root: Path | None = None, *, now: float | None = None) -> HookHealth | None:
    """The hook's state, or None when it is neither installed nor ever ran.

    `settings` is Claude Code's user settings.json; its plugins are looked up
    beside it (plugins/installed_plugins.json)."""
    directory = hook_dir(root)
    data = _json(settings)
    found = learn_hooks(data) if isinstance(data, dict) else []
    # An exec-form hook's `command` is only its interpreter: no shell line to judge.
    shell = [h for h in found if "args" not in h]
    plugins = plugin_hooks(settings.parent, data if isinstance(data, dict) else {})
    how = ", ".join([*(["settings.json"] if found else []), *(f"plugin {p}" for p in plugins)])
    installed = bool(how)
    if not installed and not directory.exists():
        return None
    queue = SessionQueue(root)
    now = time.time() if now is None else now
    queued = _jobs(queue.queued)
    failed = sorted(_jobs(queue.failed), key=_mtime)
    retrying = sorted((p for p in queued if _attempts(p) > 0), key=_mtime)
    newest = sorted([*failed, *retrying], key=_mtime)
    last_failure = None
    if newest:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            error = json.loads(newest[-1].read_text(encoding="utf-8")).get("last_error")
            last_failure = error if isinstance(error, str) else None
    return HookHealth(
        installed=installed,
        queued=len(queued),
        working=len(_jobs(queue.working)),
        failed=len(failed),
        oldest_queued_s=now - min(_mtime(p) for p in queued) if queued else None,
        last_failure=last_failure,
        last_log_error=_last_error(directory / LOG_NAME),
        log=directory / LOG_NAME,
        failed_dir=queue.failed,
        retrying=len(retrying),
        how=how,
        bare=any(is_bare(str(h.get("command", ""))) for h in shell),
        in_folder=any(starts_in_folder(str(h.get("command", ""))) for h in shell),
        shell_form=isinstance(data, dict) and any(
            in_shell_form(h, args) for event, args, _ in HOOKS
            for h in learn_hooks(data, event, args, own=True)),
    )


def plugin_hooks(claude_home: Path, settings: dict[str, object]) -> list[str]:
    """Enabled plugins (Claude Code's installed_plugins.json) whose hooks run learn's hook."""
    installed = _json(claude_home / "plugins" / "installed_plugins.json")
    plugins = installed.get("plugins") if isinstance(installed, dict) else None
    enabled = settings.get("enabledPlugins")
    enabled = enabled if isinstance(enabled, dict) else {}
    out: list[str] = []
    for name, entries in (plugins.items() if isinstance(plugins, dict) else ()):
        if enabled.get(name) is False or not isinstance(entries, list):
            continue
        for entry in entries:
            where = entry.get("installPath") if isinstance(entry, dict) else None
            hooks = _json(Path(where) / "hooks" / "hooks.json") if isinstance(where, str) else None
            if isinstance(hooks, dict) and learn_hooks(hooks):
                out.append(str(name))
                break
    return out


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _attempts(path: Path) -> int:
    data = _json(path)
    value = data.get("attempts") if isinstance(data, dict) else None
    return value if isinstance(value, int) else 0


def _jobs(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.suffix == ".json"]
    except OSError:
        return []


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _last_error(log: Path) -> str | None:
    """The log's last error the hook or worker caught (`hook: Type: message` /
    `worker: Type: message` / `session <id>: Type: message`), without its stamp,
    unless a session was mined after it."""
    tail = tail_lines(log)
    if tail is None:
        return None
    for line in reversed(tail):
        # "<stamp> [<pid>] <message>"
        message = line.split("] ", 1)[-1]
        head, _, rest = message.partition(": ")
        if head.startswith("session ") and (rest.startswith(("mined", "already mined"))):
            return None  # something worked after any earlier error
        if (head in ("hook", "worker") or head.startswith("session ")) \
                and rest[:1].isupper() and ": " in rest:
            return message[:300]
    return None


__all__ = ["HookHealth", "hook_health", "is_learn_hook", "plugin_hooks"]
