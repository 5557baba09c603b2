"""The session index: per transcript file, what reading it gave, so an unchanged file is not read.

Two tables: `session_index` (the parsed view, learn.index.indexed) and
`session_heads` (what discovery reads from a file's first lines and, for
`--since`, its last ones: learn.index.indexed.CachedHeads). Beside them,
`project_folders`: the project the disk said each folder sessions ran in
belonged to (learn.projects), so a worktree deleted since stays its
repository's.

Per machine (paths and inodes are this disk's), so it lives in the local SQLite
store only, never in a shared backend; migration `0007_session_index` makes its
tables, `0016_session_index_derived` drops what was not derived,
`0022_session_index_keys` adds the turns' keys, `0028_session_heads_reader` which
reader stored each head (an older reader's head is read again). A row is used
only when the file's stat (size, mtime_ns, inode) and the row's `version` (view
and render versions) and `context` (what else the view was built from: replay
fingerprints, aside files, detector threshold) all match; anything else is a
miss and the file is read again.

Only derived, redacted data is kept (issue 20): a summary (counts, id, dates),
the redacted human turns and their keys (what origin and templates are judged from,
0022), and for a run the redacted compact view and
detector candidates (msgpack). Never a raw transcript record, never a pickle.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

if TYPE_CHECKING:
    from learn.store.db import SqliteConnection

from learn.store.connection import placeholders, rollback

# The tables' DDL (migrations 0007 and 0016) lives in a leaf the migration list imports.
from learn.store.session_index_ddl import create_table as create_table
from learn.store.session_index_ddl import derived_only as derived_only


# A Struct, not a frozen dataclass: making a dataclass class runs generated code
# (0.65-1.0 ms each, against 0.02 ms for a Struct), in every process that imports
# it (`learn show` made nine): learn.store.dialects, learn.projects.identity,
# learn.index.indexed and the Gemini CLI reader say the same.
class IndexRow(msgspec.Struct, frozen=True, gc=False):
    """One file's derived, redacted entry: never a raw transcript record (issue 20).

    A listing (`learn sessions`) stores only the summary; a run adds the view,
    its detector candidates and the digest (`view`/`detected`/`digest` None
    until then).
    """

    path: str
    size: int
    mtime_ns: int
    inode: int
    version: str
    context: str
    summary: str  # JSON: session_to_dict(timeline=False), a plain dict (fields may be added)
    # msgpack: the human turns without their texts, each with its text's keys for the
    # judgement across sessions (learn.transcripts.templates.keys); None: not stored.
    keys: bytes | None = None
    # JSON: the human turns, redacted (learn.index.indexed_turns), None: not read.
    # The column kept 0016's name (it held hashes of long prompts then).
    prompts: str | None = None
    digest: str | None = None  # sha256 of the file's bytes (the mining cache's key)
    view: bytes | None = None  # learn.transcripts.view.compact.encode_view, redacted
    detected: bytes | None = None  # learn.transcripts.view.compact.encode_candidates, redacted


class HeadRow(NamedTuple):
    """What discovery read of a file's head (learn.index.indexed.CachedHeads). A named
    tuple, not a dataclass: every command reads every file's row (2,000 in a home of
    1,000 sessions), and building them as frozen dataclasses was 10 ms of a 0.25 s
    `learn show` (issue 32), as tuples 1 ms."""

    path: str
    size: int
    mtime_ns: int
    inode: int
    cwd: str | None
    session_id: str | None
    subagent: str | None
    parent_id: str | None
    last_activity: float | None = None
    has_last_activity: int = 0
    # What the client recorded of the cwd's repository (migration 0018).
    branch: str | None = None
    repository: str | None = None
    commit_hash: str | None = None
    # The head reader's version that stored the row (learn.transcripts.files.heads.
    # HEAD_VERSION; migration 0028): 0 for rows stored before it was kept.
    reader: int = 0


_HEAD_COLUMNS = ("path", "size", "mtime_ns", "inode", "cwd", "session_id", "subagent", "parent_id",
                 "last_activity", "has_last_activity", "branch", "repository", "commit_hash",
                 "reader")
_COLUMNS = ("path", "size", "mtime_ns", "inode", "version", "context", "summary", "keys",
            "prompts", "digest", "view", "detected")


class SessionIndex:
    """The session_index table over one apsw connection."""

    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn

    def get_many(self, paths: Sequence[str], *, views: bool = True,
                 texts: bool = True, keys: bool = True) -> dict[str, IndexRow]:
        """The rows of `paths`; with views=False without the view and candidates
        (left None: a listing reads ~1 KB a row instead of the whole view), with
        texts=False also without the turns' texts (`prompts`, read one file at a
        time by `texts_of` where the judgement needs them), with keys=False also
        without the turns' keys (`keys_of_many` reads them where a judgement is
        made: 44 KB a row in a tree of observer sessions, most of a warm listing's
        read when its judgement is kept)."""
        out: dict[str, IndexRow] = {}
        names = _COLUMNS if views else _COLUMNS[:-2]
        left_out = {*(() if texts else ("prompts",)), *(() if keys else ("keys",))}
        cols = ", ".join("NULL" if c in left_out else c for c in names)
        # One query per 500 paths: SQLite's variable limit, and one round trip
        # per file cost 30 us each at 1,000 files.
        for start in range(0, len(paths), 500):
            part = paths[start:start + 500]
            marks = placeholders(len(part))
            for row in self._conn.execute(
                f"SELECT {cols} FROM session_index WHERE path IN ({marks})", tuple(part)
            ):
                out[row[0]] = IndexRow(*row)
        return out

    def keys_of_many(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        """The stored turns' keys (`keys`) of `paths` that have an entry."""
        out: dict[str, bytes | None] = {}
        for start in range(0, len(paths), 500):
            part = paths[start:start + 500]
            for path, keys in self._conn.execute(
                f"SELECT path, keys FROM session_index WHERE path IN ({placeholders(len(part))})",
                tuple(part),
            ):
                out[path] = keys
        return out

    def texts_of(self, path: str) -> str | None:
        """The stored turns (`prompts`) of one file, None when it has no entry."""
        row = self._conn.execute("SELECT prompts FROM session_index WHERE path = $1",
                                 (path,)).fetchone()
        return None if row is None else row[0]

    def _replace(self, table: str, columns: Sequence[str], rows: Iterable[object]) -> int:
        """INSERT OR REPLACE `rows` (named tuples of `columns`) in one transaction."""
        # One C call a row (attrgetter of all the columns gives their tuple), not a
        # generator's getattr a column: a first listing of 1,000 sessions writes 2,000 rows.
        get = attrgetter(*columns)
        batch = [get(r) for r in rows]
        if not batch:
            return 0
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(
                f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) "
                f"VALUES ({placeholders(len(columns))})",
                batch,
            )
            self._conn.execute("COMMIT")
        except BaseException:
            rollback(self._conn)
            raise
        return len(batch)

    def put_many(self, rows: Iterable[IndexRow]) -> int:
        return self._replace("session_index", _COLUMNS, rows)

    def heads(self) -> dict[str, HeadRow]:
        """Every file's stored head (discovery's read of its first lines), by path."""
        return {r[0]: HeadRow(*r) for r in self._conn.execute(
            f"SELECT {', '.join(_HEAD_COLUMNS)} FROM session_heads")}

    def put_heads(self, rows: Iterable[HeadRow]) -> None:
        self._replace("session_heads", _HEAD_COLUMNS, rows)

    def remembered_projects(self) -> dict[str, str]:
        """folder key -> the project the disk said it belonged to (migration 0018):
        a worktree deleted since still belongs to its repository."""
        return {str(r[0]): str(r[1]) for r in self._conn.execute(
            "SELECT folder, project FROM project_folders")}

    def remember_projects(self, found: dict[str, str], at: str) -> int:
        """Keep what the disk said of each folder; a folder the disk now places
        elsewhere is updated."""
        known = self.remembered_projects()
        rows = [(folder, project, at) for folder, project in sorted(found.items())
                if known.get(folder) != project]
        if not rows:
            return 0
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(
                "INSERT OR REPLACE INTO project_folders (folder, project, seen_at) "
                "VALUES ($1, $2, $3)", rows)
            self._conn.execute("COMMIT")
        except BaseException:
            rollback(self._conn)
            raise
        return len(rows)

    def forget_missing(self, exists: Callable[[str], bool] = os.path.exists,
                       present: Collection[str] = ()) -> int:
        """Drop the rows of files that no longer exist (pruned by Claude Code's cleanup).

        One stat per stored file not in `present` (the files the caller has just
        stat'ed). `exists` says whether a session is still there (a session held in a
        store is no file: `files.sources.session_exists`).
        """
        paths = {str(r[0]) for r in self._conn.execute(
            "SELECT path FROM session_index UNION SELECT path FROM session_heads")}
        gone = [(p,) for p in paths if p not in present and not exists(p)]
        if not gone:
            return 0
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany("DELETE FROM session_index WHERE path = $1", gone)
            self._conn.executemany("DELETE FROM session_heads WHERE path = $1", gone)
            self._conn.execute("COMMIT")
        except BaseException:
            rollback(self._conn)
            raise
        return len(gone)

    def count(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM session_index").fetchone()[0])


INDEX_FILENAME = "session-index.db"


def session_index_path(store: Path | str | None = None) -> Path:
    """Where the index lives: the local SQLite store, or beside it in the cache when the
    store is a shared PostgreSQL database (the index is per machine, and derived: it
    never goes to a shared database)."""
    from learn.paths import cache_dir
    from learn.store.target import default_store_target

    target = store if store is not None else default_store_target()
    if isinstance(target, str) and "://" in target:
        return cache_dir() / INDEX_FILENAME
    return Path(target)

