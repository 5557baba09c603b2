"""Find the session transcripts on disk, newest first.

Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded-cwd>/<id>.jsonl`,
with subagent transcripts either beside it (`agent-*.jsonl`, older builds) or
under `<id>/subagents/agent-*.jsonl`. Codex: `<CODEX_HOME or ~/.codex>/sessions/
YYYY/MM/DD/rollout-*.jsonl`, and `archived_sessions/rollout-*.jsonl` once the
person archives a thread (still their words); either may be `.jsonl.zst`.

The project filter cannot trust the directory name: the encoding replaces every
non-alphanumeric with '-', so `/a/b-c` and `/a/b/c` share a directory, and a
symlinked checkout is recorded under whichever path the shell was in. So the
cwd is read from the head of each candidate file (a few KB, not the file:
`heads.py`) and compared by realpath. Heads are read newest first and only until the limit is
met, so a `--limit 20` run over a 5,000-file history reads ~20 heads.

A session's id is what its client calls it: a Claude Code session is its file
name (`<id>.jsonl`; a resumed session's file opens with lines copied from the
session it resumed, which carry the *old* id: reading the id from the first line
listed a real 3.8 MB session as a "duplicate" of its parent and dropped it). A
Codex session is its `session_meta` id, else the uuid in its file name.

Codex subagent rollouts (a review, a compaction, a spawned thread: see
`codex_meta.subagent_kind`) are not sessions of their own, like Claude Code's
`agent-*.jsonl`: they attach to their parent when it is listed, and are reported
as skipped ("subagent") either way.

`--since` is decided by last activity, the newest timestamp in the file's tail,
not its mtime, which a copy, a sync or a restore resets.

Nothing here writes, and a directory or file that cannot be read is skipped and
recorded, never fatal: the history belongs to the user and is often pruned or
half-synced under us. Every file left out is listed in `Discovery.skipped_files`
with its reason, so nothing disappears silently.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Literal, Protocol

from learn.transcripts.files.compressed import ZST_SUFFIX
from learn.transcripts.files.heads import Head, Provider, last_activity, read_head
from learn.transcripts.files.projectpath import key_within, project_key

__all__ = [
    "Discovery",
    "Head",
    "Provider",
    "SessionFile",
    "SkippedFile",
    "aside_paths_for",
    "claude_projects_dir",
    "claude_session_id",
    "codex_name_id",
    "codex_sessions_dir",
    "discover",
    "in_project",
    "is_aside_name",
    "last_activity",
    "parse_since",
    "read_head",
    "scan",
]


ASIDE_PREFIX: Final = "agent-aside_question-"
_CODEX_UUID_RE: Final = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I
)
# A Claude Code session file name: a uuid (8-4-4-4-12).
_CLAUDE_NAME_RE: Final = re.compile(r"\A[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}\Z", re.I)
# An mtime this far before the cutoff decides "too old" without reading the
# tail: a file's last write is never before its last line's timestamp (both
# come from the same clock), so only a restored-from-archive time could be
# older, and zip archives store local times (hence a day of slack, not zero).
_MTIME_SLACK_SECONDS: Final = 86_400.0

SkipReason = Literal[
    "unreadable", "too_old", "other_project", "no_cwd", "duplicate", "over_limit", "subagent"
]


@dataclass(frozen=True, slots=True)
class SessionFile:
    path: Path
    provider: Provider
    session_id: str
    mtime: float
    size: int
    project: str | None  # the cwd read from the head, when it was read
    subagent_paths: tuple[Path, ...] = ()
    # `/btw` side questions (`agent-aside_question-*.jsonl`): typed turns of this
    # session, not a subagent's.
    aside_paths: tuple[Path, ...] = ()
    # Epoch seconds of the newest timestamp in the file's tail, when it was read
    # (only `--since` needs it).
    last_activity: float | None = None


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file (or directory) discovery left out, and why."""

    path: Path
    reason: str  # a SkipReason
    provider: Provider | None = None
    session_id: str | None = None
    # What the reason refers to: the kept file for "duplicate", the parent
    # session and agent kind for "subagent", the error for "unreadable".
    detail: str | None = None


class HeadReader(Protocol):
    """Where discovery gets a file's head and last activity (learn.transcripts.index.indexed.CachedHeads)."""

    def read_head(self, path: Path, provider: Provider) -> Head: ...

    def last_activity(self, path: Path) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Discovery:
    """What `scan` found, plus why the rest was left out (for "why nothing?")."""

    files: list[SessionFile]
    # reason -> count: "unreadable", "too_old", "other_project", "no_cwd",
    # "duplicate", "subagent" (a Codex subagent rollout), and "over_limit"
    # (not examined: the limit was already met).
    skipped: Mapping[str, int] = field(default_factory=dict)
    roots: tuple[Path, ...] = ()
    # The same, file by file.
    skipped_files: tuple[SkippedFile, ...] = ()


class _Skips:
    """Counts and lists what is left out; one call per file keeps both in step."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.files: list[SkippedFile] = []

    def add(self, reason: SkipReason, path: Path, provider: Provider | None = None,
            session_id: str | None = None, detail: str | None = None) -> None:
        self.counts[reason] += 1
        self.files.append(SkippedFile(path, reason, provider, session_id, detail))


def codex_name_id(path: Path) -> str | None:
    """The uuid a Codex rollout's file name ends with (`rollout-<ts>-<uuid>.jsonl[.zst]`)."""
    match = _CODEX_UUID_RE.search(path.name.split(".jsonl")[0])
    return match.group(1) if match else None


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


def discover(
    *,
    project: Path | None = None,
    all_projects: bool = False,
    since: datetime | None = None,
    limit: int | None = None,
    claude_dir: Path | None = None,
    codex_dir: Path | None = None,
) -> list[SessionFile]:
    """Session files in scope, newest first (by mtime). See `scan` for skip counts."""
    return scan(
        project=project,
        all_projects=all_projects,
        since=since,
        limit=limit,
        claude_dir=claude_dir,
        codex_dir=codex_dir,
    ).files


def scan(
    *,
    project: Path | None = None,
    all_projects: bool = False,
    since: datetime | None = None,
    limit: int | None = None,
    claude_dir: Path | None = None,
    codex_dir: Path | None = None,
    id_prefix: str | None = None,
    heads: HeadReader | None = None,
) -> Discovery:
    """Like `discover`, and also says what was skipped and why.

    `project` defaults to the current directory; sessions whose cwd is the
    project or anything under it count. `all_projects` drops the filter.
    `id_prefix` keeps only sessions whose id starts with it, decided from the
    file name (Claude: `<id>.jsonl`, Codex: `rollout-<ts>-<id>.jsonl`) before
    any file is opened, which is what makes `learn show <prefix>` cheap.
    `heads` reads heads and last activity (the session index keeps them, so
    an unchanged file is not opened); default: from the file.
    """
    read_head_of = heads.read_head if heads is not None else read_head
    last_activity_of = heads.last_activity if heads is not None else last_activity
    skips = _Skips()
    projects_dir = claude_projects_dir(claude_dir)
    sessions_dir = codex_sessions_dir(codex_dir)
    archived_dir = sessions_dir.with_name("archived_sessions")
    candidates = [
        *_claude_candidates(projects_dir, skips, id_prefix or ""),
        *_codex_candidates(sessions_dir, skips),
        *_codex_candidates(archived_dir, skips),
    ]
    candidates.sort(key=lambda c: (-c.mtime, str(c.path)))

    cutoff = since.timestamp() if since is not None else None
    want = None if all_projects else _real(project if project is not None else Path.cwd())
    files: list[SessionFile] = []
    kept: dict[tuple[str, str], Path] = {}
    agents_by_dir: dict[Path, dict[str, tuple[Path, ...]]] = {}
    codex_children: dict[str, list[Path]] = {}

    for cand in candidates:
        if id_prefix is not None and not cand.session_id.startswith(id_prefix):
            continue
        last: float | None = None
        if cutoff is not None:
            if cand.mtime < cutoff - _MTIME_SLACK_SECONDS:
                skips.add("too_old", cand.path, cand.provider, cand.session_id)
                continue
            last = last_activity_of(cand.path)
            if (last if last is not None else cand.mtime) < cutoff:
                skips.add("too_old", cand.path, cand.provider, cand.session_id)
                continue
        if limit is not None and len(files) >= limit:
            skips.add("over_limit", cand.path, cand.provider, cand.session_id)
            continue
        try:
            head = read_head_of(cand.path, cand.provider)
        except OSError as exc:
            skips.add("unreadable", cand.path, cand.provider, cand.session_id,
                      exc.strerror or str(exc))
            continue
        # Claude: the file name (see the module docstring). Codex: session_meta.
        session_id = (
            cand.session_id if cand.provider == "claude" else head.session_id or cand.session_id
        )
        if head.subagent is not None:
            # A Codex subagent rollout: its parent's, never a session of its own.
            skips.add("subagent", cand.path, cand.provider, session_id,
                      f"{head.subagent} of {head.parent_id or 'an unknown session'}")
            if head.parent_id:
                codex_children.setdefault(head.parent_id, []).append(cand.path)
            continue
        if want is not None:
            if head.cwd is None:
                skips.add("no_cwd", cand.path, cand.provider, session_id)
                continue
            if not _within(_real_cached(head.cwd), want):
                skips.add("other_project", cand.path, cand.provider, session_id, head.cwd)
                continue
        key = (cand.provider, session_id)
        if key in kept:
            # The same session under two directories (a moved checkout): keep the newest.
            skips.add("duplicate", cand.path, cand.provider, session_id, str(kept[key]))
            continue
        kept[key] = cand.path
        subagents = cand.subagent_paths
        if cand.provider == "claude":
            directory = cand.path.parent
            if directory not in agents_by_dir:
                agents_by_dir[directory] = _old_layout_agents(directory, skips, read_head_of)
            subagents += agents_by_dir[directory].get(session_id, ())
        files.append(
            SessionFile(
                path=cand.path,
                provider=cand.provider,
                session_id=session_id,
                mtime=cand.mtime,
                size=cand.size,
                project=head.cwd,
                subagent_paths=tuple(sorted(set(subagents))),
                aside_paths=cand.aside_paths,
                last_activity=last,
            )
        )
    if codex_children:
        files = [
            replace(f, subagent_paths=tuple(sorted({*f.subagent_paths, *codex_children[f.session_id]})))
            if f.provider == "codex" and f.session_id in codex_children else f
            for f in files
        ]
    return Discovery(files=files, skipped=dict(skips.counts), roots=(projects_dir, sessions_dir),
                     skipped_files=tuple(skips.files))


# ---------------------------------------------------------------- listing


@dataclass(frozen=True, slots=True)
class _Candidate:
    path: Path
    provider: Provider
    session_id: str
    mtime: float
    size: int
    subagent_paths: tuple[Path, ...] = ()
    aside_paths: tuple[Path, ...] = ()


def _scandir(path: Path, skips: _Skips) -> list[os.DirEntry[str]]:
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


def _claude_candidates(projects_dir: Path, skips: _Skips, id_prefix: str = "") -> Iterator[_Candidate]:
    for project_entry in _scandir(projects_dir, skips):
        if not _is_dir(project_entry):
            continue
        for entry in _scandir(Path(project_entry.path), skips):
            # The id is the file name: `learn show <prefix>` stats only the files it names.
            if not _is_session_name(entry.name) or not entry.name.startswith(id_prefix):
                continue
            stem = entry.name[: -len(".jsonl")]
            try:
                st = entry.stat()
            except OSError as exc:
                skips.add("unreadable", Path(entry.path), "claude", stem, exc.strerror or str(exc))
                continue
            if not _stat_is_file(st):
                continue
            agents = _subagents(Path(project_entry.path) / stem / "subagents", skips)
            subagents = tuple(p for p in agents if not is_aside_name(p.name))
            asides = tuple(p for p in agents if is_aside_name(p.name))
            yield _Candidate(Path(entry.path), "claude", stem, st.st_mtime, st.st_size, subagents,
                             asides)


def _subagents(directory: Path, skips: _Skips) -> tuple[Path, ...]:
    if not directory.is_dir():
        return ()
    return tuple(
        sorted(
            Path(e.path)
            for e in _scandir(directory, skips)
            if e.name.startswith("agent-") and e.name.endswith(".jsonl")
        )
    )


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
    return tuple(directory / n for n in names if is_aside_name(n))


def _old_layout_agents(
    directory: Path, skips: _Skips, read_head_of: Callable[[Path, Provider], Head] = read_head
) -> dict[str, tuple[Path, ...]]:
    """Older builds wrote `agent-*.jsonl` beside the parent; its sessionId names the parent.

    Read per project directory, and only for directories a selected session
    lives in: the old layout left hundreds of these per busy project.
    """
    found: dict[str, list[Path]] = {}
    for entry in _scandir(directory, skips):
        name = entry.name
        if not (name.startswith("agent-") and name.endswith(".jsonl")):
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


def _codex_candidates(sessions_dir: Path, skips: _Skips) -> Iterator[_Candidate]:
    if not sessions_dir.is_dir():
        return

    def unreadable(err: OSError) -> None:
        skips.add("unreadable", Path(err.filename or sessions_dir), "codex",
                  detail=err.strerror or str(err))

    for dirpath, dirnames, filenames in os.walk(sessions_dir, onerror=unreadable):
        dirnames.sort()
        for name in sorted(filenames):
            if not _is_rollout_name(name):
                continue
            path = Path(dirpath) / name
            session_id = codex_name_id(path) or name[: name.index(".jsonl")]
            try:
                st = path.stat()
            except OSError as exc:
                skips.add("unreadable", path, "codex", session_id, exc.strerror or str(exc))
                continue
            yield _Candidate(path, "codex", session_id, st.st_mtime, st.st_size)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _stat_is_file(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)


# ---------------------------------------------------------------- paths


def _real(path: Path) -> str:
    """The project key of `path` (learn.transcripts.files.projectpath: by its own file system's rules)."""
    return project_key(path)


@functools.lru_cache(maxsize=4096)
def _real_cached(cwd: str) -> str:
    # Most sessions of a project share one cwd; realpath walks every component.
    return _real(Path(cwd))


def _within(path: str, root: str) -> bool:
    return key_within(path, root)


def in_project(cwd: str | None, project: Path) -> bool:
    """True when `cwd` is `project` or a directory under it (symlinks resolved)."""
    return cwd is not None and _within(_real(Path(cwd)), _real(project))


# ---------------------------------------------------------------- --since


_RELATIVE_RE: Final = re.compile(r"\A\s*(\d+)\s*([hdw])\s*\Z", re.I)
_UNITS: Final = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def parse_since(value: str, *, now: datetime | None = None) -> datetime:
    """`30d`, `12h`, `2w` (relative to now) or an ISO date/datetime -> an aware datetime.

    A bare date means local midnight: "since November 1st" as the user sees it.
    """
    text = value.strip()
    match = _RELATIVE_RE.match(text)
    if match:
        current = now if now is not None else datetime.now(UTC)
        return current - int(match.group(1)) * _UNITS[match.group(2).lower()]
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"cannot read --since {value!r}: use a span like 30d, 12h or 2w, "
            "or a date like 2026-11-01"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # interpret as local time
    return parsed
