"""The apply lock and the wait for a `learn run`: what a command writing through the
journal (learn.commands.apply_writes) holds while it writes, and only then, never while
the person reads a diff; and what each says when it gives up waiting (BUSY, _again).

`learn apply`, `--undo`, `learn check` and `install-claude-command` write under the same
lock (one_apply). What reads or records proposals (`learn apply`, `--undo`, `--prune`,
`learn decline`) holds a `learn run` off as well, for as long (one_apply's `store`,
after_runs).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import click


@contextlib.contextmanager
def one_apply(*, store: str | None = None) -> Iterator[None]:
    """Hold the apply lock (LEARN_LOCK_TIMEOUT, as a run's) and decide what a write killed
    half-way left (learn.commands.apply_recover.settle_pending); exit 75 saying so when
    another holds it past then. Every command that writes through the journal (`learn
    apply`, `--undo`, `learn check`, `install-claude-command`) holds it while it writes,
    and only then: each settles the pending rows a killed one left from the files, and
    one running beside another would take the other's row, not yet written, for a write
    that never happened and drop it, leaving the other's file on disk with no undo.

    Never while a person is asked (a diff read at a prompt held it for as long, and every
    other command gave up saying a write was in progress): a command settles first
    (settled), plans and asks without it, and takes it again to write (write_confirmed).
    Not reentrant: a command holding it must not call what takes it again.

    `store`: what the command does, when it records decisions on proposals (applied,
    declined, pending again): a `learn run` is held off too (after_runs), before the apply
    lock is taken, and the wait for one says it. The run lock is taken first: a
    command waiting for a run then keeps no other apply waiting behind it. `learn check`
    and `install-claude-command` record none and do not wait for a run."""
    from learn.commands.apply_recover import settle_pending
    from learn.errors import EXIT_BUSY
    from learn.lock import LockedError, run_lock

    with contextlib.ExitStack() as held:
        if store is not None:
            held.enter_context(after_runs(store))
        try:
            held.enter_context(run_lock("apply"))
        except LockedError:
            click.echo(f"learn: {BUSY}; try again when it finishes", err=True)
            sys.exit(EXIT_BUSY)
        settle_pending()
        yield


@contextlib.contextmanager
def after_runs(doing: str) -> Iterator[None]:
    """No `learn run` storing while `doing` (learn.lock.between_runs: a run in progress is
    waited for, said on stderr); past LEARN_LOCK_TIMEOUT, exit 75 saying nothing was
    written or recorded, and the command line to run again (_again). Before, `learn apply`
    went ahead beside a run held between its two store writes: it applied the proposals
    as they were before the run, whose result then stored the same point under its new
    name, pending, offered again (tests/test_h4_apply_beside_a_run.py)."""
    from learn.errors import EXIT_BUSY
    from learn.lock import LockedError, between_runs

    held = contextlib.ExitStack()
    try:
        held.enter_context(between_runs(doing))
    except LockedError as exc:
        click.echo(f"learn: {exc}. Nothing was written and no decision recorded: run "
                   f"{_again()} again when the run finishes", err=True)
        sys.exit(EXIT_BUSY)
    with held:
        yield


def _again() -> str:
    """The command line a refused command is run again with: the one this process was
    given. "Run the same command again" left the person to rebuild it after answering "y"
    at apply's prompts (the answers are not kept: the command asks again), and `/learn` in
    Claude Code runs a line it is given. `learn demo --apply` is named as itself."""
    import shlex

    return f"`{shlex.join(['learn', *sys.argv[1:]])}`"


# What a command that finds the apply lock held says (one_apply).
BUSY = "another learn command is writing to the agents' files"


def settled(*, store: str | None = None) -> None:
    """What a write killed half-way left, decided (one_apply), the lock let go again:
    before a command plans, so the plan sees the files as recovery leaves them, and
    before it asks, so nobody waits on a person reading a diff. `store`: as one_apply's."""
    with one_apply(store=store):
        pass
