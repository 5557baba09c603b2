"""The walk of Gemini CLI's, Copilot CLI's and OpenCode's session folders and stores, by name.

Like `listing`, nothing is read here that discovery's heads would read: a
candidate is a session's place, its stat (or a store's row), and what its place
alone says (a Gemini CLI folder's project, an OpenCode store's session ids).
A folder or store that cannot be read is recorded in `Skips`, never fatal; a
session file is a regular file, as in `listing`. A path that is not UTF-8 is
skipped by `utf8_only`, over what these walks list.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from learn.transcripts.files.listing import Candidate, Skips, is_utf8

__all__ = ["copilot_candidates", "gemini_candidates", "opencode_candidates", "utf8_only"]

# `session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.json[l]`
_GEMINI_NAME_RE: Final = re.compile(r"\Asession-.*-([0-9A-Za-z]{8})\.jsonl?\Z")


def _entries(path: Path, skips: Skips) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        skips.add("unreadable", path, detail=exc.strerror or str(exc))
        return []


def _file(entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        return entry.stat() if entry.is_file() else None
    except OSError:
        return None


def utf8_only(candidates: Iterable[Candidate], skips: Skips) -> Iterator[Candidate]:
    """The candidates whose path is UTF-8 (`listing.is_utf8`); the others are skipped as
    unreadable. Checked on the whole path once a candidate: these walks are a few
    folders deep each, with names from three clients, and list tens of files."""
    for cand in candidates:
        if is_utf8(str(cand.path)):
            yield cand
        else:
            skips.not_utf8(cand.path, cand.provider)


def gemini_candidates(base: Path, skips: Skips, known: Iterable[Path] = ()) -> Iterator[Candidate]:
    """Sessions under `<base>/tmp/<project>/chats/` (`gemini.places`); subagents one folder down."""
    from learn.transcripts.gemini.places import project_roots

    tmp = base / "tmp"
    if not tmp.is_dir():
        return
    roots = project_roots(base, known)
    for folder in _entries(tmp, skips):
        if not folder.is_dir():
            continue
        project = roots.get(folder.name)
        for entry in _entries(Path(folder.path) / "chats", skips):
            match = _GEMINI_NAME_RE.match(entry.name)
            st = _file(entry)
            if match is not None and st is not None:
                yield Candidate(Path(entry.path), "gemini", match.group(1), st.st_mtime,
                                st.st_size, project=project, whole_id=False)
            elif entry.is_dir():
                # `chats/<parent session id>/<id>.jsonl`: a subagent's file.
                for child in _entries(Path(entry.path), skips):
                    cst = _file(child)
                    if cst is not None and child.name.endswith(".jsonl"):
                        yield Candidate(Path(child.path), "gemini", child.name[:-6],
                                        cst.st_mtime, cst.st_size, project=project)


def copilot_candidates(base: Path, skips: Skips) -> Iterator[Candidate]:
    """`<base>/session-state/<id>/events.jsonl`, and the flat `<id>.jsonl` of early builds."""
    for entry in _entries(base / "session-state", skips):
        if entry.is_dir():
            path = Path(entry.path) / "events.jsonl"
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            except OSError as exc:
                skips.add("unreadable", path, "copilot", entry.name, exc.strerror or str(exc))
                continue
            if stat.S_ISREG(st.st_mode):  # a FIFO's head would be read for good (`listing`)
                yield Candidate(path, "copilot", entry.name, st.st_mtime, st.st_size)
        elif entry.name.endswith(".jsonl") and not entry.name.startswith("."):
            fst = _file(entry)
            if fst is not None:
                yield Candidate(Path(entry.path), "copilot", entry.name[:-6], fst.st_mtime,
                                fst.st_size)


def opencode_candidates(base: Path, skips: Skips) -> Iterator[Candidate]:
    """Each session of OpenCode's SQLite stores, then of its JSON store.

    A session in both (the JSON files a migration left behind) is read from the
    SQLite store, the one OpenCode writes now.
    """
    if not base.is_dir():  # no OpenCode here: its store's readers go unimported (1.5 ms)
        return
    from learn.transcripts.opencode import database, storage
    from learn.transcripts.opencode.places import database_files, session_path

    in_db: dict[str, Path] = {}
    for db in database_files(base):
        try:
            rows = list(database.sessions(db))
        except OSError as exc:
            skips.add("unreadable", db, "opencode", detail=str(exc))
            continue
        for row in rows:
            in_db.setdefault(row.id, db)
            # The size is known once read (the export): 0 until then.
            yield Candidate(session_path(db, row.id), "opencode", row.id, row.updated / 1000.0,
                            0, project=row.directory)
    for path in storage.sessions(base / "storage"):
        if path.stem in in_db:
            skips.add("duplicate", path, "opencode", path.stem, str(in_db[path.stem]))
            continue
        try:
            st = path.stat()
        except OSError as exc:
            skips.add("unreadable", path, "opencode", path.stem, exc.strerror or str(exc))
            continue
        if stat.S_ISREG(st.st_mode):
            yield Candidate(path, "opencode", path.stem, st.st_mtime, st.st_size)
