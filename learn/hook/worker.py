"""The background worker: drain the queue of ended sessions, one at a time.

Started detached by the hook (its own session, stdio to the log), so Claude
Code never waits on it. One worker at a time (the `hook-worker` lock): a hook
that finds a worker already running leaves its session in the queue, and the
running worker checks the queue again after releasing the lock, so nothing
queued is stranded. It yields to a `learn run` (the `run` lock): a run mines
everything in its scope itself, and mining the same session at the same time
would pay twice; after the run the session is a cache hit and costs nothing.
Sessions are mined one after another, `interval` seconds apart, through the
backend's own rate limiter: a background job should not compete with the
person's interactive use of the same account.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

from learn.hook import WORKER_ENV as WORKER_ENV
from learn.hook.event import SessionEnded
from learn.hook.queue import Job, SessionQueue
from learn.invocation import learn_argv
from learn.paths import ensure_private_dir, open_private_append

if TYPE_CHECKING:
    from learn.config import Config
    from learn.mining.cache import MineCache
    from learn.mining.miner import SessionMineResult
    from learn.models.base import Backend
    from learn.transcripts.files.discover import SessionFile
    from learn.transcripts.models import TranscriptEvent
    from learn.transcripts.view.model import Session

LOG_NAME: Final = "hook.log"
_LOG_MAX_BYTES: Final = 1 << 20
RUN_WAIT_MAX_S: Final = 900.0


class Log:
    """Timestamped lines appended to `<hook dir>/hook.log` (0600), rotated at 1 MiB."""

    def __init__(self, directory: Path) -> None:
        # A hook must never fail Claude Code, not even when the data directory is
        # unwritable: the log is then silent, and `learn doctor` says why.
        with contextlib.suppress(OSError):
            ensure_private_dir(directory)
        self.path = directory / LOG_NAME

    def write(self, message: str) -> None:
        # Through learn's secret redaction: a line quotes exceptions, and an HTTP
        # client's error can quote the header that holds the API key (a key ending in
        # "\r" was written here whole; a proxy's key of no known shape: learn.held_secrets).
        # Imported on the first write: doctor imports this module (learn.hook.health)
        # for LOG_NAME and writes nothing.
        from learn.redaction.redact import redact_message

        message = redact_message(message)
        with contextlib.suppress(OSError):
            if self.path.exists() and self.path.stat().st_size > _LOG_MAX_BYTES:
                os.replace(self.path, self.path.with_suffix(".log.1"))
            fd = open_private_append(self.path)
            with os.fdopen(fd, "a", encoding="utf-8") as fh:
                stamp = datetime.now(UTC).isoformat(timespec="seconds")
                fh.write(f"{stamp} [{os.getpid()}] {message}\n")

    def open_for_child(self) -> IO[bytes]:
        """The log as the worker's stdout and stderr (what it prints goes through
        redaction: learn.hook.worker_output)."""
        return os.fdopen(open_private_append(self.path), "ab")


def spawn_worker(log: Log, argv: list[str] | None = None) -> int:
    """Start `learn hook drain` detached from the hook's process and pipes; its pid."""
    args = argv if argv is not None else learn_argv("learn", "hook", "drain")
    env = {**os.environ, WORKER_ENV: "1"}
    with log.open_for_child() as out:
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
            start_new_session=True, close_fds=True, cwd="/",
        )
    return proc.pid


def lock_held(name: str, directory: Path) -> bool:
    """Is learn's `name` lock held by someone? (a zero-wait probe)"""
    from learn.lock import LockedError, run_lock

    try:
        with run_lock(name, timeout=0, directory=directory):
            return False
    except LockedError:
        return True


@dataclass
class DrainStats:
    mined: int = 0
    failed: int = 0
    skipped_locked: bool = False


MineOne = Callable[[Job], str]  # returns a line for the log; raises to retry


def drain(queue: SessionQueue, mine_one: MineOne, log: Log, *, lock_dir: Path,
          interval: float = 2.0, sleep: Callable[[float], None] = time.sleep) -> DrainStats:
    """Mine every queued session; return at once if another worker holds the lock."""
    from learn.lock import LockedError, run_lock

    stats = DrainStats()
    # A session that failed waits in the queue for the next worker rather than
    # being retried at once: the usual cause (an outage, a rate limit) outlasts
    # this pass. One that ends again after it was mined (resumed, new turns) is
    # taken again.
    tried: set[str] = set()
    while True:
        try:
            with run_lock("hook-worker", timeout=0, directory=lock_dir):
                if queue.recover(log.write):
                    log.write("requeued sessions a stopped worker left behind")
                first = True
                for job in queue.jobs(skip=tried, note=log.write):
                    if not first:
                        sleep(interval)
                    first = False
                    waited = 0.0
                    while lock_held("run", lock_dir) and waited < RUN_WAIT_MAX_S:
                        sleep(1.0)
                        waited += 1.0
                    try:
                        line = mine_one(job)
                    except KeyboardInterrupt as exc:
                        # Stopped (SIGTERM at a logout or shutdown: learn.termination):
                        # not the session's failure, so no attempt is counted, or three
                        # shutdowns would send a good session to failed/. The job stays
                        # in working/ and the next worker puts it back (queue.recover).
                        from learn.termination import stopped_by

                        log.write(f"session {job.event.session_id}: {stopped_by(exc)}; "
                                  "left for the next worker")
                        raise
                    except Exception as exc:  # the worker outlives any one session
                        stats.failed += 1
                        tried.add(job.event.session_id)
                        again = queue.retry(job, f"{type(exc).__name__}: {exc}")
                        log.write(f"session {job.event.session_id}: {type(exc).__name__}: {exc}"
                                  + (" (will retry)" if again else " (gave up)"))
                        continue
                    queue.done(job)
                    stats.mined += 1
                    log.write(f"session {job.event.session_id}: {line}")
        except LockedError:
            stats.skipped_locked = True
            return stats
        # A hook that queued while we held the lock found it taken and left its
        # session to us: look once more after releasing. One this worker could not
        # claim is not looked at again (it was said once in the log).
        tried |= queue.unclaimable
        if not [i for i in queue.pending() if i not in tried]:
            return stats


class SessionGone(Exception):
    """The ended session is not the worker's to mine: said in the log, not retried."""


class Unreadable(SessionGone):
    """The session's file could not be read: a run skips it as unreadable, and so
    does the worker (retrying a reader's failure changes nothing)."""


def mine_ended_session(event: SessionEnded, *, backend: Backend, config: Config,
                       cache: MineCache) -> SessionMineResult:
    """Read and mine one ended session into the mining cache, the way `learn run` would.

    The cache key is the transcript's bytes and the mining version, so the run
    that follows finds this entry whatever its scope. The session is located by
    discovery (by id, so no other file is opened) to pick up its subagent and
    aside files like a run does; so are the sessions its copied lines name
    (`_copied_from`), whose turns it is mined without, as a run mines it.
    """
    from learn.mining.miner import mine_sessions
    from learn.transcripts.view.origin import is_headless
    from learn.transcripts.view.replay import (
        replay_fingerprints,
    )
    from learn.transcripts.view.replay_files import (
        load_templates,
    )
    from learn.windows_names import not_opened

    want = Path(event.transcript_path).expanduser()
    info = next((f for f in _files(event.session_id) if _same(f.path, want)), None)
    if info is None:
        raise SessionGone(f"transcript not found among learn's sessions: {want}")
    project = info.project or event.cwd
    if project and not_opened(project) is not None:
        project = None  # a share's commands are never read: that asks its server
    fingerprints = replay_fingerprints(load_templates(Path(project) if project else None))
    session, events = _view(info, fingerprints)
    if is_headless(session.entrypoint):
        # Whether a program started it is judged across sessions (transcripts.origin):
        # the run decides, and a plugin's background sessions cost nothing meanwhile.
        raise SessionGone(f"headless ({session.entrypoint}): left to `learn run`, which "
                          "judges whether a program started it")
    older = [view for sid in _copied_from(events, session.id)
             for f in _files(sid) if f.session_id == sid
             if (view := _older(f, fingerprints)) is not None]
    [result] = mine_sessions([session], backend, model=config.models.mine, cache=cache,
                             concurrency=1, fingerprints=fingerprints,
                             context_window=config.models.context_window, older=older)
    return result


def _files(session_id: str) -> list[SessionFile]:
    """The files discovery finds for a session id (by id: no other file is opened)."""
    from learn.transcripts.files.discover import scan

    return list(scan(all_projects=True, id_prefix=session_id).files)


def _view(info: SessionFile, fingerprints: Sequence[str]) -> tuple[Session, Sequence[TranscriptEvent]]:
    """The session view of a found file, redacted as the run's stored view is
    (learn.index.reading._row), and the events it was built from. Raises Unreadable
    where a run would skip the file as unreadable (`sources.unread_detail`).

    Redacted as one: the miner checks each quote and fix against the turns and commands
    as rendered, and a value carried from another text (or a password given in answer to
    the agent and typed again) must be out of both alike, or the quote was dropped. The
    sessions a resume copied from are redacted alike, or a copied turn holding a value
    would no longer match its original and be sent again."""
    from learn.render.redacted_view import redact_session
    from learn.transcripts.files.sources import read_session, unread_detail
    from learn.transcripts.parser import parse_buffer
    from learn.transcripts.view.many import read_asides
    from learn.transcripts.view.session import build_session

    # Read as the listing and a run read it (the client's own reader, the same
    # failures): a reader's exception here retried the session three times and then
    # put it in failed/, its message (which can quote the file) in the log.
    try:
        buf, st = read_session(info.path, info.provider)
        transcript = parse_buffer(buf, path=info.path, mtime=st.mtime)
        session = build_session(transcript, fingerprints=fingerprints, size_bytes=info.size,
                                subagent_paths=info.subagent_paths,
                                asides=read_asides(info.aside_paths))
    except Exception as exc:
        raise Unreadable(f"unreadable ({unread_detail(exc)})") from None
    return redact_session(session, events=transcript.events), transcript.events


def _older(info: SessionFile, fingerprints: Sequence[str]) -> Session | None:
    """The view of a session this one copied lines from, or None where it cannot be
    read: a run leaves an unreadable file out, and the copies are then sent as the
    only record left (as of a pruned one)."""
    try:
        return _view(info, fingerprints)[0]
    except Unreadable:
        return None


def _copied_from(events: Sequence[TranscriptEvent], own_id: str) -> list[str]:
    """The other sessions this session's lines name: a `claude --resume` file opens with
    the earlier conversation's lines, each keeping the `sessionId` of the session it
    was written in (a chain of resumes names each; anthropics/claude-code#89380), and a
    `/branch` copy names its origin in `forkedFrom` (`copied_from`).

    The worker mines one session; without these, `mine_sessions` had nothing to tell
    the copies by and sent the resumed session whole, paying again for every turn
    typed before the resume. A session named but gone (pruned) is not found: its
    copies are the only record left and are sent, as a run sends them."""
    from learn.hook_input import safe_session_id

    named: set[str] = set()
    for event in events:
        meta = getattr(event, "meta", None)
        if meta is None:
            continue
        named.update(n for n in (meta.session_id, meta.copied_from) if n and n != own_id)
    return sorted(n for n in named if safe_session_id(n))


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b
