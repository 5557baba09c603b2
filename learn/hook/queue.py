"""The queue of ended sessions: one small JSON file per session.

`queued/<id>.json` waits; a worker claims it by renaming it into `working/`
(rename is atomic, so of two workers only one gets it: a session is never
mined twice at once); done, it is deleted; failed, it goes back with one more
attempt, or to `failed/` after MAX_ATTEMPTS. The same session queued twice is
one file. Everything lives under the data directory, 0700/0600.

A job that cannot be claimed (a rename that keeps failing: `working/<id>.json` a folder,
a file system remounted read-only, a folder changed by `sudo`) is skipped for the rest of
the pass, and a pass that claims nothing ends: the worker re-listed and retried it at
once, forever, at 100% CPU, holding its lock (audit60 F8). A job file that cannot be read
(cut short, not JSON) goes to `failed/`, where doctor counts it, with a line in the log:
it stayed in `working/` as "1 in progress" until the next worker deleted it without a
word (F9). `learn run` still reads that session either way.

failed/ is pruned (prune_failed) each time a job goes there and when a worker starts: it
was never emptied, so a backend that stayed broken for months (no key, a revoked login)
left one file per session there for good. Doctor counts what is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from learn.hook.event import SessionEnded, parse_event
from learn.osflags import CLOEXEC, DIRECTORY, NOFOLLOW
from learn.paths import atomic_write_text, data_dir, ensure_private_dir

MAX_ATTEMPTS: Final = 3

# What failed/ keeps: the newest FAILED_KEEP jobs, none older than FAILED_MAX_AGE_S. A job
# there is for a person to read (its last_error) and for doctor to count; the same error
# repeats down the folder (one backend problem fails every session alike), so 50 say what
# there is to say, and a failure a month old was already fixed or already seen.
FAILED_KEEP: Final = 50
FAILED_MAX_AGE_S: Final = 30 * 86400
# Whether a file can be removed by name in a folder held open, no link followed (not on
# Windows: there failed/ is not pruned).
_BY_NAME: Final = bool(DIRECTORY and NOFOLLOW and os.unlink in os.supports_dir_fd)

Note = Callable[[str], None]  # one line for the worker's log


def _quiet(_line: str) -> None:
    pass


@dataclass(frozen=True, slots=True)
class Job:
    event: SessionEnded
    queued_at: str
    attempts: int = 0
    last_error: str | None = None


def hook_dir(root: Path | None = None) -> Path:
    return (root if root is not None else data_dir()) / "hook"


class SessionQueue:
    def __init__(self, root: Path | None = None) -> None:
        self.root = hook_dir(root)
        self.queued = self.root / "queued"
        self.working = self.root / "working"
        self.failed = self.root / "failed"
        # Ids whose claim failed with the job still queued: not tried again by this queue.
        self.unclaimable: set[str] = set()

    def _write(self, directory: Path, job: Job) -> None:
        ensure_private_dir(directory)
        data = {**asdict(job.event), "queued_at": job.queued_at, "attempts": job.attempts,
                "last_error": job.last_error, "hook_event_name": "SessionEnd"}
        atomic_write_text(directory / f"{job.event.session_id}.json", json.dumps(data))

    def put(self, event: SessionEnded) -> Job:
        job = Job(event, datetime.now(UTC).isoformat(timespec="seconds"))
        self._write(self.queued, job)
        return job

    def pending(self) -> list[str]:
        """Queued session ids, oldest first."""
        try:
            entries = [p for p in self.queued.iterdir() if p.suffix == ".json"]
        except OSError:
            return []
        entries.sort(key=lambda p: (_mtime(p), p.name))
        return [p.stem for p in entries]

    def claim(self, session_id: str, note: Note = _quiet) -> Job | None:
        """Move one queued job into working/; None when another worker got it first, when
        the move failed (said through `note`), or when what was moved is no job learn can
        read (moved on to failed/, said through `note`)."""
        src, dst = self.queued / f"{session_id}.json", self.working / f"{session_id}.json"
        try:
            ensure_private_dir(self.working)
            os.rename(src, dst)
        except FileNotFoundError:
            if not src.exists():
                return None  # another worker claimed it
            note(f"session {session_id}: Unclaimable: cannot move {src} into {self.working} "
                 "(not found); skipped until the next worker")
            return None
        except OSError as exc:
            note(f"session {session_id}: Unclaimable: cannot move {src} to {dst} "
                 f"({exc.strerror or exc}); skipped until the next worker")
            return None
        job = _read(dst)
        if job is None:
            self._unreadable(dst, note)
        return job

    def _unreadable(self, path: Path, note: Note) -> None:
        """`path` (in working/) to failed/, where doctor counts it, and one line saying so."""
        target = self.failed / path.name
        try:
            ensure_private_dir(self.failed)
            os.replace(path, target)
            where = f"moved to {target}"
        except OSError as exc:
            where = f"left in place ({exc.strerror or exc})"
        else:
            self.prune_failed()
        note(f"session {path.stem}: Unreadable: {path.name} is not a queued job learn can "
             f"read; {where} (`learn run` still reads the session)")

    def jobs(self, skip: set[str] | frozenset[str] = frozenset(),
             note: Note = _quiet) -> Iterator[Job]:
        """Claim queued jobs one after another until none is left but those in `skip` and
        those that could not be claimed in this pass (added to `self.unclaimable`)."""
        while True:
            ids = [i for i in self.pending() if i not in skip and i not in self.unclaimable]
            if not ids:
                return
            claimed = False
            for session_id in ids:
                job = self.claim(session_id, note)
                if job is not None:
                    claimed = True
                    yield job
                elif (self.queued / f"{session_id}.json").exists():
                    self.unclaimable.add(session_id)
            if not claimed:
                return

    def done(self, job: Job) -> None:
        with contextlib.suppress(OSError):
            (self.working / f"{job.event.session_id}.json").unlink()

    def retry(self, job: Job, error: str) -> bool:
        """Back to the queue with one more attempt; False when it went to failed/ instead."""
        from learn.redaction.redact import redact_message

        # Redacted (as learn.hook.worker.Log's lines are: the error can quote the API
        # key, and doctor shows it) before it is cut: half a key is no longer recognised.
        again = replace(job, attempts=job.attempts + 1, last_error=redact_message(error)[:500])
        target = self.queued if again.attempts < MAX_ATTEMPTS else self.failed
        self._write(target, again)
        # A newer SessionEnd for the same session may have been queued meanwhile;
        # the write above replaced it, which is fine: it names the same transcript.
        self.done(job)
        if target is self.failed:
            self.prune_failed()
        return target is self.queued

    def prune_failed(self, *, now: float | None = None) -> int:
        """Remove the jobs in failed/ past the newest FAILED_KEEP or older than
        FAILED_MAX_AGE_S (by mtime: when the job was written there); how many were removed.

        Only regular `*.json` files directly in failed/ are removed, by name in the folder
        opened without following a link (failed/ itself a link: nothing is touched), so
        nothing outside it is. Best effort: a file another worker removed first, or one
        that cannot be removed, is passed over."""
        if not _BY_NAME:
            return 0
        now = time.time() if now is None else now
        try:
            fd = os.open(self.failed, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC)
        except OSError:
            return 0  # no failed/ (nothing to prune), or a link, or not a folder
        try:
            jobs: list[tuple[float, str]] = []
            with os.scandir(fd) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):
                        if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                            jobs.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
            jobs.sort(reverse=True)  # newest first
            removed = 0
            for i, (mtime, name) in enumerate(jobs):
                if i < FAILED_KEEP and now - mtime <= FAILED_MAX_AGE_S:
                    continue
                with contextlib.suppress(OSError):  # gone already, or not ours to remove
                    os.unlink(name, dir_fd=fd)
                    removed += 1
            return removed
        finally:
            os.close(fd)

    def recover(self, note: Note = _quiet) -> int:
        """Put jobs a dead worker left in working/ back in the queue (call under the worker
        lock); one that cannot be read goes to failed/ (said through `note`). failed/ is
        pruned here too: a worker starts here, and jobs there age without any moving in."""
        self.prune_failed()
        moved = 0
        try:
            stale = list(self.working.glob("*.json"))
        except OSError:
            return 0
        for path in stale:
            job = _read(path)
            if job is None:
                self._unreadable(path, note)
                continue
            if not (self.queued / path.name).exists():
                self._write(self.queued, job)
            with contextlib.suppress(OSError):
                path.unlink()
            moved += 1
        return moved


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _read(path: Path) -> Job | None:
    try:
        raw = path.read_bytes()
        event = parse_event(raw)
        data = json.loads(raw)
    except (OSError, ValueError):
        return None
    attempts = data.get("attempts")
    error = data.get("last_error")
    return Job(event, str(data.get("queued_at") or ""),
               attempts if isinstance(attempts, int) else 0,
               error if isinstance(error, str) else None)
