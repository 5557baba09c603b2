"""`scan(quick=True)`: a project's files without building the other projects' candidates.

`learn show` judges a session against the other sessions of its project; the scan
that finds them left out the files of other projects by their heads the session
index stored, before it built their candidates. It must find the same files as the
full scan, whatever changed on disk since the index was written.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fixtures.view.corpus import CODEX_ID, MAIN_ID, OTHER_ID, SUBDIR_ID, Home, encode, install

from learn.index.indexed import CachedHeads
from learn.store import open_store
from learn.transcripts.files import discover
from learn.transcripts.files.discover import SessionFile, scan
from learn.transcripts.files.heads import Head, Provider
from learn.transcripts.files.sources import SourceStat


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Path.home()
    return install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")


@contextmanager
def indexed(db: Path) -> Iterator[CachedHeads]:
    """Heads through the session index at `db`, as `learn show` reads them."""
    with open_store(db, local_only=True) as local:
        yield CachedHeads(local.index)


def listed(db: Path) -> None:
    """What `learn sessions --all-projects` leaves in the index: every file's head."""
    with indexed(db) as heads:
        scan(all_projects=True, heads=heads)
        heads.save()


def read_by(heads: CachedHeads, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files whose head the scan asks `heads` for (from the index or the file)."""
    asked: list[Path] = []
    real = heads.read_head

    def spy(path: Path, provider: Provider, stat: SourceStat | None = None) -> Head:
        asked.append(path)
        return real(path, provider, stat)

    monkeypatch.setattr(heads, "read_head", spy)
    return asked


def both(db: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
         limit: int | None = None) -> tuple[list[SessionFile], list[SessionFile], list[Path]]:
    """(full scan's files, quick scan's files, the heads the quick scan asked for)."""
    with indexed(db) as heads:
        full = scan(project=project, heads=heads, limit=limit).files
    with indexed(db) as heads:
        asked = read_by(heads, monkeypatch)
        quick = scan(project=project, heads=heads, limit=limit, quick=True).files
    return full, quick, asked


def ids(files: list[SessionFile]) -> list[str]:
    return [f.session_id for f in files]


def test_the_project_files_are_the_full_scans_and_the_others_are_not_looked_at(
        home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    listed(db)
    full, quick, asked = both(db, home.project, monkeypatch)
    assert ids(full) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    assert quick == full
    assert [f.stat for f in quick] == [f.stat for f in full]
    assert OTHER_ID not in ids(quick)
    # The other project's file: left out on what the index knew, its head not asked for.
    assert home.files["other"] not in asked
    assert home.files["main"] in asked
    with indexed(db) as heads:
        everything = read_by(heads, monkeypatch)
        scan(project=home.project, heads=heads)
    assert home.files["other"] in everything  # what the full scan did


def test_the_limit_keeps_the_same_newest_files(home: Home, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    listed(db)
    for limit in (1, 2):
        full, quick, _ = both(db, home.project, monkeypatch, limit=limit)
        assert len(full) == limit
        assert quick == full


def test_a_file_rewritten_since_the_index_is_read_again(home: Home, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # The index places the other file in `shop-old`; it now holds a session of `shop/api`.
    db = tmp_path / "s.db"
    listed(db)
    other = home.files["other"]
    before = other.stat()
    other.write_text(home.files["subdir"].read_text() + "\n")
    os.utime(other, (before.st_atime, before.st_mtime))
    full, quick, asked = both(db, home.project, monkeypatch)
    assert OTHER_ID in ids(full)
    assert quick == full
    assert other in asked


def test_a_deleted_file_is_gone_from_both(home: Home, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.db"
    listed(db)
    home.files["subdir"].unlink()
    full, quick, _ = both(db, home.project, monkeypatch)
    assert SUBDIR_ID not in ids(full)
    assert quick == full


def test_a_session_in_a_folder_new_since_the_index_makes_it_scan_in_full(
        home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder learn did not know may change which project a known folder is of
    # (learn.projects): the files left out were decided without it, so none is.
    db = tmp_path / "s.db"
    listed(db)
    new_cwd = home.project / "web"
    new = home.claude / "projects" / encode(new_cwd) / "0b0b0b0b-0000-4000-8000-000000000001.jsonl"
    new.parent.mkdir(parents=True)
    text = home.files["subdir"].read_text().replace(str(home.project / "api"), str(new_cwd))
    new.write_text(text)
    passes: list[bool] = []
    real = discover._scan

    def counted(**kwargs: object) -> object:
        passes.append(bool(kwargs["quick"]))
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(discover, "_scan", counted)
    full, quick, _ = both(db, home.project, monkeypatch)
    assert "0b0b0b0b-0000-4000-8000-000000000001" in ids(full)
    assert quick == full
    assert passes == [False, True, False]  # the full scan, then the quick one given up


def test_without_an_index_or_over_every_project_nothing_is_left_out(home: Home) -> None:
    assert scan(project=home.project, quick=True).files == scan(project=home.project).files
    every = scan(all_projects=True, quick=True)
    assert OTHER_ID in ids(every.files)


def test_a_copy_of_the_home_gives_the_same_files(home: Home, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Indexed under one set of inodes, listed under another: every row is stale.
    db = tmp_path / "s.db"
    listed(db)
    copy = tmp_path / "copy"
    shutil.copytree(home.claude, copy / ".claude", copy_function=shutil.copy2)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(copy / ".claude"))
    full, quick, asked = both(db, home.project, monkeypatch)
    assert quick == full
    assert copy / ".claude" / "projects" / encode(Path(str(home.project) + "-old")) \
        / f"{OTHER_ID}.jsonl" in asked
