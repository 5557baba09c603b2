"""The InstructionsLoaded hook: record which instruction file a session loaded, and why.

Claude Code fires it for every CLAUDE.md and rules file a session loads, at start
and later (a nested CLAUDE.md, a `paths:` rule when a matching file is read), and
ends a session's running hooks when the session ends: through click and the
other hook commands' imports, `learn hook instructions-loaded` took 0.4-0.6 s on
the shared test machine, and a path rule's record was lost when the scripted
session ended right after the Read that loaded it. So the executable (learn.entry)
sends this one subcommand here before click is imported, and this module imports
only what the record needs (learn.transcripts.instructions).
"""

from __future__ import annotations

import os
import sys

from learn.hook import WORKER_ENV


def main() -> int:
    """Record one InstructionsLoaded input from stdin; always 0 (a hook never fails)."""
    if os.environ.get(WORKER_ENV):
        return 0  # learn's own sessions: nothing of theirs is ever an outcome
    from learn.hook_input import read_stdin
    from learn.transcripts.instructions import append_hook_record

    try:
        append_hook_record(read_stdin(sys.stdin.buffer))
    except Exception as exc:  # a hook must never fail Claude Code
        from learn.hook.queue import hook_dir
        from learn.hook.worker import Log

        Log(hook_dir()).write(f"hook: {type(exc).__name__}: {exc}")
    return 0
