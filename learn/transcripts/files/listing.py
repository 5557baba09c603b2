"""The directory walk: the session files under Claude Code's and Codex's folders, by name.

Gemini CLI, Copilot CLI and OpenCode are walked in `agent_listings`.

Nothing is opened here (the heads are `discover`'s business): a candidate is a
regular file whose name says it is a session, with its stat, its subagent and `/btw`
side-question files. A directory or file that cannot be read is recorded in
`Skips`, never fatal; so is one whose path is not UTF-8 (`is_utf8`). Anything else
named like a session (a directory, a FIFO: opening a FIFO hung every command) is
not a candidate.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, Literal

import msgspec

from learn.transcripts.files.compressed import ZST_SUFFIX
from learn.transcripts.files.heads import Head, Provider, read_head
from learn.transcripts.files.sources import SourceStat, stat_identity

ASIDE_PREFIX: Final = "agent-aside_question-"
_CODEX_UUID_RE: Final = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I
)
# A Claude Code session file name: a uuid (8-4-4-4-12).
_CLAUDE_NAME_RE: Final = re.compile(r"\A[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}\Z", re.I)

# The detail of an "unreadable" skip whose path is not UTF-8 (`is_utf8`).
NOT_UTF8: Final = "its path is not valid UTF-8"

SkipReason = Literal[
    "unreadable", "too_old", "other_project", "no_cwd", "duplicate", "over_limit", "subagent"
]


class SkippedFile(msgspec.Struct, frozen=True):
    """A file (or directory) discovery left out, and why."""

    # As it can be printed: the bytes of a name that is not UTF-8 escaped (`\\xff`).
    path: Path
    reason: str  # a SkipReason
    provider: Provider | None = None
    session_id: str | None = None
    # What the reason refers to: the kept file for "duplicate", the parent
    # session and agent kind for "subagent", the error for "unreadable".
    detail: str | None = None


class Skips:
    """What discovery left out: counts and lists what is left out; one call per file keeps both in step."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.files: list[SkippedFile] = []

    def add(self, reason: SkipReason, path: Path, provider: Provider | None = None,
            session_id: str | None = None, detail: str | None = None) -> None:
        if reason == "unreadable":
            # The one reason given to a path not listed as a candidate, so not checked
            # (`is_utf8`): `learn sessions --json` prints it, and a strict UTF-8
            # stdout refuses a surrogate escape. Others are skipped candidates'.
            path = printable(path)
        self.counts[reason] += 1
        self.files.append(SkippedFile(path, reason, provider, session_id, detail))

    def not_utf8(self, path: Path, provider: Provider) -> None:
        """A file whose path is not UTF-8 (`is_utf8`), left out."""
        self.add("unreadable", path, provider, detail=NOT_UTF8)


def printable(path: Path) -> Path:
    """`path`, its bytes that are not UTF-8 shown as `\\xff` escapes (as is when UTF-8)."""
    text = str(path)
    if is_utf8(text):
        return path
    return Path(os.fsencode(text).decode("utf-8", "backslashreplace"))


def is_utf8(text: str) -> bool:
    """Whether a path (or name) from the file system is valid UTF-8.

    Python gives other bytes (a `\\xff` in a file name) as surrogate escapes,
    which cannot be encoded again: storing such a path in the session index
    crashed `learn sessions` with a UnicodeEncodeError, so the file is skipped
    instead. ASCII, nearly every name, is decided without encoding.
    """
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def codex_name_id(path: Path) -> str | None:
    """The uuid a Codex rollout's file name ends with (`rollout-<ts>-<uuid>.jsonl[.zst]`)."""
    return _name_uuid(path.name)


def _name_uuid(name: str) -> str | None:
    match = _CODEX_UUID_RE.search(name.split(".jsonl")[0])
    return match.group(1) if match else None


def _codex_id(name: str) -> str:
    """A rollout's id by its file name: the uuid it ends with, else the name."""
    return _name_uuid(name) or name[: name.index(".jsonl")]


def claude_session_id(path: Path) -> str | None:
    """The id a Claude Code session file's name gives it (`<uuid>.jsonl`), else None."""
    name = path.name
    if not name.endswith(".jsonl"):
        return None
    stem = name[: -len(".jsonl")]
    return stem if _CLAUDE_NAME_RE.match(stem) else None


def claude_projects_dir(claude_dir: Path | None = None) -> Path:
    if claude_dir is None:
        value = os.environ.get("CLAUDE_CONFIG_DIR")
        claude_dir = Path(value).expanduser() if value else Path.home() / ".claude"
    return claude_dir / "projects"


def codex_sessions_dir(codex_dir: Path | None = None) -> Path:
    if codex_dir is None:
        value = os.environ.get("CODEX_HOME")
        codex_dir = Path(value).expanduser() if value else Path.home() / ".codex"
    return codex_dir / "sessions"


class Candidate(msgspec.Struct, frozen=True):
    """A session file found by name, not yet opened."""

    path: Path
    provider: Provider
    session_id: str
    mtime: float
    size: int
    subagent_paths: tuple[Path, ...] = ()
    aside_paths: tuple[Path, ...] = ()
    # The session's cwd when its place says it and its records do not (a Gemini
    # CLI project folder), read by discovery when the head has none.
    project: str | None = None
    # False when the name holds only part of the id (a Gemini CLI file names the
    # first 8 characters): `learn show <prefix>` then decides after the head.
    whole_id: bool = True
    # The stat the listing took, kept as the file's identity (`sources.source_stat`):
    # the session index compares it without a stat of its own (15 us a file, twice).
    stat: SourceStat | None = None


def _scandir(path: Path, skips: Skips) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except FileNotFoundError:
        return []
    except OSError as exc:
        skips.add("unreadable", path, detail=exc.strerror or str(exc))
        return []


def _is_session_name(name: str) -> bool:
    # `._*` are macOS resource forks copied onto other filesystems.
    return name.endswith(".jsonl") and not name.startswith(("._", "agent-"))


# A test a listing puts to each file it stat'ed (its path and stat) before it builds
# the candidate: True leaves the file out, uncounted (`discover.scan(quick=True)`).
Drop = Callable[[str, os.stat_result], bool]


def claude_candidates(projects_dir: Path, skips: Skips, id_prefix: str = "",
                      drop: Drop | None = None) -> Iterator[Candidate]:
    for project_entry in _scandir(projects_dir, skips):
        if not _is_dir(project_entry):
            continue
        folder = Path(project_entry.path)
        # Once a folder (with the root above it): each name below is checked alone.
        folder_utf8 = is_utf8(project_entry.path)
        entries = _scandir(folder, skips)
        # A session's subagents live in `<id>/subagents/`: only a name in this listing
        # can be that directory, so the others are not stat'ed (one failed stat per
        # session was a fifth of discovery; casefolded for case-blind file systems).
        names = {e.name.casefold() for e in entries}
        for entry in entries:
            # The id is the file name: `learn show <prefix>` stats only the files it names.
            if not _is_session_name(entry.name) or not entry.name.startswith(id_prefix):
                continue
            if not (folder_utf8 and is_utf8(entry.name)):
                skips.not_utf8(Path(entry.path), "claude")
                continue
            stem = entry.name[: -len(".jsonl")]
            try:
                st = entry.stat()
            except OSError as exc:
                skips.add("unreadable", Path(entry.path), "claude", stem, exc.strerror or str(exc))
                continue
            if not _stat_is_file(st) or (drop is not None and drop(entry.path, st)):
                continue
            agents = (_subagents(folder / stem / "subagents", skips)
                      if stem.casefold() in names else ())
            subagents = tuple(p for p in agents if not is_aside_name(p.name))
            asides = tuple(p for p in agents if is_aside_name(p.name))
            # Joined, not parsed again from the whole string: half the cost a file.
            yield Candidate(folder / entry.name, "claude", stem, st.st_mtime, st.st_size,
                            subagents, asides, stat=stat_identity(st))


def _subagents(directory: Path, skips: Skips) -> tuple[Path, ...]:
    if not directory.is_dir():
        return ()
    return tuple(sorted(Path(e.path) for e in _scandir(directory, skips)
                        if _is_agent_file(e, skips)))


def _is_agent_file(entry: os.DirEntry[str], skips: Skips) -> bool:
    """A subagent's (or side question's) file: named `agent-*.jsonl`, regular, with a
    UTF-8 name (the folder's was checked with its session's)."""
    name = entry.name
    if not (name.startswith("agent-") and name.endswith(".jsonl")):
        return False
    if not is_utf8(name):
        skips.not_utf8(Path(entry.path), "claude")
        return False
    return _is_file(entry)


def is_aside_name(name: str) -> bool:
    """`agent-aside_question-<hex>.jsonl`: a `/btw` side question, not a subagent."""
    return name.startswith(ASIDE_PREFIX) and name.endswith(".jsonl")


def aside_paths_for(session_path: Path) -> tuple[Path, ...]:
    """The side-question files of the Claude session at `session_path` (`<id>/subagents/`)."""
    directory = session_path.parent / session_path.stem / "subagents"
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return ()
    return tuple(directory / n for n in names if is_aside_name(n) and is_utf8(n))


def old_layout_agents(
    directory: Path, skips: Skips, read_head_of: Callable[[Path, Provider], Head] = read_head
) -> dict[str, tuple[Path, ...]]:
    """Older builds wrote `agent-*.jsonl` beside the parent; its sessionId names the parent.

    Read per project directory, and only for directories a selected session
    lives in: the old layout left hundreds of these per busy project.
    """
    found: dict[str, list[Path]] = {}
    # A session of this folder was listed, so the folder's path is UTF-8.
    for entry in _scandir(directory, skips):
        if not _is_agent_file(entry, skips):
            continue
        try:
            head = read_head_of(Path(entry.path), "claude")
        except OSError as exc:
            skips.add("unreadable", Path(entry.path), "claude", detail=exc.strerror or str(exc))
            continue
        if head.session_id:
            found.setdefault(head.session_id, []).append(Path(entry.path))
    return {k: tuple(v) for k, v in found.items()}


def _is_rollout_name(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl" + ZST_SUFFIX))


def codex_candidates(sessions_dir: Path, skips: Skips, drop: Drop | None = None,
                     id_prefix: str = "") -> Iterator[Candidate]:
    if not sessions_dir.is_dir():
        return

    def unreadable(err: OSError) -> None:
        skips.add("unreadable", Path(err.filename or sessions_dir), "codex",
                  detail=err.strerror or str(err))

    for dirpath, dirnames, filenames in os.walk(sessions_dir, onerror=unreadable):
        dirnames.sort()
        dir_utf8 = is_utf8(dirpath)  # once a folder, with the root above it
        for name in sorted(filenames):
            if not _is_rollout_name(name):
                continue
            session_id = _codex_id(name)
            # `learn show <prefix>`: the name's id is the one the scan tests first.
            if not session_id.startswith(id_prefix):
                continue
            if not (dir_utf8 and is_utf8(name)):
                skips.not_utf8(Path(dirpath, name), "codex")
                continue
            full = os.path.join(dirpath, name)
            try:
                st = os.stat(full)
            except OSError as exc:
                skips.add("unreadable", Path(full), "codex", session_id, exc.strerror or str(exc))
                continue
            # A FIFO named like a rollout would hang its head's read: the stat at hand
            # says it, as for Claude's files.
            if not _stat_is_file(st) or (drop is not None and drop(full, st)):
                continue
            path = Path(full)
            yield Candidate(path, "codex", session_id, st.st_mtime, st.st_size,
                            stat=stat_identity(st))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file (through a symlink): the listing's file type, stat'ed only for a
    symlink or where the file system gives no type."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _stat_is_file(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)
