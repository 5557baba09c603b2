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
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from learn.transcripts.files.listing import Candidate, Skips, is_utf8

__all__ = ["copilot_candidates", "gemini_candidates", "opencode_candidates", "utf8_only"]

# `session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.json[l]`
_GEMINI_NAME_RE: Final = re.compile(r"\Asession-.*-([0-9A-Za-z]{8})\.jsonl?\Z")
_GEMINI_START_RE: Final = re.compile(r"\Asession-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-")


# A log entry is written as the message is sent, its chats file's mtime when the reply
# (or the last update) is: an entry is never after it by more than a clock's jitter.
_SLACK_SECONDS: Final = 2.0


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
    """Sessions under `<base>/tmp/<project>/chats/` (`gemini.places`); subagents one folder
    down; then the sessions of `<project>/logs.json` no chats file holds (`gemini.logs`)."""
    from learn.transcripts.gemini.places import project_roots

    tmp = base / "tmp"
    if not tmp.is_dir():
        return
    roots = project_roots(base, known)
    for folder in _entries(tmp, skips):
        if not folder.is_dir():
            continue
        project = roots.get(folder.name)
        recorded: set[str] = set()  # the first 8 characters of each chats file's session id
        written: list[tuple[float, float, Path]] = []  # when each chats file was written
        for entry in _entries(Path(folder.path) / "chats", skips):
            match = _GEMINI_NAME_RE.match(entry.name)
            st = _file(entry)
            if match is not None and st is not None:
                recorded.add(match.group(1))
                start = _GEMINI_START_RE.match(entry.name)
                if start is not None:
                    written.append((_utc_minute(start), st.st_mtime, Path(entry.path)))
                yield Candidate(Path(entry.path), "gemini", match.group(1), st.st_mtime,
                                st.st_size, project=project, whole_id=False)
            elif entry.is_dir():
                # `chats/<parent session id>/<id>.jsonl`: a subagent's file.
                for child in _entries(Path(entry.path), skips):
                    cst = _file(child)
                    if cst is not None and child.name.endswith(".jsonl"):
                        yield Candidate(Path(child.path), "gemini", child.name[:-6],
                                        cst.st_mtime, cst.st_size, project=project)
        yield from _gemini_logged(Path(folder.path), recorded, written, project, skips)


def _utc_minute(match: re.Match[str]) -> float:
    try:
        return datetime.fromisoformat(f"{match.group(1)}:{match.group(2)}").replace(
            tzinfo=UTC).timestamp()
    except ValueError:
        return float("inf")  # no window: nothing falls in it


def _gemini_logged(folder: Path, recorded: set[str], written: list[tuple[float, float, Path]],
                   project: str | None, skips: Skips) -> Iterator[Candidate]:
    """The sessions of a folder's `logs.json` (`gemini.logs`) that no chats file holds:
    those of the builds before chat recording, or whose chats file is gone. One stat a
    folder when there is no log; a chats file's session is read from the file alone,
    and so is a session resumed under another id, whose entries all fall while one chats
    file of the folder was being written (from the minute its name says to its mtime) and
    whose every message that file holds."""
    logs = folder / "logs.json"
    try:
        st = logs.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        skips.add("unreadable", logs, "gemini", detail=exc.strerror or str(exc))
        return
    if not stat.S_ISREG(st.st_mode):
        return
    from learn.transcripts.gemini import logs as gemini_logs

    try:
        sessions, orphans = gemini_logs.logged_sessions(logs)
    except OSError as exc:
        skips.add("unreadable", logs, "gemini", detail=str(exc))
        return
    if orphans:
        skips.add("unreadable", logs, "gemini",
                  detail=f"{orphans} of its entries name no session")
    read: dict[Path, bytes] = {}

    def resumed_in(chats: Path, session_id: str) -> bool:
        # The time window alone took any log session written while a long-lived chats file
        # was open for its resumed copy (review of 2026-12: a session whose chats file was
        # gone, dropped as a "duplicate" of another): its words must be in that file too.
        if chats not in read:
            try:
                read[chats] = chats.read_bytes()
            except OSError:
                read[chats] = b""
        try:
            texts = gemini_logs.typed_texts(logs, session_id)
        except OSError:
            return False
        return bool(texts) and gemini_logs.holds_all(read[chats], texts)

    for session in sessions:
        if session.id[:8] in recorded:
            continue
        path = gemini_logs.session_path(logs, session.id)
        within = next((chats for start, end, chats in written
                       if start <= session.oldest <= session.newest <= end + _SLACK_SECONDS
                       and resumed_in(chats, session.id)),
                      None)
        if within is not None:
            skips.add("duplicate", path, "gemini", session.id, str(within))
            continue
        # The size is known once read (the export): 0 until then, as a store's session.
        yield Candidate(path, "gemini", session.id, session.newest or st.st_mtime, 0,
                        project=project)


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


def opencode_candidates(base: Path, skips: Skips, known: Iterable[Path] = ()) -> Iterator[Candidate]:
    """Each session of OpenCode's SQLite stores, then of its JSON store, then of the
    per-project stores before it (`opencode.project_storage`).

    A session in two (the files a migration left behind) is read from the newest
    store, the one OpenCode wrote last. `known`: the folders asked about, which a
    per-project store's folder name is matched against when no message names one.
    """
    # No OpenCode here: its store's readers go unimported (1.5 ms). Unless OPENCODE_DB
    # names a store elsewhere, which OpenCode writes without its data folder.
    if not base.is_dir() and not os.environ.get("OPENCODE_DB"):
        return
    from learn.transcripts.opencode import database, project_storage, storage
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
    kept: dict[str, Path] = dict(in_db)  # then the JSON store's, for the stores before it
    for path in storage.sessions(base / "storage"):
        got = _stored(path, in_db, skips)
        if got is not None:
            kept.setdefault(path.stem, path)
            yield got
    roots: dict[str, str] | None = None
    for path in project_storage.sessions(base):
        if roots is None:  # a per-project store is here: its folders are matched
            roots = project_storage.project_roots(known)
        got = _stored(path, kept, skips, roots.get(path.parents[3].name))
        if got is not None:
            yield got


def _stored(path: Path, kept: dict[str, Path], skips: Skips,
            project: str | None = None) -> Candidate | None:
    """A session file of a JSON store, unless a newer store holds the session."""
    if path.stem in kept:
        skips.add("duplicate", path, "opencode", path.stem, str(kept[path.stem]))
        return None
    try:
        st = path.stat()
    except OSError as exc:
        skips.add("unreadable", path, "opencode", path.stem, exc.strerror or str(exc))
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return Candidate(path, "opencode", path.stem, st.st_mtime, st.st_size, project=project)
