"""Where OpenCode keeps a person's sessions, and how a session of a store is named.

`$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`) holds the SQLite
store `opencode.db` (a release channel may use `opencode-<channel>.db`) and,
from the versions before it, `storage/` with one JSON file per session,
message and part (and, from the first versions, `project/<slug>/storage/`:
`project_storage`). A session of the SQLite store is named by a path that is not
a file: `<store>/<session id>` (`learn sessions` prints it, `learn show` takes
it); a session of the JSON files by its session file.
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


def database_files(base: Path) -> list[Path]:
    """The SQLite stores in OpenCode's data folder, by name."""
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    return [base / n for n in names if is_database_name(n)]


def session_path(database: Path, session_id: str) -> Path:
    return database / session_id


def in_database(path: Path) -> tuple[Path, str] | None:
    """(store, session id) when `path` names a session of a SQLite store, else None."""
    # Asked of every session's path (`sources.in_store`): a search of its string first
    # (every store's name ends ".db"), the Path's parent (a new object) only then.
    if _DB_PART not in os.fspath(path):
        return None
    if is_database_name(path.parent.name) and path.name:
        return path.parent, path.name
    return None


def in_storage(path: Path) -> bool:
    """Whether `path` is a session file of the JSON store (`storage/session/<project>/<id>.json`),
    or of a per-project store before it (`project/<slug>/storage/session/info/<id>.json`)."""
    return (path.suffix == ".json" and path.parent.parent.name == "session"
            and path.parent.parent.parent.name == "storage")
