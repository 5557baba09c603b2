"""The session index (learn.index.indexed over learn.store.session_index) and the parallel parse."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fixtures.view.corpus import HERE, MAIN_ID, encode
from msgspec.structs import replace

from learn.index.indexed import CachedHeads, IndexedSession, entry_version, indexed_views
from learn.store import open_store
from learn.store.schema import applied_migrations
from learn.store.session_index import SessionIndex
from learn.transcripts.files.discover import SessionFile, scan
from learn.transcripts.parser import parse, stream
from learn.transcripts.view import compact
from learn.transcripts.view.many import view_files
from learn.transcripts.view.model import Session, TimelineItem, ToolCall

_OPENED: list[str] = []


@contextmanager
def open_session_index(db: Path) -> Iterator[SessionIndex]:
    """This machine's index of the store at `db`, the way learn opens it."""
    with open_store(db, local_only=True) as local:
        yield local.index
_WATCH: list[Path] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    # Every open() of a file under a watched directory is recorded: the proof
    # that an unchanged file is not opened is a count, not a timing.
    if event == "open" and _WATCH and isinstance(args[0], str | Path):
        path = str(args[0])
        if any(path.startswith(str(w)) for w in _WATCH):
            _OPENED.append(path)


sys.addaudithook(_audit)


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[list[str]]:
    _WATCH.append(tmp_path / "home")
    _OPENED.clear()
    yield _OPENED
    _WATCH.clear()
    _OPENED.clear()


def _home(tmp_path: Path, n: int = 3) -> Path:
    """A Claude projects dir with `n` copies of the main fixture session (distinct ids)."""
    text = (HERE / "claude_main.jsonl").read_text().replace("/home/dev/shop", str(tmp_path / "p"))
    pdir = tmp_path / "home" / ".claude" / "projects" / encode(tmp_path / "p")
    pdir.mkdir(parents=True)
    for i in range(n):
        sid = MAIN_ID[:-2] + f"{i:02d}"
        (pdir / f"{sid}.jsonl").write_text(text.replace(MAIN_ID, sid))
    return tmp_path / "home"


def _files(home: Path) -> list[SessionFile]:
    return scan(all_projects=True, claude_dir=home / ".claude", codex_dir=home / ".codex").files


def _views(home: Path, db: Path, files: list[SessionFile] | None = None,
           **kw: object) -> list[IndexedSession]:
    with open_session_index(db) as index:
        return indexed_views(files if files is not None else _files(home),
                             fingerprints_for=lambda _: (), min_confidence=0.75,
                             index=index, **kw)  # type: ignore[arg-type]


def _inputs_kept(session: Session) -> Session:
    def keep(item: TimelineItem) -> TimelineItem:
        if not isinstance(item, ToolCall):
            return item
        return replace(item, input={k: item.input[k] for k in compact.INPUT_KEYS if k in item.input})

    return replace(session, timeline=tuple(keep(i) for i in session.timeline),
                   tool_calls=tuple(keep(c) for c in session.tool_calls))


def test_migration_0007_session_index_is_applied(tmp_path: Path) -> None:
    with open_session_index(tmp_path / "s.db") as index:
        assert "0007_session_index" in applied_migrations(index._conn)
        assert index.count() == 0


def test_an_unchanged_file_is_not_opened_and_gives_the_same_view(tmp_path: Path,
                                                                  opened: list[str]) -> None:
    home = _home(tmp_path)
    # Discovered once: discovery reads each file's head to learn its project.
    files = _files(home)
    opened.clear()
    first = _views(home, tmp_path / "s.db", files)
    assert [i.from_index for i in first] == [False] * 3
    assert {Path(p) for p in opened} >= {f.path for f in files}
    opened.clear()
    again = _views(home, tmp_path / "s.db", files)
    assert [i.from_index for i in again] == [True] * 3
    assert not [p for p in opened if p.endswith(".jsonl")]
    assert [i.session for i in again] == [i.session for i in first]
    assert [i.digest for i in again] == [i.digest for i in first]


def test_the_view_from_the_index_equals_a_cold_parse(tmp_path: Path) -> None:
    home = _home(tmp_path)
    cold = view_files(_files(home))
    _views(home, tmp_path / "s.db")
    warm = _views(home, tmp_path / "s.db")
    # The fixture holds no secret, so the redacted stored view equals the raw one,
    # but for the tool inputs nothing downstream reads.
    assert [i.session for i in warm] == [_inputs_kept(s) for _, s in cold]
    assert any(c.input for i in warm for c in i.session.tool_calls)


def test_a_same_size_rewrite_with_a_new_mtime_is_read_again(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    _views(home, tmp_path / "s.db")
    data = path.read_bytes()
    changed = data.replace(b"shop", b"shoq", 1)
    assert len(changed) == len(data) and changed != data
    path.write_bytes(changed)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    got = _views(home, tmp_path / "s.db")
    assert not got[0].from_index


def test_a_new_inode_with_the_same_size_and_mtime_is_read_again(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    before = _views(home, tmp_path / "s.db")
    copy = path.with_suffix(".tmp")
    shutil.copy2(path, copy)  # same bytes, same mtime, another inode
    os.replace(copy, path)
    got = _views(home, tmp_path / "s.db")
    assert not got[0].from_index
    assert got[0].session == before[0].session


def test_a_rewritten_head_with_more_bytes_is_read_whole(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    _views(home, tmp_path / "s.db")
    cold_db = tmp_path / "cold.db"
    data = path.read_bytes()
    # Longer, but not an append: the first line is another session's now.
    lines = data.split(b"\n")
    path.write_bytes(b"\n".join([lines[1], *lines]))
    got = _views(home, tmp_path / "s.db")
    cold = _views(home, cold_db)
    assert not got[0].from_index
    assert got[0].session == cold[0].session
    assert got[0].digest == cold[0].digest


def test_a_grown_file_is_read_again_and_matches_a_cold_parse(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    full = path.read_bytes()
    lines = full.split(b"\n")
    cut = len(lines) // 2
    # The live session stopped mid-line: the half line is skipped, then read whole.
    head = b"\n".join(lines[:cut]) + b"\n" + lines[cut][:25]
    path.write_bytes(head)
    first = _views(home, tmp_path / "s.db")
    with path.open("ab") as fh:
        fh.write(full[len(head):])
    grown = _views(home, tmp_path / "s.db")
    cold = _views(home, tmp_path / "cold.db")
    assert not grown[0].from_index
    assert grown[0].session == cold[0].session
    assert grown[0].summary == cold[0].summary
    assert grown[0].digest == cold[0].digest
    assert len(grown[0].session.human_turns) > len(first[0].session.human_turns)


# A tool's output that no derived view keeps (a successful command's stdout).
_TOOL_OUTPUT = "build-cache-7f3a9c-raw-tool-output-only"


def _live_session_with_tool_output(tmp_path: Path) -> Path:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    lines = path.read_text().splitlines()
    text = "\n".join(lines).replace('"content": "deploy.sh\\n"', f'"content": "{_TOOL_OUTPUT}\\n"')
    assert _TOOL_OUTPUT in text
    path.write_text(text + "\n")  # modified now: a live session
    return home


def _db_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def _blobs(db: Path) -> list[bytes]:
    with open_session_index(db) as index:
        rows = list(index._conn.execute("SELECT * FROM session_index"))
    return [v if isinstance(v, bytes) else str(v).encode() for r in rows for v in r
            if isinstance(v, bytes | str)]


def test_the_index_keeps_no_raw_record_and_no_pickle(tmp_path: Path) -> None:
    home = _live_session_with_tool_output(tmp_path)
    db = tmp_path / "s.db"
    listed = _views(home, db, views=False)
    ran = _views(home, db)
    assert listed[0].summary == ran[0].summary
    assert ran[0].session.human_turns
    blobs = _blobs(db)
    assert blobs
    # Pickle protocol 2+ starts with PROTO (0x80) and its version; zstd frames with their magic.
    assert not [b for b in blobs if b[:1] == b"\x80" and b[1:2] in b"\x02\x03\x04\x05"]
    assert not [b for b in blobs if b"\x28\xb5\x2f\xfd" in b]
    assert not [b for b in blobs if _TOOL_OUTPUT.encode() in b]
    assert _TOOL_OUTPUT.encode() not in _db_bytes(db)


def test_migration_0016_drops_the_pickled_records_and_keeps_the_views(tmp_path: Path) -> None:
    import pickle

    from learn.store.db import connect
    from learn.store.schema import MIGRATIONS, StoreSchema, migrate

    home = _live_session_with_tool_output(tmp_path)
    db = tmp_path / "old.db"
    cold = _views(home, tmp_path / "cold.db")
    # A store as 0007-0009 left it: a live session's records pickled in `prefix`.
    conn = connect(db, vectors=False)
    upto = [name for name, _ in MIGRATIONS].index("0016_session_index_derived")
    migrate(conn, StoreSchema(), upto=upto)
    r = cold[0].row
    record = pickle.dumps([{"type": "user", "content": _TOOL_OUTPUT}], protocol=5)
    conn.execute(
        "INSERT INTO session_index (path, size, mtime_ns, inode, head_hash, version, context, "
        "offset, digest, summary, view, detected, prefix) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)",
        (r.path, r.size, r.mtime_ns, r.inode, "h", r.version, r.context, r.size, r.digest,
         r.summary, r.view, r.detected, record))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert _TOOL_OUTPUT.encode() in _db_bytes(db)
    migrate(conn, StoreSchema(), upto=[name for name, _ in MIGRATIONS].index("0022_session_index_keys"))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert _TOOL_OUTPUT.encode() not in _db_bytes(db)
    assert "prefix" not in {str(c[1]) for c in conn.execute("PRAGMA table_info(session_index)")}
    # The derived entry survived the migration.
    assert list(conn.execute("SELECT summary, view, detected FROM session_index")) == [
        (r.summary, r.view, r.detected)]
    conn.close()


def test_migration_0022_remakes_the_index_with_keys_and_the_next_listing_fills_it(
        tmp_path: Path) -> None:
    from learn.store.db import connect
    from learn.store.schema import MIGRATIONS, StoreSchema, migrate

    home = _home(tmp_path, 2)
    db = tmp_path / "old.db"
    conn = connect(db, vectors=False)
    migrate(conn, StoreSchema(), upto=[name for name, _ in MIGRATIONS].index("0022_session_index_keys"))
    conn.execute(
        "INSERT INTO session_index (path, size, mtime_ns, inode, version, context, summary) "
        "VALUES ('/gone.jsonl', 1, 1, 1, 'view4-render3', 'c', '{}')")
    migrate(conn, StoreSchema())
    columns = [str(c[1]) for c in conn.execute("PRAGMA table_info(session_index)")]
    # The small columns before the large ones, in a rowid table: a listing reads no view.
    assert columns.index("keys") < columns.index("prompts") < columns.index("view")
    assert "WITHOUT ROWID" not in conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'session_index'").fetchone()[0]
    assert conn.execute("SELECT count(*) FROM session_index").fetchone()[0] == 0
    conn.close()
    listed = _views(home, db, views=False)
    assert [i.from_index for i in listed] == [False, False]
    assert all(i.row.keys for i in listed)
    assert [i.from_index for i in _views(home, db, views=False)] == [True, True]


def test_a_listing_builds_no_view_and_a_run_after_it_does(tmp_path: Path) -> None:
    home = _home(tmp_path, 3)
    db = tmp_path / "s.db"
    listed = _views(home, db, views=False)
    assert [i.row.view for i in listed] == [None] * 3 and all(i.row.digest is None for i in listed)
    with pytest.raises(LookupError):
        _ = listed[0].session
    again = _views(home, db, views=False)
    assert [i.from_index for i in again] == [True] * 3
    ran = _views(home, db)
    assert [i.from_index for i in ran] == [False] * 3  # the listing's entries held no view
    cold = _views(home, tmp_path / "cold.db")
    assert [i.session for i in ran] == [i.session for i in cold]
    assert [i.summary for i in listed] == [i.summary for i in ran] == [i.summary for i in cold]
    # A listing after a run uses the run's entries as they are.
    after = _views(home, db, views=False)
    assert [i.from_index for i in after] == [True] * 3 and after[0].row.digest is not None


def test_parallel_listing_equals_serial(tmp_path: Path) -> None:
    home = _home(tmp_path, 10)
    serial = _views(home, tmp_path / "a.db", workers=1, views=False)
    pooled = _views(home, tmp_path / "b.db", workers=2, views=False)
    assert [i.row for i in pooled] == [i.row for i in serial]


def test_a_stale_view_version_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home(tmp_path, 1)
    _views(home, tmp_path / "s.db")
    monkeypatch.setattr(compact, "VIEW_VERSION", compact.VIEW_VERSION + 1)
    got = _views(home, tmp_path / "s.db")
    assert not got[0].from_index
    assert got[0].row.version == entry_version() and compact.view_version() in entry_version()
    assert _views(home, tmp_path / "s.db")[0].from_index


def test_entries_with_keys_of_another_version_are_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.transcripts.templates import entries, keys_version

    home = _home(tmp_path, 1)
    first = _views(home, tmp_path / "s.db")
    assert entries.decode_entry(first[0].row.keys) is not None
    # A bump: the one constant, as the index and the entries module read it.
    monkeypatch.setattr(keys_version, "KEYS_VERSION", keys_version.KEYS_VERSION + 1)
    monkeypatch.setattr(entries, "KEYS_VERSION", keys_version.KEYS_VERSION)
    # Stored keys of the old version are never read as keys...
    assert entries.decode_entry(first[0].row.keys) is None
    # ...and the entry is read again with keys of the new one.
    got = _views(home, tmp_path / "s.db")
    assert not got[0].from_index and entries.decode_entry(got[0].row.keys) is not None


def test_other_fingerprints_are_a_miss(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    _views(home, tmp_path / "s.db")
    with open_session_index(tmp_path / "s.db") as index:
        got = indexed_views(_files(home), fingerprints_for=lambda _: ("a replayed command body",),
                            min_confidence=0.75, index=index)
    assert not got[0].from_index


def test_stored_views_are_redacted(tmp_path: Path) -> None:
    home = _home(tmp_path, 1)
    path = _files(home)[0].path
    secret = "sk-ant-api03-" + "Q" * 80
    line = next(d for d in map(json.loads, path.read_text().splitlines())
                if d["type"] == "user" and isinstance(d["message"]["content"], str))
    with path.open("a") as fh:
        fh.write(json.dumps({**line, "uuid": "9" * 8, "message": {"role": "user",
                             "content": f"use this key {secret} please"}}) + "\n")
    got = _views(home, tmp_path / "s.db")
    assert secret.encode() not in (tmp_path / "s.db").read_bytes()
    assert all(secret not in t.text for t in got[0].session.human_turns)


def test_parallel_views_are_in_input_order_and_equal_serial(tmp_path: Path) -> None:
    home = _home(tmp_path, 10)
    serial = _views(home, tmp_path / "a.db", workers=1)
    pooled = _views(home, tmp_path / "b.db", workers=2)
    assert [i.file.path for i in pooled] == [f.path for f in _files(home)]
    assert [i.session for i in pooled] == [i.session for i in serial]
    assert [i.row.view for i in pooled] == [i.row.view for i in serial]


def test_parallel_stream_is_in_input_order_and_equal_serial(tmp_path: Path) -> None:
    home = _home(tmp_path, 10)
    paths = sorted(f.path for f in _files(home))[::-1]
    paths.insert(3, tmp_path / "gone.jsonl")  # vanished: skipped, order kept
    pooled = list(stream(paths, workers=2))
    serial = list(stream(paths, workers=1))
    assert [t.path for t in pooled] == [p for p in paths if p.exists()]
    assert [list(t.events) for t in pooled] == [list(t.events) for t in serial]
    assert [list(parse(p).events) for p in paths if p.exists()] == [list(t.events) for t in pooled]


def test_the_index_is_written_to_the_local_store(tmp_path: Path) -> None:
    home = _home(tmp_path, 2)
    _views(home, tmp_path / "s.db")
    with open_session_index(tmp_path / "s.db") as index:
        assert isinstance(index, SessionIndex) and index.count() == 2


def test_discovery_through_the_index_opens_no_unchanged_file(tmp_path: Path,
                                                              opened: list[str]) -> None:
    home = _home(tmp_path, 3)
    since = datetime(2000, 1, 1, tzinfo=UTC)

    def discover() -> list[SessionFile]:
        with open_session_index(tmp_path / "s.db") as index:
            heads = CachedHeads(index)
            found = scan(all_projects=True, since=since, claude_dir=home / ".claude",
                         codex_dir=home / ".codex", heads=heads).files
            heads.save()
            indexed_views(found, fingerprints_for=lambda _: (), min_confidence=0.75, index=index)
        return found

    first = discover()
    assert [p for p in opened if p.endswith(".jsonl")]
    opened.clear()
    again = discover()
    assert again == first
    assert not [p for p in opened if p.endswith(".jsonl")]
    # A changed file is read again, head and all.
    path = first[0].path
    with path.open("a") as fh:
        fh.write("\n")
    opened.clear()
    discover()
    assert {p for p in opened if p.endswith(".jsonl")} == {str(path)}


def _cli(*args: str) -> str:
    from click.testing import CliRunner

    from learn.cli import cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_learn_sessions_and_plan_warm_open_no_transcript(tmp_path: Path, opened: list[str]) -> None:
    _home(tmp_path, 3)
    cold = json.loads(_cli("sessions", "--all-projects", "--json"))
    plan_cold = json.loads(_cli("plan", "--all-projects", "--since", "100000d", "--json"))
    assert [p for p in opened if p.endswith(".jsonl")]
    opened.clear()
    warm = json.loads(_cli("sessions", "--all-projects", "--json"))
    plan_warm = json.loads(_cli("plan", "--all-projects", "--since", "100000d", "--json"))
    assert not [p for p in opened if p.endswith(".jsonl")]
    assert warm == cold and len(warm["sessions"]) == 3
    assert plan_warm == plan_cold and len(plan_warm["to_mine"]) == 3


def test_a_warm_learn_run_opens_no_transcript(tmp_path: Path, opened: list[str]) -> None:
    from learn.config import Config
    from learn.pipeline import RunOptions, run_pipeline

    _home(tmp_path, 3)
    options = RunOptions(all_projects=True, offline=True, embedder="tfidf")
    first, _ = run_pipeline(options, Config())
    opened.clear()
    again, _ = run_pipeline(options, Config())
    assert not [p for p in opened if p.endswith(".jsonl")]
    assert again.usage.sessions_seen == first.usage.sessions_seen == 3
    assert again.funnel == first.funnel


def test_rows_of_deleted_files_are_forgotten(tmp_path: Path) -> None:
    home = _home(tmp_path, 3)
    db = tmp_path / "s.db"

    def discover() -> None:
        with open_session_index(db) as index:
            heads = CachedHeads(index)
            found = scan(all_projects=True, claude_dir=home / ".claude",
                         codex_dir=home / ".codex", heads=heads).files
            heads.save()
            indexed_views(found, fingerprints_for=lambda _: (), min_confidence=0.75, index=index)

    discover()
    _files(home)[0].path.unlink()
    discover()
    with open_session_index(db) as index:
        assert index.count() == 2
        assert len(index.heads()) == 2


def test_with_a_shared_database_the_index_stays_on_this_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.paths import cache_dir
    from learn.store.session_index import session_index_path

    assert session_index_path(tmp_path / "x.db") == tmp_path / "x.db"
    monkeypatch.setenv("LEARN_DATABASE_URL", "postgresql://team@db.example/learn")
    assert session_index_path() == cache_dir() / "session-index.db"
    assert session_index_path("postgresql://team@db.example/learn") == cache_dir() / "session-index.db"


def test_a_listing_reads_the_turns_keys_only_when_it_judges(tmp_path: Path) -> None:
    from learn.index.indexed import with_keys

    home = _home(tmp_path, 3)
    db = tmp_path / "s.db"
    first = _views(home, db, views=False, texts=False)  # read: the rows hold their keys
    assert all(i.row.keys for i in with_keys(first))
    with open_session_index(db) as index:
        files = _files(home)
        light = indexed_views(files, fingerprints_for=lambda _: (), min_confidence=0.75,
                              index=index, views=False, texts=False, keys=False)
        assert [i.from_index for i in light] == [True] * 3
        assert [i.row.keys for i in light] == [None] * 3
        assert [i.row.keys for i in with_keys(light)] == [i.row.keys for i in first]


def test_gone_files_are_forgotten_and_those_just_stat_ed_are_not_looked_at_again(
        tmp_path: Path) -> None:
    home = _home(tmp_path, 3)
    db = tmp_path / "s.db"
    _views(home, db, views=False)
    with open_session_index(db) as index:
        heads = CachedHeads(index)
        files = scan(all_projects=True, claude_dir=home / ".claude", codex_dir=home / ".codex",
                     heads=heads).files
        heads.save()
        asked: list[str] = []
        gone = files[0].path
        gone.unlink()

        def exists(path: str) -> bool:
            asked.append(path)
            return os.path.exists(path)

        assert index.forget_missing(exists, present={str(f.path) for f in files[1:]}) == 1
        assert asked == [str(gone)]
        assert set(index.get_many([str(f.path) for f in files], views=False)) == {
            str(f.path) for f in files[1:]}


def test_discovery_keeps_the_stat_it_took(tmp_path: Path) -> None:
    home = _home(tmp_path, 2)
    for f in _files(home):
        st = f.path.stat()
        assert f.stat is not None
        assert (f.stat.size, f.stat.mtime_ns, f.stat.inode) == (st.st_size, st.st_mtime_ns,
                                                                 st.st_ino)
