"""Where learn keeps its files, and how it writes them.

Directories follow XDG and can be moved with env vars (LEARN_DATA_DIR,
LEARN_CACHE_DIR, LEARN_CONFIG_DIR). Everything learn writes holds excerpts of
what the user typed, so directories are created 0700 and files 0600, and every
write is atomic (temp file + fsync + rename) so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from learn import osflags


def _xdg(env: str, default: str) -> Path:
    value = os.environ.get(env)
    return Path(value).expanduser() if value else Path.home() / default


def home_relative(path: str, home: Path | None = None) -> str:
    """`path` with the home folder written `~`, as a person reads it (and as it fits
    in 80 columns); anything outside home as it is."""
    base = str(home or Path.home())
    if path == base:
        return "~"
    return "~" + path[len(base):] if path.startswith(base + "/") else path


def data_dir() -> Path:
    override = os.environ.get("LEARN_DATA_DIR")
    return Path(override).expanduser() if override else _xdg("XDG_DATA_HOME", ".local/share") / "learn"


def cache_dir() -> Path:
    override = os.environ.get("LEARN_CACHE_DIR")
    return Path(override).expanduser() if override else _xdg("XDG_CACHE_HOME", ".cache") / "learn"


def config_dir() -> Path:
    override = os.environ.get("LEARN_CONFIG_DIR")
    return Path(override).expanduser() if override else _xdg("XDG_CONFIG_HOME", ".config") / "learn"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` with mode 0700, and every missing parent too; tighten `path`
    if it already exists.

    `mkdir(parents=True, mode=...)` applies the mode to the last directory only
    (the parents get the umask's 0755), which left ~/.cache/learn world-readable
    above a private `mined/`. Parents that already existed are not touched.
    """
    if path.exists() and not path.is_dir():
        # LEARN_DATA_DIR naming a file: chmod-ing "the folder" made the person's file
        # 0700 (executable) before anything said what was wrong.
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Write `data` to `path` atomically with permissions `mode`.

    The temp file lives in the target directory so the final rename never
    crosses a filesystem; readers see either the old file or the new one.
    """
    parent = path.parent
    if not parent.is_dir():
        # learn's own directories are private however they come to exist: a first
        # `learn sessions` wrote its listing's judgement and made ~/.cache/learn 0755,
        # which doctor then warned about. Elsewhere (a project's .claude/rules) the
        # person's umask decides.
        if any(parent == own or own in parent.parents for own in (data_dir(), cache_dir(),
                                                                     config_dir())):
            ensure_private_dir(parent)
        else:
            parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: most commands write nothing, and it imports random and shutil

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        osflags.set_mode(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # A write to an open file names no file: a full disk said only "[Errno 28]
            # No space left on device", not which of the run's files it was.
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from exc
        raise


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def open_private_append(path: str | os.PathLike[str]) -> int:
    """`path` opened to append (a log, the hits of a check, a decision), 0600 even if it
    was there before: O_CREAT's mode applies to a new file only, and a log left 0644 (a
    copy, an older learn) stayed readable by anyone while learn appended to it."""
    fd = os.open(path, osflags.APPEND, 0o600)
    try:
        osflags.set_mode(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


def tail_lines(path: Path, size: int = 16384) -> list[str] | None:
    """The lines of the last `size` bytes of a log (the first may be cut), None when it
    cannot be read: what doctor reads of a log that may have grown large."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - size))
            return fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
