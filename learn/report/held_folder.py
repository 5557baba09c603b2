"""Writing a file inside the folder confine approved, held open.

confine (learn.report.confine) checks a path; a folder on the way swapped for a link
after that check carried the write out of the project (an audit's `.claude/rules`
renamed away and linked to another folder between the check and the rename). So every
step of a write names the file relative to its folder, held open: the folder is
reached from the root one name at a time with no link followed, and must be the one
confine saw (its device and inode). The new file is staged beside the destination
(0600, made new), made as the file it replaces was (mode, owner, group, user.*
attributes) or, where there was none and the file is the person's, as any new file is
(`replace_in`), fsynced, and put in place by one rename within the folder.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from learn import osflags
from learn.paths import ensure_private_dir
from learn.report.confine import read_open
from learn.report.errors import ConcurrentEditError

# Windows has no dir_fd (os.supports_dir_fd lacks os.open and os.rename there): there
# the write goes by path, and the folder is checked by path instead (`_by_path`): no
# link or junction on the way, the identity confine saw, at the hold and again just
# before each rename or unlink. What is left there is the window between that last
# look and the call, which a held folder closes where there is dir_fd.
BY_FOLDER = {os.open, os.rename, os.unlink, os.mkdir, os.rmdir, os.stat} <= os.supports_dir_fd
# A Windows reparse point that names another file (a symbolic link, a junction) has this
# bit in its tag; OneDrive's cloud placeholders and dedup files do not, and are folders
# and files like any other (IsReparseTagNameSurrogate in winnt.h).
_NAME_SURROGATE = 0x20000000
_CLOEXEC = osflags.CLOEXEC
_NOFOLLOW = osflags.NOFOLLOW
# O_PATH (Linux): a folder held to name files in needs no read permission of its own.
_FOLDER_FLAGS = (getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
                 | getattr(os, "O_PATH", os.O_RDONLY))
# Binary: on Windows an fd opened without O_BINARY is in text mode (learn.osflags), and
# staging, backups and the last look read and wrote a file's line endings rewritten.
_READ_FLAGS = osflags.READ | _NOFOLLOW
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | osflags.BINARY | _NOFOLLOW | _CLOEXEC
# What opening a name that became a link (or a file, where a folder was) with O_NOFOLLOW
# fails with: ELOOP on Linux and macOS, EMLINK on FreeBSD.
_SWAPPED = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})


@dataclass(frozen=True, slots=True)
class Folder:
    """The folder of a confined file, held open (`fd`; None where there is no dir_fd, and
    then `identity` is the device and inode it must still have at each step)."""

    path: Path
    fd: int | None
    identity: tuple[int, int] | None = None
    # The folders `hold` made on the way, outermost first: journaled with the write, so
    # `learn apply --undo` takes away a `.claude/rules` it left empty (drop_if_empty).
    made: tuple[Path, ...] = ()

    def name(self, leaf: str) -> str:
        """`leaf` as the os calls take it: relative to `fd`, else the whole path."""
        return leaf if self.fd is not None else str(self.path / leaf)

    def still(self) -> None:
        """Where the folder is not held open, that its path still leads to it (no link or
        junction on the way, the same folder): called just before a rename or an unlink."""
        if self.fd is None:
            _by_path(self.path, self.identity)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


@dataclass(frozen=True, slots=True)
class Held:
    """What a file holds now, read from one open of it: its bytes, owner and mode, and
    its user.* extended attributes (a rewrite keeps them)."""

    data: bytes
    st: os.stat_result
    xattrs: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True, slots=True)
class Staged:
    """The new file beside the destination, open for writing; `was`: the file it replaces."""

    fd: int
    was: Held | None


def moved(folder: Path) -> ConcurrentEditError:
    return ConcurrentEditError(f"{folder} changed since learn checked it (a folder on the way "
                               "is now a link, or another folder); nothing was written. Run "
                               "`learn apply` again to see a fresh diff")


def seen(folder: Path) -> tuple[int, int] | None:
    """The identity (device, inode) of the folder confine just approved; None when learn
    will make it."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def hold(folder: Path, identity: tuple[int, int] | None, *, private: bool,
         make: bool = True) -> Folder:
    """`folder` (resolved by confine: no link in it) held open, reached from the root one
    name at a time with no link followed, the missing ones made (learn's own 0700;
    `make=False`: none made, FileNotFoundError). A name swapped for a link since
    confine resolved it fails here instead of being followed, and the folder reached
    must be the one confine saw (`identity`). `Folder.made`: the folders made."""
    made: list[Path] = []
    if not BY_FOLDER:
        if make:
            made = _make(folder, private)
        return Folder(folder, None, _by_path(folder, identity), tuple(made))
    try:
        fd = _walk(folder, private, made if make else None)
    except PermissionError:
        # A folder on the way that may be passed through but not read (0711), where
        # there is no O_PATH (macOS): the folder itself, opened by its path. The
        # identity check below still catches a swap made after confine's look.
        if make:
            made += _make(folder, private)
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    st = os.fstat(fd)
    if identity is not None and (st.st_dev, st.st_ino) != identity:
        os.close(fd)
        raise moved(folder)
    return Folder(folder, fd, made=tuple(made))


def _make(folder: Path, private: bool) -> list[Path]:
    """`folder` and the folders above it that are missing, made; the ones made."""
    if private:
        ensure_private_dir(folder)  # learn's data folders stay 0700
        return []
    made: list[Path] = []
    for step in (*reversed(folder.parents), folder):
        with contextlib.suppress(FileExistsError):
            if not step.is_dir():
                step.mkdir()
                made.append(step)
    return made


def _walk(folder: Path, private: bool, made: list[Path] | None) -> int:
    """`folder` opened from the root one name at a time, no link followed, the missing
    names made and added to `made` (None: none made); a name that became a link (or a
    file) since is `moved`."""
    fd = os.open(folder.anchor, _FOLDER_FLAGS)
    here = Path(folder.anchor)
    try:
        for name in folder.parts[1:]:
            here = here / name
            try:
                step = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if made is None:
                    raise
                try:
                    os.mkdir(name, 0o700 if private else 0o777, dir_fd=fd)
                    made.append(here)
                except FileExistsError:
                    pass  # made by someone else meanwhile: theirs, not learn's
                step = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = step
    except OSError as exc:
        os.close(fd)
        if exc.errno in _SWAPPED:
            raise moved(folder) from exc
        raise
    return fd


def _by_path(folder: Path, identity: tuple[int, int] | None) -> tuple[int, int]:
    """`folder`'s identity, checked by path where it cannot be held open (Windows): each
    folder on the way, from the root, is no link and no junction (confine resolved them
    all, so one now was swapped in), and the folder is the one confine saw (`identity`;
    None: learn made it, and what it is now is what it must stay)."""
    here = Path(folder.anchor)
    for name in folder.parts[1:]:
        here = here / name
        try:
            st = os.lstat(here)
        except FileNotFoundError as exc:
            raise moved(folder) from exc
        if _is_link(st) or not stat.S_ISDIR(st.st_mode):
            raise moved(folder)
    now = (st.st_dev, st.st_ino) if folder.parts[1:] else _identity(folder)
    if identity is not None and now != identity:
        raise moved(folder)
    return now


def _is_link(st: os.stat_result) -> bool:
    """A symbolic link, or (Windows) a reparse point that names another file: a junction."""
    return stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_reparse_tag", 0) & _NAME_SURROGATE)


def _identity(folder: Path) -> tuple[int, int]:
    st = os.stat(folder)
    return st.st_dev, st.st_ino


def _user_xattrs(fd: int) -> tuple[tuple[str, bytes], ...]:
    """The file's user.* attributes (Linux), best effort: the others (security.*,
    trusted.*) are the system's to set."""
    if not hasattr(os, "listxattr"):
        return ()
    try:
        return tuple((n, os.getxattr(fd, n)) for n in os.listxattr(fd) if n.startswith("user."))
    except OSError:  # a filesystem without them (ENOTSUP)
        return ()


def held_now(folder: Folder, leaf: str) -> Held | None:
    """What `leaf` in `folder` holds now, None when there is no such file; the file itself
    is not followed if it became a link (confine resolved it: it was none).

    Windows has no O_NOFOLLOW: there the open followed a link swapped in at the name, and
    the last look before the rename read the link's target (its bytes, its mode) as the
    file's. So there the name is looked at first (`_is_link`), which leaves the moment
    between that look and the open, as `Folder.still` leaves one before a rename."""
    name = folder.name(leaf)
    try:
        if not _NOFOLLOW and _is_link(os.lstat(name, dir_fd=folder.fd)):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name)
        fd = os.open(name, _READ_FLAGS, dir_fd=folder.fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in _SWAPPED:
            raise ConcurrentEditError(f"{folder.path / leaf} is now a link; nothing was "
                                      "written. Run `learn apply` again to see a fresh diff") \
                from exc
        raise
    try:
        return Held(read_open(fd, folder.path / leaf), os.fstat(fd), _user_xattrs(fd))
    finally:
        os.close(fd)


def unlink_in(folder: Folder, leaf: str) -> None:
    """`leaf` removed from `folder` (where it is not held open, checked by path first)."""
    folder.still()
    os.unlink(folder.name(leaf), dir_fd=folder.fd)


def rmdir_in(folder: Folder, leaf: str) -> None:
    """The folder `leaf` removed from `folder` when it is empty (OSError when it is not,
    or is a link or a file now: rmdir follows no link). Checked by path first where the
    folder is not held open, as unlink_in."""
    folder.still()
    os.rmdir(folder.name(leaf), dir_fd=folder.fd)


def drop_if_empty(folder: Path) -> bool:
    """`folder` (one learn made) removed when nothing is left in it, named inside its own
    folder held open, as every write is; False when it stays (not empty, gone already,
    swapped for a link or another folder since). Its folder is never made again."""
    try:
        outer = hold(folder.parent, seen(folder.parent), private=False, make=False)
    except (OSError, ConcurrentEditError):
        return False
    try:
        rmdir_in(outer, folder.name)
    except (OSError, ConcurrentEditError):
        return False
    finally:
        outer.close()
    return True


def data_of(held: Held | None) -> bytes | None:
    return held.data if held is not None else None


def fill(staged: Staged, data: bytes, mode: int) -> None:
    """`data` whole and on disk in the file staged beside the destination (the step a full
    disk fails), made as the file it replaces was: its user.* attributes, its owner and
    group where learn may set them, its mode. The rename that puts it in place is the
    caller's, after the last look at the destination."""
    view = memoryview(data)
    while view:
        view = view[os.write(staged.fd, view):]
    was = staged.was
    if was is not None:
        for name, value in was.xattrs:
            with contextlib.suppress(OSError):
                os.setxattr(staged.fd, name, value)
        made = os.fstat(staged.fd)
        if hasattr(os, "fchown") and (was.st.st_uid, was.st.st_gid) != (made.st_uid, made.st_gid):
            # Run as root, a 65534:65534 shared CLAUDE.md became root's; a user may give
            # the file only a group they are in, so this is kept where it can be.
            with contextlib.suppress(PermissionError):
                os.fchown(staged.fd, was.st.st_uid, was.st.st_gid)
    osflags.set_mode(staged.fd, mode)  # after the chown, which clears set-id bits
    os.fsync(staged.fd)


def _sync(folder: Folder) -> None:
    """The folder's entries on disk: until it is synced, a crash after a rename can leave
    the old name (the write lost after learn said it was done, its journal row and
    backup kept). Best effort: the fd held is O_PATH on Linux, which cannot be synced,
    so the folder is opened again through it ("."), which needs read permission; no
    folder fd on Windows, where NTFS logs the rename itself."""
    if folder.fd is None:
        return
    try:
        fd = os.open(".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC,
                     dir_fd=folder.fd)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # a file system that cannot sync a folder
            os.fsync(fd)
    finally:
        os.close(fd)


# The mode any program asks for a new file with; the system takes the umask (and a
# folder's default ACL) from it. What `replace_in` makes a new file of the person's with.
_AS_ANY_NEW_FILE = 0o666


def replace_in(folder: Folder, leaf: str, data: bytes, mode: int | None, was: Held | None,
                last_look: Callable[[], None],
                stage: Callable[[Staged, bytes, int], None] = fill) -> None:
    """`leaf` in `folder` replaced by `data` (staged by `stage`) in one rename, unless
    `last_look` (called once the new bytes are on disk) raises.

    The new text goes whole and on disk into a file of learn's own beside the
    destination first (made new: never a file that was there); the destination is
    read again only then, so the window in which a save can still be lost is a read and
    a rename, not a write and an fsync.

    `mode` None: the file is made as any program makes a new one, 0666 less the umask
    (and the folder's default ACL), for a file that is the person's, not learn's: a
    CLAUDE.md or a rule file `learn apply` created was 0600 while every other file of
    the project was 0644, so teammates and the tools that read it could not. Asked of
    the system as the file is made, never by setting the process's umask to read it
    (`os.umask` is process-wide: the other threads' files would be made under 0)."""
    temp = f".{leaf}.{secrets.token_hex(6)}.learn"
    asked = _AS_ANY_NEW_FILE if mode is None else 0o600
    fd = os.open(folder.name(temp), _NEW_FLAGS, asked, dir_fd=folder.fd)
    try:
        try:
            if mode is None:
                mode = stat.S_IMODE(os.fstat(fd).st_mode)
            stage(Staged(fd, was), data, mode)
        finally:
            os.close(fd)
        last_look()
        folder.still()
        os.replace(folder.name(temp), folder.name(leaf), src_dir_fd=folder.fd,
                   dst_dir_fd=folder.fd)
        _sync(folder)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folder.name(temp), dir_fd=folder.fd)
