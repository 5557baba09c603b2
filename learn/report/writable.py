"""Whether learn may write a file, and its bytes to plan against (learn.report.apply and
the planners beside it: learn.report.command_plan, learn's check files)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from learn.report.confine import read_regular


def read_planned(path: Path) -> bytes | None:
    """A confined file's bytes to plan against: a regular file, bounded, not followed if
    it became a link since confine resolved it (learn.report.confine.read_regular)."""
    return read_regular(path, follow=False)


_ELSEWHERE = ", or write elsewhere (--target rules, --file FILE)"


def read_only_reason(path: Path, *, elsewhere: str = _ELSEWHERE) -> str | None:
    """Why learn must not write `path` (a read-only file or folder), else None.

    The atomic replace renames a new file over the old one, which a read-only
    file does not prevent: so the check is learn's, made before planning. The
    mode bits are checked too, because os.access says yes to root for anything.
    `elsewhere`: how the command could write somewhere else (apply's options by
    default; `learn check`'s files have no other place).
    """
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if not os.access(path, os.W_OK) or not mode & 0o222:
            return (f"{path} is read-only (mode {mode:04o}); learn does not overwrite it. Make "
                    f"it writable (chmod u+w {path}) and run again{elsewhere}")
        return None
    parent = next((d for d in path.parents if d.exists()), None)
    if parent is not None and not os.access(parent, os.W_OK):
        return f"cannot create {path}: {parent} is not writable"
    return None
