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
from pathlib import PurePath
from typing import Final

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
