"""The local store at its edges: what is at learn.db's path (or the data dir's) when it is
not learn's, a full database, the lock's setting, and a write that names no file.

Each was found by putting the thing there and running learn (see each test). The
rule they pin: one line that says what is wrong and what to do, and nothing of the
person's changed on the way; in particular nothing chmod-ed that is not learn's.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from learn.doctor import check_store
from learn.errors import explain
from learn.store import FeedbackStore, open_store
from learn.store.db import StoreFullError
from learn.store.session_index import IndexRow

REPO = Path(__file__).resolve().parents[1]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return env


def learn(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=_env(home, **extra),
                          capture_output=True, text=True, timeout=120, cwd=project,
                          stdin=subprocess.DEVNULL)


def one_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"learn {command}: "), lines[0]
    return lines[0]


def store_path(home: Path) -> Path:
    return home / ".local" / "share" / "learn" / "learn.db"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- what is at learn.db's path ------------------------------------------------------


@pytest.mark.parametrize("command", ["sessions", "run", "digest"])
def test_a_folder_named_learn_db_is_refused_and_left_as_it_was(tmp_path: Path,
                                                               command: str) -> None:
    """It was made 0600 (its files unreachable to its owner) by the store's tightening,
    and `learn digest` said "no stored run: run `learn run` first"."""
    db = store_path(tmp_path)
    db.mkdir(parents=True, mode=0o755)
    os.chmod(db, 0o755)
    (db / "notes.txt").write_text("mine")
    done = learn(tmp_path, command, *(["--offline"] if command == "run" else []))
    assert done.returncode == 1
    assert f"{db} is not a file; fix: move {db} aside" in one_line(done, command)
    assert mode(db) == 0o755
    assert (db / "notes.txt").read_text() == "mine"


def test_a_fifo_named_learn_db_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = store_path(tmp_path)
    db.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(db, 0o644)
    os.chmod(db, 0o644)
    done = learn(tmp_path, "sessions")
    assert f"{db} is not a file" in one_line(done, "sessions")
    assert stat.S_ISFIFO(db.stat().st_mode) and mode(db) == 0o644


def test_a_link_to_a_file_that_is_no_database_leaves_that_file_alone(tmp_path: Path) -> None:
    """learn.db -> ~/notes.txt: SQLite refuses it, but the notes had been made 0600 first."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, readable by my group\n")
    os.chmod(notes, 0o644)
    db = tmp_path / "data" / "learn.db"
    db.parent.mkdir(mode=0o700)
    db.symlink_to(notes)
    with pytest.raises(Exception, match="not a database"):
        FeedbackStore.open(db)
    assert mode(notes) == 0o644
    assert notes.read_text() == "my notes, readable by my group\n"


def test_a_link_to_a_store_elsewhere_is_used_and_kept_private(tmp_path: Path) -> None:
    """What the refusals above must not take away: a store moved to another disk and
    linked back is still learn's, and tightened."""
    elsewhere = tmp_path / "disk" / "learn.db"
    elsewhere.parent.mkdir()
    FeedbackStore.open(elsewhere).close()
    os.chmod(elsewhere, 0o644)
    db = tmp_path / "data" / "learn.db"
    db.parent.mkdir(mode=0o700)
    db.symlink_to(elsewhere)
    with FeedbackStore.open(db) as store:
        store.record_file("/x", 1.0)
    assert mode(elsewhere) == 0o600
    with FeedbackStore.open(elsewhere) as store:
        assert store.file_mtimes() == {"/x": 1.0}


def test_a_side_file_that_is_a_folder_is_named_and_the_store_is_not_sent_aside(
    tmp_path: Path,
) -> None:
    """A folder named learn.db-wal: the store could not open ("unable to open database
    file") and the fix said to move learn.db aside, which loses the store, while the
    folder was made 0600."""
    db = store_path(tmp_path)
    db.parent.mkdir(parents=True, mode=0o700)
    FeedbackStore.open(db).close()
    wal = db.with_name("learn.db-wal")
    wal.mkdir(mode=0o755)
    os.chmod(wal, 0o755)
    done = learn(tmp_path, "run", "--offline")
    line = one_line(done, "run")
    assert f"{wal} is not a file; fix: move {wal} aside" in line
    assert f"move {db} aside" not in line
    assert mode(wal) == 0o755
    check = check_store(db)
    assert check.status == "fail" and str(wal) in check.detail


def test_a_link_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    """It said "learn.db: No such file or directory" for a learn.db that `ls` shows."""
    db = store_path(tmp_path)
    db.parent.mkdir(parents=True, mode=0o700)
    db.symlink_to(tmp_path / "unmounted" / "learn.db")
    done = learn(tmp_path, "sessions")
    line = one_line(done, "sessions")
    assert f"{db} is a link to {tmp_path / 'unmounted' / 'learn.db'}, whose folder does not " \
           "exist" in line
    assert not (tmp_path / "unmounted").exists()


@pytest.mark.parametrize("command", ["run", "digest", "sessions"])
def test_a_data_dir_that_is_a_file_is_one_line_and_the_file_keeps_its_mode(
    tmp_path: Path, command: str,
) -> None:
    """LEARN_DATA_DIR naming a file: the file was chmod-ed 0700 (made executable) as if
    it were the folder, and `learn digest` said "no stored run"."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file of mine\n")
    os.chmod(blocker, 0o644)
    done = learn(tmp_path, command, *(["--offline"] if command == "run" else []),
                 LEARN_DATA_DIR=str(blocker))
    assert done.returncode == 1
    assert f"{blocker} exists and is not a directory" in one_line(done, command)
    assert mode(blocker) == 0o644
    assert blocker.read_text() == "a file of mine\n"


# -- a full database ------------------------------------------------------------------

def _limit_pages(store: FeedbackStore, extra: int) -> None:
    """SQLite's page cap: SQLITE_FULL exactly as a full disk gives it, with no mount."""
    (row,) = store.sql("PRAGMA page_count")
    store.sql(f"PRAGMA max_page_count = {int(row['page_count']) + extra}")


def _runs(store: FeedbackStore) -> int:
    return int(store.sql("SELECT COUNT(*) AS n FROM runs")[0]["n"])


def test_a_full_database_says_full_not_cannot_rollback(tmp_path: Path) -> None:
    """SQLite ends the transaction itself on SQLITE_FULL; the ROLLBACK after it failed
    "cannot rollback - no transaction is active", and that is what the run reported."""
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        store.execute("INSERT INTO runs (started_at) VALUES ('before')")
        _limit_pages(store, 2)
        with pytest.raises(StoreFullError, match="the disk is full"), store.transaction():
            for _ in range(50):
                store.execute("INSERT INTO runs (started_at, args_json) VALUES ($1, $2)",
                              ("x", "y" * 4000))
        with pytest.raises(StoreFullError):
            store.execute("INSERT INTO runs (started_at, args_json) VALUES ($1, $2)",
                          ("x", "y" * 200_000))
        assert _runs(store) == 1  # the transaction is gone whole, what was before stays
        assert not store.in_transaction
        _limit_pages(store, 1000)
        store.execute("INSERT INTO runs (started_at) VALUES ('after')")  # and it takes writes
        assert _runs(store) == 2
        assert store.sql("PRAGMA integrity_check") == [{"integrity_check": "ok"}]


def test_a_full_session_index_says_full(tmp_path: Path) -> None:
    with open_store(tmp_path / "learn.db", local_only=True) as store:
        index = store.index
        conn = store._local_conn()
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {pages + 1}")
        rows = [IndexRow(path=f"/s/{i}", size=1, mtime_ns=1, inode=i, version="v", context="c",
                         summary="x" * 3000) for i in range(40)]
        with pytest.raises(StoreFullError):
            index.put_many(rows)
        assert index.count() == 0


def test_a_full_disk_is_explained_as_one_line_with_the_fix(tmp_path: Path) -> None:
    line, code = explain(StoreFullError(f"{tmp_path}/learn.db: the disk is full")) or ("", 0)
    assert code == 1
    assert line == (f"{tmp_path}/learn.db: the disk is full; nothing was lost: what learn "
                    "finished is kept; fix: free some disk space and run it again")


# -- the lock's setting -----------------------------------------------------------------

@pytest.mark.parametrize("value", ["10s", "abc", "nan", "-1"])
def test_a_lock_timeout_that_is_no_number_of_seconds_is_one_line(tmp_path: Path,
                                                                 value: str) -> None:
    """LEARN_LOCK_TIMEOUT=10s was a ValueError traceback, after the backend was set up."""
    done = learn(tmp_path, "run", "--offline", LEARN_LOCK_TIMEOUT=value)
    assert done.returncode == 2
    line = one_line(done, "run")
    assert f"LEARN_LOCK_TIMEOUT={value!r} is not a number of seconds" in line


def test_a_lock_timeout_of_seconds_is_taken(tmp_path: Path) -> None:
    done = learn(tmp_path, "run", "--offline", LEARN_LOCK_TIMEOUT=" 2.5 ")
    assert done.returncode == 0, done.stderr


# -- a write that fails names its file ---------------------------------------------------

def test_a_write_that_fails_for_space_names_the_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`learn run --out` on a full disk said "[Errno 28] No space left on device", and
    `learn report` the same with "free some disk space": which file, on which disk?"""
    from learn.paths import atomic_write_text

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    target = tmp_path / "out" / "digest.md"
    target.parent.mkdir()
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught:
        atomic_write_text(target, "# digest\n")
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(target)
    assert list(target.parent.iterdir()) == []
    said = explain(caught.value)
    assert said is not None and said[0].startswith(f"{target}: No space left on device; fix: "
                                                   "free some disk space")
