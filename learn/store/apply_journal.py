"""Every write `learn apply` (and `learn check`) made to an instruction or settings file, so
it can be undone (migration 0017: learn.store.apply_journal_ddl).

One row per file written: which command it belonged to (`batch`), the file,
its hash before (empty: learn created it) and after, the backup of what it held,
the proposal keys it carried and the project. `learn apply --undo` takes the
newest batch not undone yet and puts each file back (the backup's bytes, or no
file), only where the file still has the hash learn left it with: a file the
person edited since is theirs, and its backup is named instead.

`action` says what wrote it: "apply", "prune", "undo", or "check" for a file of
learn's check (its rules file, the hooks that run it, its install record), written
by `learn check` or by an apply of a check offer. A check's rows of a batch are
undone together (learn.report.undo); the column was free text from the start, so
no migration was needed for it.

`made_folders` (migration 0023): the folders the write made on the way to its file, which
the undo removes again when they are left empty, innermost first. A row from before has
none: its undo removes the file and no folder, as it did.

`state` (migration 0025): "pending" from before the file is renamed into place until it is,
then "done". A `learn apply` killed between its rename and a row written after it left a
write the journal did not know: `--undo` then put back an older apply instead (an audit
hit it in 1 of 25 random `kill -9`s). Now the row comes first, and a row left pending is
decided by the file's hash (learn.commands.apply_recover): the bytes learn meant to
write, it was written; the bytes from before, it was not, and the row goes. Rows from
before the migration are "done". `decisions` (same migration): what an apply's write
decides about its proposals (applied, edited), made once the file is written; a write
found made after a kill is decided from it then. Each decision names the files its
batch writes the key to (`files`, in the JSON: no migration); it is recorded only once
they all are (learn.commands.apply_recover: an apply stopped between them is finished by
the next).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from learn.isotime import now_iso
from learn.store.db import SqliteConnection


@dataclass(frozen=True, slots=True)
class Write:
    id: int
    batch: str
    action: str  # "apply" | "prune" | "check" | "undo"
    project: str | None
    path: str
    before_hash: str  # "" when the file did not exist
    after_hash: str  # "" when the write removed the file
    backup_file: str | None
    keys: tuple[str, ...]
    written_at: str
    undone_at: str | None
    made_folders: tuple[str, ...] = ()  # folders the write made, outermost first
    pending: bool = False  # recorded before the write, not yet known to have happened
    decisions: tuple[dict[str, Any], ...] = ()  # an apply's: learn.commands.apply_recover


class ApplyJournal:
    """The apply_writes table: this machine's (it names this machine's files), kept in the
    local SQLite file beside the store like the session index (learn.store.api)."""

    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn

    def record(self, *, batch: str, action: str, project: str | None, path: str,
               before_hash: str, after_hash: str, backup_file: str | None,
               keys: Sequence[str], at: str | None = None,
               made_folders: Sequence[str] = (), pending: bool = False,
               decisions: Sequence[dict[str, Any]] = ()) -> int:
        """The row's id. `pending`: recorded before the file is written (settle, forget)."""
        with self._conn:
            self._conn.execute(
                "INSERT INTO apply_writes (batch, action, project, path, before_hash, "
                "after_hash, backup_file, keys, written_at, made_folders, state, decisions) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                (batch, action, project, path, before_hash, after_hash, backup_file,
                 json.dumps(list(keys)), at or now_iso(),
                 json.dumps(list(made_folders)) if made_folders else None,
                 "pending" if pending else "done",
                 json.dumps(list(decisions)) if decisions else None))
            return self._conn.last_insert_rowid()

    def _rows(self, where: str, params: tuple[object, ...]) -> list[Write]:
        rows = self._conn.execute(
            "SELECT id, batch, action, project, path, before_hash, after_hash, backup_file, "
            f"keys, written_at, undone_at, made_folders, state, decisions FROM apply_writes {where} "
            "ORDER BY id",
            params).fetchall()
        return [Write(int(r[0]), str(r[1]), str(r[2]), r[3], str(r[4]), str(r[5]), str(r[6]),
                      r[7], tuple(json.loads(r[8] or "[]")), str(r[9]), r[10],
                      tuple(json.loads(r[11] or "[]")), r[12] == "pending",
                      tuple(json.loads(r[13] or "[]"))) for r in rows]

    def generation(self) -> str:
        """What changes with every write and every undo the journal records: a confirmation
        token carries it, so a token shown before an apply or an undo writes nothing after
        it (learn.report.edits.confirmation_token)."""
        row = self._conn.execute(
            "SELECT COALESCE(MAX(id), 0), COUNT(undone_at) FROM apply_writes").fetchone()
        return f"{row[0]}:{row[1]}" if row is not None else "0:0"

    def last_batch(self) -> list[Write]:
        """The writes of the newest apply, prune or check not undone yet (oldest first)."""
        row = self._conn.execute(
            "SELECT batch FROM apply_writes WHERE action != 'undo' AND undone_at IS NULL "
            "ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return []
        return self._rows("WHERE batch = $1 AND undone_at IS NULL", (row[0],))

    def pending(self) -> list[Write]:
        """The writes recorded before their file was written and not settled since: a
        learn stopped (killed, a power cut) between the two, or one writing now."""
        return self._rows("WHERE state = 'pending'", ())

    def decided_writes(self) -> list[Write]:
        """The writes of an apply that carry decisions, done and not undone: the ones whose
        decisions may still be held (learn.commands.apply_recover.Held)."""
        return self._rows("WHERE action = 'apply' AND state = 'done' AND undone_at IS NULL "
                          "AND decisions IS NOT NULL", ())

    def settle(self, ids: Sequence[int], made_folders: Sequence[str] | None = None) -> None:
        """`ids` written: no longer pending (with the folders the write made, when known)."""
        with self._conn:
            for i in ids:
                self._conn.execute("UPDATE apply_writes SET state = 'done' WHERE id = $1", (i,))
                if made_folders is not None:
                    self._conn.execute("UPDATE apply_writes SET made_folders = $1 WHERE id = $2",
                                       (json.dumps(list(made_folders)) if made_folders
                                        else None, i))

    def forget(self, ids: Sequence[int]) -> None:
        """`ids` never written (refused, failed, or stopped before its rename): no row."""
        with self._conn:
            for i in ids:
                self._conn.execute("DELETE FROM apply_writes WHERE id = $1", (i,))

    def rows(self, ids: Sequence[int]) -> list[Write]:
        return [w for i in ids for w in self._rows("WHERE id = $1", (i,))]

    def batch(self, batch: str) -> list[Write]:
        return self._rows("WHERE batch = $1", (batch,))

    def mark_undone(self, ids: Sequence[int], at: str | None = None) -> None:
        when = at or now_iso()
        with self._conn:
            for i in ids:
                self._conn.execute("UPDATE apply_writes SET undone_at = $1 WHERE id = $2",
                                   (when, i))
