"""What the SessionEnd hook has been doing, for `learn doctor`: read only, nothing created.

The hook never fails Claude Code and prints nothing, so without this its queue
and its failures were invisible: a hook whose worker died, or whose backend had
no key, queued sessions forever and said so only in hook.log.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from learn.hook.queue import SessionQueue, hook_dir
from learn.hook.settings import has_hook
from learn.hook.worker import LOG_NAME

# A queued session older than this with nothing in progress: no worker is draining.
STUCK_AFTER_S = 15 * 60


@dataclass(frozen=True, slots=True)
class HookHealth:
    installed: bool  # learn's SessionEnd hook is in Claude Code's user settings.json
    queued: int
    working: int
    failed: int
    oldest_queued_s: float | None  # age of the oldest queued session
    last_failure: str | None  # the newest failed session's last error
    last_log_error: str | None  # the log's last line, when it reports an exception
    log: Path
    failed_dir: Path

    @property
    def stuck(self) -> bool:
        return (self.working == 0 and self.oldest_queued_s is not None
                and self.oldest_queued_s > STUCK_AFTER_S)


def hook_health(settings: Path, root: Path | None = None, *, now: float | None = None) -> HookHealth | None:
    """The hook's state, or None when it is neither installed nor ever ran."""
    directory = hook_dir(root)
    installed = _installed(settings)
    if not installed and not directory.exists():
        return None
    queue = SessionQueue(root)
    now = time.time() if now is None else now
    queued = _jobs(queue.queued)
    failed = sorted(_jobs(queue.failed), key=_mtime)
    last_failure = None
    if failed:
        with contextlib.suppress(OSError, ValueError):
            error = json.loads(failed[-1].read_text(encoding="utf-8")).get("last_error")
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
    )


def _installed(settings: Path) -> bool:
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and has_hook(data)


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
    """The log's last line when it is an exception the hook or worker caught
    (`hook: Type: message` / `worker: Type: message`), without its stamp."""
    try:
        with log.open("rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 4096))
            tail = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not tail:
        return None
    # "<stamp> [<pid>] <message>"
    message = tail[-1].split("] ", 1)[-1]
    head, _, rest = message.partition(": ")
    if head in ("hook", "worker") and rest[:1].isupper() and ": " in rest:
        return message[:300]
    return None
