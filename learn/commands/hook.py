"""`learn hook`: what Claude Code's hooks run.

`learn hook session-end` is the SessionEnd hook: it queues the ended session
and starts a detached worker (`learn hook drain`) that mines it into the cache,
so that `/learn` later only reduces. `learn hook instructions-loaded` is the
InstructionsLoaded hook: it appends which file the session loaded, and why, to
the session's record (learn.transcripts.instructions). A hook never fails
Claude Code: it always exits 0 and prints nothing; what went wrong goes to
`<data dir>/hook/hook.log`.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from learn.commands.run import BACKENDS

if TYPE_CHECKING:
    from learn.hook.worker import Log


@click.group("hook")
def command() -> None:
    """Commands run by Claude Code hooks (see install-claude-command --hooks)."""


@command.command("session-end", short_help="SessionEnd: queue the ended session and mine it.")
@click.option("--backend", type=click.Choice(BACKENDS), default="auto", show_default=True,
              help="Backend the background worker mines with.")
def session_end(backend: str) -> None:
    """SessionEnd hook: queue the ended session (JSON on stdin) and mine it in the background."""
    from learn.hook.worker import WORKER_ENV

    if os.environ.get(WORKER_ENV):
        return  # a session learn itself started: never mine it, never recurse
    from learn.hook.event import read_stdin
    from learn.hook.queue import hook_dir
    from learn.hook.worker import Log

    log = Log(hook_dir())
    try:
        _queue_and_spawn(read_stdin(sys.stdin.buffer), backend, log)
    except Exception as exc:  # a hook must never fail Claude Code
        log.write(f"hook: {type(exc).__name__}: {exc}")
    sys.exit(0)


def _queue_and_spawn(raw: bytes, backend: str, log: Log) -> None:
    from learn.hook.event import parse_event
    from learn.hook.queue import SessionQueue
    from learn.hook.worker import lock_held, spawn_worker
    from learn.invocation import learn_argv
    from learn.paths import data_dir

    event = parse_event(raw)
    SessionQueue().put(event)
    # A worker already running picks the session up (it looks at the queue
    # again after releasing its lock), so no second process is started.
    if lock_held("hook-worker", data_dir()):
        log.write(f"queued {event.session_id} ({event.reason or 'no reason'}); worker running")
        return
    pid = spawn_worker(log, learn_argv("learn", "hook", "drain", "--backend", backend))
    log.write(f"queued {event.session_id} ({event.reason or 'no reason'}); worker {pid}")


@command.command("instructions-loaded", short_help="InstructionsLoaded: record the file a session loaded.")
def instructions_loaded() -> None:
    """InstructionsLoaded hook: record which instruction file the session loaded (JSON on stdin)."""
    from learn.hook.loads import main

    sys.exit(main())  # `learn.cli.main` comes here without click (learn.hook.loads)


@command.command("drain", short_help="Mine every queued session (the hook starts this).")
@click.option("--backend", type=click.Choice(BACKENDS), default="auto", show_default=True)
def drain_command(backend: str) -> None:
    """Mine every queued session (what the hook starts in the background)."""
    from learn.hook.queue import Job, SessionQueue, hook_dir
    from learn.hook.worker import Log, SessionGone, drain, mine_ended_session

    log = Log(hook_dir())
    try:
        from learn.commands.run import build_backend, choose_backend_name
        from learn.config import load_config
        from learn.mining.cache import MineCache
        from learn.paths import data_dir

        config = load_config()
        model_backend = build_backend(choose_backend_name(backend), record=False,
                                      cache_dir=None, config=config)
        cache = MineCache()

        def mine_one(job: Job) -> str:
            try:
                r = mine_ended_session(job.event, backend=model_backend, config=config, cache=cache)
            except SessionGone as exc:
                return f"skipped: {exc}"
            if r.failed or r.failed_chunks:
                raise RuntimeError(r.error or f"{r.failed_chunks} of {r.chunks} chunk(s) failed")
            if r.cached:
                return "already mined (cache)"
            mined = f"mined: {len(r.candidates)} candidate(s) in {r.chunks} chunk(s)"
            if cache.write_failure is not None:
                # The worker's whole purpose is the cache: a run would mine it again.
                return f"{mined}, not kept: could not write the mining cache ({cache.write_failure})"
            return mined

        interval = float(os.environ.get("LEARN_HOOK_INTERVAL", "2"))
        stats = drain(SessionQueue(), mine_one, log, lock_dir=data_dir(), interval=interval)
        if not stats.skipped_locked:
            log.write(f"worker done: {stats.mined} session(s) handled, {stats.failed} failed")
    except Exception as exc:  # background: the log is its only reader
        log.write(f"worker: {type(exc).__name__}: {exc}")
    sys.exit(0)
