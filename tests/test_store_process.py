"""Crash safety, concurrent processes and file permissions, with real processes and files."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from learn.store import FeedbackStore, StoreBusyError
from learn.store.schema import STEP_NAMES

# A writer process: opens the store, inserts rows inside one transaction, says
# "ready" and then either waits to be killed (crash) or commits after a pause.
WRITER = textwrap.dedent(
    """
    import sys, time
    from dataclasses import dataclass
    from learn.store import FeedbackStore

    @dataclass(frozen=True)
    class C:
        dedup_key: str
        text: str
        source_kind: str = "denial"
        occurred_at: str = "2026-01-01T00:00:00+00:00"
        window: object = None
        ref: object = None
        signal: object = None
        session_id: str = "s"
        cc_version: str = None
        payload: dict = None

    path, mode, hold = sys.argv[1], sys.argv[2], float(sys.argv[3])
    store = FeedbackStore.open(path)
    with store.transaction():
        store.record_file_scan("/t/" + mode, 1.0, [C(f"{mode}-{i}", "x" * 200) for i in range(500)])
        store.execute("INSERT INTO runs (started_at) VALUES ('now')")
        print("ready", flush=True)
        if mode == "crash":
            time.sleep(60)
        time.sleep(hold)
    print("committed", flush=True)
    store.close()
    """
)


def _spawn(tmp_path: Path, db: Path | str, mode: str, hold: float = 0.0) -> subprocess.Popen[str]:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(db), mode, str(hold)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == "ready", proc.stderr.read() if proc.stderr else line
    return proc


def _integrity(db: Path) -> str:
    with FeedbackStore.open(db) as s:
        return str(s.sql("PRAGMA integrity_check")[0]["integrity_check"])


def test_sigkill_before_commit_leaves_nothing_half_written(
    tmp_path: Path, store_target: Path | str
) -> None:
    db = store_target
    FeedbackStore.open(db).close()  # created and migrated
    proc = _spawn(tmp_path, db, "crash")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    with FeedbackStore.open(db) as s:
        assert s.stats().total == 0
        assert s.file_mtimes() == {}
        assert s.sql("SELECT COUNT(*) AS n FROM runs") == [{"n": 0}]
        # and the database still takes writes
        s.record_file("/after", 2.0)
        assert s.file_mtimes() == {"/after": 2.0}
    if isinstance(db, Path):
        assert _integrity(db) == "ok"


# Two writers at once: each process opens the (fresh, unmigrated) store at the same
# moment, then writes its own rows and a shared set, through the whole write path.
TWO_WRITERS = textwrap.dedent(
    """
    import sys, time
    from learn.store import open_store
    from learn.store.scan_tables import CandidateRow

    target, who, start_at = sys.argv[1], sys.argv[2], float(sys.argv[3])
    time.sleep(max(0.0, start_at - time.time()))
    with open_store(target) as opened:
        store, tables = opened.ledger, opened.scans
        for i in range(40):
            rows = [CandidateRow(f"{who}-{i}", "directive", f"said by {who} {i}")]
            tables.replace_session_candidates(f"{who}-{i}", rows)
            with store.transaction():
                store.record_file(f"/shared/{i}", float(i))
                store.execute("INSERT INTO runs (started_at) VALUES ($1)", (who,))
    print("done", flush=True)
    """
)


def test_two_processes_writing_at_once_both_commit_everything(
    tmp_path: Path, store_target: Path | str
) -> None:
    script = tmp_path / "two.py"
    script.write_text(TWO_WRITERS)
    start_at = time.time() + 1.5  # both past their imports, then open together
    procs = [
        subprocess.Popen([sys.executable, str(script), str(store_target), who, str(start_at)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for who in ("ana", "bo")
    ]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0 and out.strip() == "done", err
    with FeedbackStore.open(store_target) as s:
        assert s.sql("SELECT COUNT(*) AS n FROM candidates") == [{"n": 80}]
        assert s.sql("SELECT started_at, COUNT(*) AS n FROM runs GROUP BY started_at "
                     "ORDER BY started_at") == [{"started_at": "ana", "n": 40},
                                                {"started_at": "bo", "n": 40}]
        assert len(s.file_mtimes()) == 40
        assert s.sql("SELECT name FROM _migrations ORDER BY name") == [
            {"name": n} for n in sorted(STEP_NAMES)]


def test_second_process_waits_for_the_writer(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    FeedbackStore.open(db).close()
    proc = _spawn(tmp_path, db, "slow", hold=0.7)
    t0 = time.monotonic()
    with FeedbackStore.open(db) as s:  # default busy timeout: 5000 ms
        s.record_file("/mine", 1.0)
        waited = time.monotonic() - t0
        assert proc.wait(10) == 0
        assert s.stats().total == 500
        assert s.file_mtimes() == {"/t/slow": 1.0, "/mine": 1.0}
    assert waited > 0.3  # it really waited for the other transaction instead of interleaving
    assert _integrity(db) == "ok"


def test_second_process_fails_cleanly_past_the_busy_timeout(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    FeedbackStore.open(db).close()
    proc = _spawn(tmp_path, db, "slow", hold=2.0)
    try:
        with FeedbackStore.open(db, busy_timeout_ms=100) as s:
            with pytest.raises(StoreBusyError, match="locked"):
                s.record_file("/mine", 1.0)
            with pytest.raises(StoreBusyError), s.transaction():
                pass
            # readers are not blocked by the writer (WAL) and see only committed rows
            assert s.stats().total == 0
    finally:
        assert proc.wait(10) == 0
    with FeedbackStore.open(db) as s:
        assert s.stats().total == 500
        assert "/mine" not in s.file_mtimes()
    assert _integrity(db) == "ok"


def test_files_are_private(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "dir" / "f.db"
    old = os.umask(0o022)
    try:
        with FeedbackStore.open(db) as s:
            s.record_file("/x", 1.0)
            names = {p.name: stat.S_IMODE(p.stat().st_mode) for p in db.parent.iterdir()}
    finally:
        os.umask(old)
    assert names == {"f.db": 0o600, "f.db-wal": 0o600, "f.db-shm": 0o600}
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_existing_loose_file_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    db.touch(mode=0o644)
    os.chmod(db, 0o644)
    FeedbackStore.open(db).close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_a_store_its_owner_made_read_only_is_not_made_writable(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    FeedbackStore.open(db).close()
    os.chmod(db, 0o444)
    with contextlib.suppress(Exception):  # as its owner (not root) the open then fails to write
        FeedbackStore.open(db).close()
    # Tightened for group and others, never given back the write bit its owner took away.
    assert stat.S_IMODE(db.stat().st_mode) == 0o400


def test_learn_data_dir_is_tightened_but_a_user_dir_is_left_alone(tmp_path: Path) -> None:
    from learn.paths import data_dir
    from learn.store.runs import default_store_path

    data_dir().mkdir(parents=True, mode=0o755)
    os.chmod(data_dir(), 0o755)
    FeedbackStore.open(default_store_path()).close()
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    FeedbackStore.open(mine / "x.db").close()
    assert stat.S_IMODE(mine.stat().st_mode) == 0o755
    assert stat.S_IMODE((mine / "x.db").stat().st_mode) == 0o600
