"""File names Windows does not take as they are spelled: the one rule learn's write check
(learn.report.confine) and its planner (learn.reduce.agent_files: Gemini's context
file name, which a person's settings give) ask there. Below both layers, so each asks
the same function: a `context.fileName` of `AUX.md` was planned as Gemini's file on
Windows and only refused when written (every `learn apply` failed there).

confine judges a destination by its name after os.path.realpath, and realpath leaves
the part of a path that does not exist yet as it was spelled. Windows reads that part
again when the file is made, by rules a name check in Python does not see (an audit of
2026-12, modelled on ntpath and Microsoft's "File path formats on Windows systems",
no Windows machine at hand):

- a last name's trailing dots and spaces are dropped, and any folder's one trailing
  dot: `CLAUDE.md.` and `CLAUDE.md ` open CLAUDE.md, and a missing folder
  `node_modules.` is made, then opened, as `node_modules`, which confine never lets
  a `**` cross: `node_modules./CLAUDE.md` passed as "a sub-folder's CLAUDE.md";
- a colon names a stream of another file: `.claude/rules/notes:x.md` passed as a
  `.claude/rules/*.md` file, and is the stream `x.md` of the file `notes` (staged
  beside it as `.notes:x.md.<hex>.learn`, a stream of a new file `.notes`); `CLAUDE.md::$DATA` is CLAUDE.md itself;
- a DOS device's name is the device in any folder, whatever follows its first dot:
  `.claude/rules/aux.md` is AUX, `COM1.md` a serial port;
- `*?"<>|` and control characters are in no file's name.

So on Windows a path with such a name is refused, with what Windows would make of it:
never mapped to the name Windows would use. 8.3 short names (`CLAUDE~1.MD`) are not
among these: only a file that exists has one, and realpath gives its long name, which
confine judges. The rules are those of Python 3.13's `ntpath.isreserved` (this Python
may not have it), which errs the same way: a name some Windows versions allow is refused
too; none of them is a name learn gives a file (learn.report.targets.slug).
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # not imported to run: learn's check (learn.projects.flavour) asks here
    from pathlib import PurePath

# The host's rules: on Windows its names are read as above. A test of Windows' rules
# on another system sets this; the names it checks are the same strings.
WINDOWS: Final = os.name == "nt"

# The names of the DOS devices, in every folder (ntpath.isreserved's list).
DEVICES: Final = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in "123456789\xb9\xb2\xb3"})
_NO_FILE_HAS: Final = frozenset('*?"<>|')


def name_refusal(name: str) -> str | None:
    """Why Windows would not make or open the file `name` as it is spelled (what it does
    instead), None when it would. `.` and `..` are folders of the path, not names."""
    if name in (".", ".."):
        return None
    if name[-1:] in (".", " "):
        kept = name.rstrip(". ")
        return (f"{name!r} ends with a dot or a space, which Windows drops: it names "
                f"{kept!r}" if kept else f"{name!r} is only dots and spaces")
    if ":" in name:
        file, _, stream = name.partition(":")
        return (f"{name!r} holds ':', which on Windows names the stream {stream!r} of the "
                f"file {file!r}, not a file of its own")
    bad = sorted(c for c in set(name) if c in _NO_FILE_HAS or ord(c) < 32)
    if bad:
        return f"{name!r} holds {''.join(bad)!r}, which no Windows file name may"
    device = name.partition(".")[0].rstrip(" ").upper()
    if device in DEVICES:
        return (f"{name!r} is the device {device} on Windows (in every folder, on most "
                "versions), not a file")
    return None


def path_refusal(path: PurePath) -> str | None:
    """Why Windows would not take `path` as it is spelled (name_refusal of its first such
    name below the drive or share), None when it would."""
    for name in path.parts[1 if path.anchor else 0:]:
        why = name_refusal(name)
        if why is not None:
            return why
    return None


# -- paths Windows reaches over the network ---------------------------------------------
#
# On Windows, opening, stat'ing or resolving (os.path.realpath, Path.resolve) a path on
# a share (`\\server\share\x`, `//server/share`, `\\?\UNC\server\share`) or on a
# drive mapped to one asks that server over SMB, and Windows answers its challenge with
# the person's login (an NTLM hash, crackable offline or relayed). A transcript's `cwd`
# is data: a transcript synced or shared from elsewhere, or one whose `cwd` was edited,
# names any host it likes, and learn read every transcript's folder (its `.git`, its
# `.claude/commands`, its CLAUDE.md) as soon as it listed the sessions. So a folder on a
# share is never opened: its path is compared as text (learn.projects.flavour), it is
# no folder of this disk, and nothing is written there. WSL's own shares
# (`\\wsl$\<distro>`, `\\wsl.localhost\<distro>`) are this machine's files, keyed as
# the distro's POSIX folders (learn.projects.flavour) and not refused here.

# `\\?\C:\x`, `//?/c:/x`: the drive's own folder in long form.
_LONG_DRIVE: Final = re.compile(r"^[\\/]{2}\?[\\/](?=[A-Za-z]:(?:[\\/]|$))")
# `\\?\UNC\server\share`, `\\.\UNC\server\share`: a share in long or device form.
_LONG_SHARE: Final = re.compile(r"^[\\/]{2}[?.][\\/]UNC(?:[\\/]|$)", re.IGNORECASE)
# `\\.\pipe\x`, `\\.\C:`, `\\?\Volume{...}`, `\\?\GLOBALROOT\...`: Windows' device names.
_DEVICE: Final = re.compile(r"^[\\/]{2}[?.](?:[\\/]|$)")
_WSL_SHARE: Final = re.compile(r"^[\\/]{2}wsl(?:\$|\.localhost)(?:[\\/]|$)", re.IGNORECASE)
_SHARE: Final = re.compile(r"^[\\/]{2}[^\\/]")
_DRIVE: Final = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
ON_A_SHARE: Final = "on a network share: learn does not open it"


def not_opened(path: str) -> str | None:
    """Why learn does not open the Windows path `path` (module notes above): on a network
    share, a Windows device path, or (on Windows) on a drive mapped to a share; None when
    it may. From the spelling alone, but for a drive's letter on Windows, which is asked
    of Windows' own table of drives (no server is asked). The one test every place that
    makes a file system call from a path a transcript named asks first."""
    if _WSL_SHARE.match(path):
        return None
    long_drive = _LONG_DRIVE.match(path)
    if long_drive is not None:
        path = path[long_drive.end():]
    elif _LONG_SHARE.match(path) or (_SHARE.match(path) and not _DEVICE.match(path)):
        return ON_A_SHARE
    elif _DEVICE.match(path):
        return "a Windows device path: learn does not open it"
    drive = _DRIVE.match(path)
    if drive is not None and WINDOWS and remote_drive(drive.group(1)):
        letter = drive.group(1).upper()
        return f"on a network drive ({letter}:, a share): learn does not open it"
    return None


# Drive letter -> whether it is a share's (asked once per process; tests set it).
REMOTE_DRIVES: dict[str, bool] = {}
_REMOTE_TARGETS: Final = ("\\device\\mup", "redirector", "rdr\\", "\\??\\unc\\", "webdav")


def remote_drive(letter: str) -> bool:
    """Whether Windows maps the drive `letter` to a share: a `net use` drive (or one `subst`
    made of a share), or a remembered one not connected now (opened, Windows connects it).
    Read from the DOS device table (QueryDosDeviceW: the link's target, no server asked)
    and the person's remembered connections (HKCU\\Network\\<letter>). False off Windows."""
    key = letter.upper()
    if key not in REMOTE_DRIVES:
        REMOTE_DRIVES[key] = _asks_a_server(key, depth=0)
    return REMOTE_DRIVES[key]


def _asks_a_server(letter: str, depth: int) -> bool:
    if sys.platform != "win32" or depth > 4:
        return False
    import ctypes
    import winreg

    try:
        winreg.CloseKey(winreg.OpenKey(winreg.HKEY_CURRENT_USER, f"Network\\{letter}"))
        return True  # a remembered network drive
    except OSError:
        pass
    buffer = ctypes.create_unicode_buffer(4096)
    if not ctypes.windll.kernel32.QueryDosDeviceW(f"{letter}:", buffer, len(buffer)):
        return False  # no such drive: nothing to open
    target = buffer.value.casefold()
    subst = re.match(r"\\\?\?\\([a-z]):", target)
    if subst is not None:  # `subst X: C:\x` maps to another drive: that one decides
        return _asks_a_server(subst.group(1).upper(), depth + 1)
    return any(marker in target for marker in _REMOTE_TARGETS)
