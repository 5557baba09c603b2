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
"""

from __future__ import annotations

import ntpath
import os
import re
import sys
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # not imported to run: learn's check reads keys on every shell call
    from pathlib import Path

_WINDOWS: Final = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|$)|\\\\|//[^/])")
_DRIVE_ROOT: Final = re.compile(r"[a-z]:\\")


def is_windows_path(path: str) -> bool:
    """`C:\\x`, `c:/x`, `C:` or a UNC `\\\\server\\share`, on any host."""
    return bool(_WINDOWS.match(path))


def is_path(text: str) -> bool:
    """An absolute path of some machine (POSIX, `~`, or Windows); not an id."""
    return text.startswith(("/", "~")) or is_windows_path(text)


def path_key(path: str | Path) -> str:
    """What two spellings of one folder have in common (compare these, never the
    spellings): normalised, without a trailing separator, case folded where the
    file system folds case. `path` must be absolute (`is_path`)."""
    text = str(path)
    if is_windows_path(text):
        # The extended-length form names the same folder: \\?\C:\x is C:\x,
        # \\?\UNC\server\share is \\server\share.
        if text[:8].upper() == "\\\\?\\UNC\\":
            text = "\\\\" + text[8:]
        elif text[:4] in ("\\\\?\\", "//?/"):
            text = text[4:]
        if sys.platform == "win32":
            text = os.path.realpath(text)
        norm = ntpath.normpath(text).casefold()
        # Keep the root's separator (`c:\\`), drop any other trailing one.
        return norm if _DRIVE_ROOT.fullmatch(norm) else norm.rstrip("\\")
    real = os.path.realpath(os.path.expanduser(text))
    if sys.platform in ("darwin", "win32"):
        real = real.casefold()
    return real.rstrip(os.sep) or os.sep


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
    """Whether this machine's disk can say anything about `key` (its flavour is ours)."""
    return is_windows_path(key) == (sys.platform == "win32")


def home_key() -> str:
    return path_key(os.path.expanduser("~"))  # Path.home(), without importing pathlib
