"""The `learn` executable's first step: one hook answered before the command line loads.

Claude Code runs `learn hook instructions-loaded` for every instruction file a
session loads (learn.hook.loads), and ends a session's hooks with the session.
Importing the command line costs click (42 ms of a 47 ms `learn.cli` import,
measured with -X importtime), so that one subcommand is sent on before it; every
other invocation goes to learn.cli, with a standard output that can print any
text (learn.output_encoding); the hook's background worker with its output
redacted (learn.hook.worker_output). Every command's uncaught exception is printed
redacted (learn.crash_output), from the first step, so an import's failure is too.
SIGTERM and SIGHUP end every command as Ctrl-C does (learn.termination), from the
step after the hook: `signal` is 0.5 ms of imports, and the hook that answers
before it stays as it was, a few milliseconds that a signal may end as before.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["sessions"]:
        _collector_off()
    import learn.crash_output

    learn.crash_output.install()
    if sys.argv[1:3] == ["hook", "instructions-loaded"]:
        from learn.hook.loads import main as record_load

        sys.exit(record_load())
    import learn.termination

    learn.termination.install()
    import learn.output_encoding

    learn.output_encoding.make_writable(sys.stdout)
    learn.output_encoding.make_errors_writable(sys.stderr)
    if sys.argv[1:3] == ["hook", "drain"]:
        # The detached worker: its stdout and stderr are hook.log, and a traceback
        # quotes secrets (learn.hook.worker_output). Before the command line loads,
        # so nothing it raises is printed unredacted.
        from learn.hook.worker_output import guard_output

        guard_output()
    from learn.cli import main as cli

    cli()


def _collector_off() -> None:
    """The cyclic collector off for the whole of a listing, imports included.

    Its reading runs with the collector paused (learn.collector); what runs before it
    (the command line's imports) makes no garbage cycles either, and the process ends
    with os._exit (learn.cli) without a collection. The collections it ran there were
    36, 4-8 ms of the parent's CPU (gc.callbacks, spread home of 250 sessions), and
    0.995x the instructions of that first listing (callgrind).
    """
    import gc

    gc.disable()
