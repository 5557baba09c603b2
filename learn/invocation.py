"""How learn is started by what it installs to run later or elsewhere: its hooks (the
check, SessionEnd, InstructionsLoaded), the scheduled digest, the hook's worker.

Each runs this interpreter by absolute path with `-m`: Claude Code runs hooks with its
own PATH, which often lacks the virtualenv learn lives in. But `python -m` puts the
current folder first on sys.path, and Claude Code and Codex run hooks in the session's
folder, cron and systemd in $HOME: a repository's `learn.py` or `learn/guard/__main__.py`
ran instead of learn (an audit reproduced it: the repository's code at every tool call,
the check's refusal silently gone). `-P` (Python 3.11+) leaves that folder off sys.path
and nothing else; `-I` would also drop the user's site-packages and PYTHONPATH, where
`pip install --user` puts learn.
"""

from __future__ import annotations

import shlex
import sys


def learn_argv(module: str = "learn", *args: str, python: str | None = None) -> list[str]:
    """The argv that runs `module` of learn (`learn`, `learn.guard`) with `args`."""
    return [python or sys.executable, "-P", "-m", module, *args]


def learn_line(module: str = "learn", *args: str, python: str | None = None) -> str:
    """learn_argv as one shell command line (a hook's `command`)."""
    return shlex.join(learn_argv(module, *args, python=python))


def older_line(module: str = "learn", *args: str, python: str | None = None) -> str:
    """The same command as learn wrote it before `-P`: still learn's own, so a re-install
    or a removal finds it (and replaces it) rather than adding a second one."""
    return shlex.join([python or sys.executable, "-m", module, *args])
