"""The flags learn opens files with, and the mode it gives them, on every system it runs on.

Windows' `os` has no O_NONBLOCK, O_NOFOLLOW, O_CLOEXEC or O_DIRECTORY, and no
`fchmod` before Python 3.13: a bare `os.O_NONBLOCK` at import made every command
that reads sessions fail there, and `os.fchmod` the first write of every command
(a simulated Windows `os`, tests/test_windows_sim.py). And an `os.open` fd is in
the C runtime's text mode there unless O_BINARY is passed: a read turns CRLF into
LF and stops at a Ctrl-Z byte, a write turns LF into CRLF. `learn apply` through
such an fd rewrote every line ending of an LF CLAUDE.md and cut a file (and its
backup) at a stray Ctrl-Z. So every `os.open` of a file's bytes passes `BINARY`.
"""

from __future__ import annotations

import os
from typing import Final

BINARY: Final = getattr(os, "O_BINARY", 0)
NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)  # a FIFO named like a file never blocks a read
CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)

# A file's bytes, read as they are on disk.
READ: Final = os.O_RDONLY | BINARY | NONBLOCK | CLOEXEC
# A private log or record appended to (created 0600).
APPEND: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | BINARY | CLOEXEC


def set_mode(fd: int, mode: int) -> None:
    """`os.fchmod(fd, mode)` where the system has it. Windows before Python 3.13 has
    none; there a file's mode is only its read-only bit, and who may read it is the
    profile folder's access list, which learn's files inherit."""
    fchmod = getattr(os, "fchmod", None)
    if fchmod is not None:
        fchmod(fd, mode)
