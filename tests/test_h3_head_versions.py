"""Stored session heads carry the version of the reader that stored them (migration 0028).

A head was kept while its file's stat held, whatever reader stored it: a session whose
first line is two records a crash spliced together was stored with no cwd by the reader
before the spliced-line fix, and stayed in no project until the file changed, which a
finished session's never does. Fixtures written for this test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import learn.transcripts.files.heads as heads_module
from learn.index.indexed import CachedHeads
from learn.store import open_store
from learn.store.core import open_connection
from learn.store.schema import STEP_NAMES, StoreSchema, migrate
from learn.store.session_index import HeadRow
from learn.transcripts.files.heads import HEAD_VERSION, read_head

SID = "7c6b5a49-3827-4f16-a5e4-d3c2b1a0f9e8"
CWD = "/srv/glaze"


def _prompt(uuid: str, at: str, text: str) -> bytes:
    line = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD,
            "sessionId": SID, "version": "2.1.190", "gitBranch": "main", "type": "user",
            "uuid": uuid, "timestamp": at, "message": {"role": "user", "content": text}}
    return json.dumps(line, separators=(",", ":")).encode()


def _spliced_session(tmp_path: Path) -> Path:
    """A transcript whose only line is a record cut inside its cwd, then a whole one."""
    cut = _prompt("u0", "2026-11-22T08:00:00.000Z", "glaze the north wall first")
    cut = cut[: cut.index(b'"cwd":"') + len(b'"cwd":"') + 4]
    path = tmp_path / "projects" / "-srv-glaze" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(cut + _prompt("u1", "2026-11-22T08:01:00.000Z", "matte, not gloss") + b"\n")
    return path


def _stored_by_an_older_reader(path: Path, reader: int) -> HeadRow:
    """The row the reader before the spliced-line fix stored: the file's stat, no cwd."""
    st = os.stat(path)
    return HeadRow(str(path), st.st_size, st.st_mtime_ns, st.st_ino, None, None, None, None,
                   reader=reader)


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every head CachedHeads reads from its file."""
    seen: list[Path] = []

    def counted(path: Path, provider: heads_module.Provider) -> heads_module.Head:
        seen.append(path)
        return read_head(path, provider)

    monkeypatch.setattr(heads_module, "read_head", counted)
    return seen


def test_a_head_an_older_reader_stored_is_read_again_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _spliced_session(tmp_path)
    db = tmp_path / "s.db"
    with open_store(db, local_only=True) as local:
        local.index.put_heads([_stored_by_an_older_reader(path, reader=0)])
    reads = _reads(monkeypatch)

    with open_store(db, local_only=True) as local:
        cached = CachedHeads(local.index)
        head = cached.read_head(path, "claude")
        assert (head.cwd, head.session_id) == (CWD, SID)
        cached.save(forget=False)
        assert local.index.heads()[str(path)].reader == HEAD_VERSION
    assert reads == [path]

    with open_store(db, local_only=True) as local:
        again = CachedHeads(local.index)
        assert again.read_head(path, "claude").cwd == CWD
        assert again.unchanged_head(str(path), os.stat(path)) is not None
    assert reads == [path]  # stored by this reader: not read a second time


def test_a_quick_listing_does_not_take_an_older_readers_head(tmp_path: Path) -> None:
    path = _spliced_session(tmp_path)
    db = tmp_path / "s.db"
    with open_store(db, local_only=True) as local:
        local.index.put_heads([_stored_by_an_older_reader(path, reader=HEAD_VERSION - 1)])
        cached = CachedHeads(local.index)
        assert cached.unchanged_head(str(path), os.stat(path)) is None


def test_heads_stored_before_the_migration_are_an_older_readers(tmp_path: Path) -> None:
    path = _spliced_session(tmp_path)
    db = tmp_path / "s.db"
    conn, _, _ = open_connection(db)
    try:
        migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0028_session_heads_reader"))
        st = os.stat(path)
        conn.execute("INSERT INTO session_heads (path, size, mtime_ns, inode, cwd) "
                     "VALUES ($1, $2, $3, $4, NULL)",
                     (str(path), st.st_size, st.st_mtime_ns, st.st_ino))
        migrate(conn, StoreSchema())
    finally:
        conn.close()
    with open_store(db, local_only=True) as local:
        assert local.index.heads()[str(path)].reader == 0 < HEAD_VERSION
        assert CachedHeads(local.index).read_head(path, "claude").cwd == CWD
