"""Where OpenCode keeps a person's sessions, and how a session of a store is named.

`$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`) holds the SQLite
store `opencode.db` (a release channel may use `opencode-<channel>.db`, unless
`OPENCODE_DISABLE_CHANNEL_DB` is set: then `opencode.db` too) and,
from the versions before it, `storage/` with one JSON file per session,
message and part (and, from the first versions, `project/<slug>/storage/`:
`project_storage`). A session of the SQLite store is named by a path that is not
a file: `<store>/<session id>` (`learn sessions` prints it, `learn show` takes
it); a session of the JSON files by its session file.

`OPENCODE_DB` names the store instead (1.18.33, driven for real): an absolute path,
or a name relative to the data folder (`:memory:` keeps nothing). Such a store is
read where it is; and a store it once named in the data folder (`mine.db`) is still
read when it is no longer set, known by its tables (`session`, `message`, `part`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

__all__ = [
    "data_dir",
    "database_files",
    "in_database",
    "in_storage",
    "session_path",
]

_DB_NAME_RE: Final = re.compile(r"\Aopencode(?:[-_.][\w.-]+)?\.db\Z")
_DB_PART: Final = ".db" + os.sep


def data_dir() -> Path:
    value = os.environ.get("XDG_DATA_HOME")
    base = Path(value).expanduser() if value else Path.home() / ".local" / "share"
    return base / "opencode"


def is_database_name(name: str) -> bool:
    return _DB_NAME_RE.match(name) is not None


def named_database(base: Path | None = None) -> Path | None:
    """The store `OPENCODE_DB` names (absolute, or relative to the data folder `base`);
    None when unset or in memory."""
    value = os.environ.get("OPENCODE_DB")
    if not value or value.strip() == ":memory:":
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else (base if base is not None else data_dir()) / path


def database_files(base: Path) -> list[Path]:
    """The SQLite stores: the one `OPENCODE_DB` names first, then those in OpenCode's
    data folder by name, then any other `*.db` there holding OpenCode's tables."""
    named = named_database(base)
    found = [named] if named is not None and named.is_file() else []
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return found
    for n in names:
        path = base / n
        if path in found:
            continue
        if is_database_name(n) or (n.endswith(".db") and _holds_sessions(path)):
            found.append(path)
    return found


def _holds_sessions(path: Path) -> bool:
    """Whether a `*.db` file is an OpenCode store (a name `OPENCODE_DB` gave it)."""
    from learn.transcripts.opencode.database import is_store

    return path.is_file() and is_store(path)


def session_path(database: Path, session_id: str) -> Path:
    return database / session_id


def in_database(path: Path) -> tuple[Path, str] | None:
    """(store, session id) when `path` names a session of a SQLite store, else None."""
    # Asked of every session's path (`sources.in_store`): a search of its string first
    # (every store's name ends ".db"), the Path's parent (a new object) only then.
    text = os.fspath(path)
    if _DB_PART in text and path.name:
        parent = path.parent
        if is_database_name(parent.name) or parent.parent == data_dir():
            return parent, path.name
    named = named_database() if "OPENCODE_DB" in os.environ else None
    if named is not None and path.name and path.parent == named:
        return named, path.name
    return None


def in_storage(path: Path) -> bool:
    """Whether `path` is a session file of the JSON store (`storage/session/<project>/<id>.json`),
    or of a per-project store before it (`project/<slug>/storage/session/info/<id>.json`)."""
    return (path.suffix == ".json" and path.parent.parent.name == "session"
            and path.parent.parent.parent.name == "storage")
