"""A folder's path by the rules of the file system it comes from.

A transcript's cwd is written by the machine that ran the session, which need
not be this one. On real Windows transcripts the same folder appeared as
`C:\\Users\\…\\VAULT` (24 sessions) and `c:\\Users\\…\\VAULT` (22): NTFS folds case,
so they are one folder. Read with POSIX rules (this machine's `realpath`, `/` as
the separator, relative to learn's own cwd) they were two folders, and the
proposals made there were stored under `/<learn's cwd>/C:\\Users\\…\\VAULT`.

So a path is judged by its own flavour: a drive-letter or UNC path by Windows
rules (either separator, case folded), an absolute POSIX path by this machine's
(symlinks resolved; case folded on macOS, whose default volumes fold case).
Anything else is not a path of any machine: a repository id such as
`github.com/acme/webshop` stays what it is (`is_path` says which).

One folder, two systems: a person on Windows who runs Claude Code natively
(`C:\\Users\\bob\\proj`) and inside WSL (`/mnt/c/Users/bob/proj`) works in one
folder, and a native session in a WSL distro's folder records
`\\\\wsl$\\Ubuntu\\home\\bob\\proj` (or `\\\\wsl.localhost\\…`) for WSL's
`/home/bob/proj`. Keyed apart, a point said in both counted in halves (two
sessions each side of the two-session threshold were never proposed) and its
rule went to two places. So the key is one on every host: a drive folder is
keyed the Windows way (`c:\\users\\bob\\proj`: NTFS folds case, and learn's
Windows keys already were so), a distro's folder the POSIX way (`/home/bob/proj`,
the distro's name dropped: WSL names one distro's files that way). Only WSL's
default drive mount, `/mnt/<letter>/`, is read as a drive: a mount root
configured otherwise (`root = /` in wsl.conf gives `/c/…`) is set on the machine
that wrote the transcript, which need not be this one, and `/c/` is as often an
ordinary folder; `/mnt/data/` and `/mnt/cc/` are ordinary folders. And only on WSL
and Windows, where both spellings are one folder of this machine: on any other Linux
`/mnt/c/` is whatever is mounted there (a data disk), keyed as the POSIX folder it
is, so a rule for it is still written there.

A folder on a network share (`\\\\server\\share\\proj`, `//server/share`, its
`\\\\?\\UNC\\` form, a drive mapped to a share, a `\\\\.\\` device path) is keyed by its
spelling alone and is no folder of this disk: on Windows, resolving or opening it asks
that server, which gets the person's login with the question, and a transcript names
whatever host it likes (learn.windows_names.not_opened). Its sessions are still counted
as one project; nothing is read or written there.

A key is for comparing; a folder learn reads or writes is where this disk has it
(`disk_path`): on WSL a drive's key is looked for under `/mnt/<letter>/`, in the
case the disk spells it, and a folder this disk cannot show is None, never a
Windows spelling joined to a Linux working directory.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
import sys
from typing import TYPE_CHECKING, Final

from learn.windows_names import not_opened

if TYPE_CHECKING:  # not imported to run: learn's check reads keys on every shell call
    from pathlib import Path

_WINDOWS: Final = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|$)|\\\\|//[^/])")
_LONG_UNC: Final = re.compile(r"^[\\/]{2}\?[\\/]UNC[\\/]", re.IGNORECASE)
_DRIVE_AFTER: Final = re.compile(r"[A-Za-z]:(?:[\\/]|$)")
_DRIVE_ROOT: Final = re.compile(r"[a-z]:\\")
_DRIVE_KEY: Final = re.compile(r"([a-z]):\\")
# `\\wsl$\<distro>\rest`, `//wsl.localhost/<distro>/rest`: the distro's `/rest`.
_WSL_SHARE: Final = re.compile(r"^(?:\\\\|//)wsl(?:\$|\.localhost)[\\/][^\\/]+(?=[\\/]|$)",
                               re.IGNORECASE)
# Where WSL mounts the Windows drives (its default automount root); tests move it.
MOUNT_ROOT = "/mnt"


def is_windows_path(path: str) -> bool:
    """`C:\\x`, `c:/x`, `C:` or a UNC `\\\\server\\share`, on any host."""
    return bool(_WINDOWS.match(path))


def is_path(text: str) -> bool:
    """An absolute path of some machine (POSIX, `~`, or Windows); not an id. Never one
    holding a NUL: no system names a file so, and a transcript's `cwd` that did made every
    command that read it exit with a traceback (`realpath`: "embedded null byte")."""
    return (text.startswith(("/", "~")) or is_windows_path(text)) and "\x00" not in text


def path_key(path: str | Path) -> str:
    """What two spellings of one folder have in common (compare these, never the
    spellings): normalised, without a trailing separator, case folded where the
    file system folds case. `path` must be absolute (`is_path`)."""
    text = str(path)
    if is_windows_path(text):
        # The extended-length form names the same folder: \\?\C:\x is C:\x,
        # \\?\UNC\server\share is \\server\share.
        if _LONG_UNC.match(text):  # either separator: `//?/UNC/server` was a drive-less
            text = "\\\\" + text[8:]  # `UNC/server`, joined to the working directory
        elif text[:4] in ("\\\\?\\", "//?/") and _DRIVE_AFTER.match(text, 4):
            text = text[4:]  # a drive's; any other (`\\?\GLOBALROOT\..`) is a device's
        share = _WSL_SHARE.match(text)
        if share is not None:  # a WSL distro's folder: its own path, case kept
            return path_key("/" + text[share.end():].replace("\\", "/").lstrip("/"))
        if sys.platform == "win32" and not_opened(text) is None:
            # Never a share's (or a device's): realpath there asks the server, and Windows
            # gives it the person's login (learn.windows_names.not_opened). Its key is
            # its spelling, compared as text.
            text = os.path.realpath(text)
        norm = ntpath.normpath(text).casefold()
        # Keep the root's separator (`c:\\`), drop any other trailing one.
        return norm if _DRIVE_ROOT.fullmatch(norm) else norm.rstrip("\\")
    if (sys.platform == "win32" and text.startswith("/")) or "\x00" in text:
        # Another system's folder (WSL's, a Linux machine's): never this machine's
        # realpath, which made `/home/bob/proj` the drive folder `c:\\home\\bob\\proj`.
        # Nor a name with a NUL in it, which is no file of any system (realpath raises).
        real = posixpath.normpath(text)
    else:
        real = os.path.realpath(os.path.expanduser(text))
        if is_windows_path(real):  # `~` on Windows
            return path_key(real)
        if sys.platform == "darwin":
            real = real.casefold()
    # Only where both spellings name a folder of this machine: on any other Linux,
    # `/mnt/c/` is whatever is mounted there, and a write must still reach it.
    drive = _on_drive(real) if sys.platform == "win32" or _on_wsl() else None
    if drive is not None:
        return path_key(drive)
    return real.rstrip("/") or "/"


def _on_drive(posix: str) -> str | None:
    """`/mnt/c/Users/bob` -> `c:\\Users\\bob` (WSL's view of a drive), else None."""
    root = MOUNT_ROOT.rstrip("/")
    if not posix.startswith(root + "/"):
        return None
    rest = posix[len(root) + 1:]
    letter, sep, below = rest.partition("/")
    if len(letter) != 1 or not ("a" <= letter <= "z"):
        return None  # `/mnt/data`, `/mnt/cc`, `/mnt/C`: folders, not WSL's drives
    return f"{letter}:\\" + below.replace("/", "\\") if sep else f"{letter}:\\"


def drive_spellings(posix: str) -> list[str]:
    """How Windows spells a folder WSL sees on a drive (`/mnt/c/Users/bob` ->
    `C:\\Users\\bob`, then `c:\\Users\\bob`: the letter as Windows programs mostly
    write it, then as WSL does); none for any other path, or off WSL."""
    drive = _on_drive(posix) if _on_wsl() else None
    return [] if drive is None else [drive[0].upper() + drive[1:], drive]


def separator(key: str) -> str:
    return "\\" if is_windows_path(key) else os.sep


def key_within(key: str, root: str) -> bool:
    """True when the key `key` is `root` or a folder under it."""
    if key == root:
        return True
    sep = separator(root)
    return key.startswith(root if root.endswith(sep) else root + sep)


def key_parent(key: str) -> str | None:
    """The folder holding `key`, None at a root (`/`, `c:\\`, `\\\\server\\share`)."""
    sep = separator(key)
    if key.endswith(sep):
        return None  # `/`, `c:\`
    if sep == "\\" and key.startswith("\\\\") and key.count("\\") <= 3:
        return None  # \\server\share is the root of its UNC path
    head, _, tail = key.rpartition(sep)
    if not tail:
        return None
    if not head:
        return sep if sep == "/" else None
    if re.fullmatch(r"[a-z]:", head):
        return head + "\\"
    return head


def key_name(key: str) -> str:
    return key.rstrip(separator(key)).rpartition(separator(key))[2]


def ancestors(key: str) -> list[str]:
    """The folders above `key`, nearest first."""
    out: list[str] = []
    parent = key_parent(key)
    while parent is not None:
        out.append(parent)
        parent = key_parent(parent)
    return out


def on_this_machine(key: str) -> bool:
    """Whether `key` is of this machine's flavour (a Windows path on Windows, else a
    POSIX one): a path of this flavour may be used as a Path here. Whether the disk
    can show it, also a drive's folder from WSL, is `on_this_disk`."""
    return is_windows_path(key) == (sys.platform == "win32")


_WSL: bool | None = None


def _on_wsl() -> bool:
    """Whether learn runs inside WSL (its kernel says so), where `/mnt/<letter>` is a
    Windows drive."""
    global _WSL
    if _WSL is None:
        try:
            _WSL = "microsoft" in os.uname().release.casefold()
        except AttributeError:  # Windows has no uname
            _WSL = False
    return _WSL


def _drive_mount(key: str) -> str | None:
    """Where this disk mounts the drive of the Windows key `key` (WSL), else None."""
    found = _DRIVE_KEY.match(key)
    if found is None or sys.platform == "win32" or not _on_wsl():
        return None
    mount = os.path.join(MOUNT_ROOT, found.group(1))
    return mount if os.path.isdir(mount) else None


def on_this_disk(key: str) -> bool:
    """Whether this machine's disk can say anything about the folder `key`: it is of
    this machine's flavour, or a Windows drive's folder on WSL, which mounts the drive;
    never a folder on a network share (learn.windows_names.not_opened)."""
    if not_opened(key) is not None:
        return False
    return on_this_machine(key) or _drive_mount(key) is not None


def disk_path(key: str) -> str | None:
    """The folder `key` as this disk spells it, for reading and writing: the key itself
    when it is of this machine's flavour (there or not; callers look); on WSL a drive's
    folder under `/mnt/<letter>/`, each name as the disk spells it (the key folds case),
    None when it is not there. None for a folder of another system, and for one on a
    network share (learn.windows_names.not_opened): learn.projects reads a folder only
    where this says it is."""
    if not_opened(key) is not None:
        return None
    if on_this_machine(key):
        return key
    mount = _drive_mount(key)
    if mount is None:
        return None
    here: str | None = mount
    for name in key[3:].split("\\"):
        if name and here is not None:
            here = _child(here, name)
    return here


def _child(folder: str, name: str) -> str | None:
    """`folder`'s entry `name` in the case the disk spells it (a drive folds case, WSL
    may not: the one entry that folds to `name`), None when there is none or several."""
    try:
        names = os.listdir(folder)
    except OSError:
        exact = os.path.join(folder, name)
        return exact if os.path.exists(exact) else None
    folded = [n for n in names if n.casefold() == name.casefold()]
    return os.path.join(folder, folded[0]) if len(folded) == 1 else None


def home_key() -> str:
    return path_key(os.path.expanduser("~"))  # Path.home(), without importing pathlib
