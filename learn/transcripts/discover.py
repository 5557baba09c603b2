"""Find the session transcripts on disk, newest first.

Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded-cwd>/<id>.jsonl`,
with subagent transcripts either beside it (`agent-*.jsonl`, older builds) or
under `<id>/subagents/agent-*.jsonl`. Codex: `<CODEX_HOME or ~/.codex>/sessions/
YYYY/MM/DD/rollout-*.jsonl`.

The project filter cannot trust the directory name: the encoding replaces every
non-alphanumeric with '-', so `/a/b-c` and `/a/b/c` share a directory, and a
symlinked checkout is recorded under whichever path the shell was in. So the
cwd is read from the head of each candidate file (a few KB, not the file) and
compared by realpath. Heads are read newest first and only until the limit is
met, so a `--limit 20` run over a 5,000-file history reads ~20 heads.

Nothing here writes, and a directory or file that cannot be read is skipped and
counted, never fatal: the history belongs to the user and is often pruned or
half-synced under us.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Literal

import msgspec

Provider = Literal["claude", "codex"]

# The cwd is on the first user/system line of a Claude transcript and on the
# session_meta line of a Codex rollout; both sit in the first few lines. A first
# prompt with a huge paste can push past this, which the regex fallback covers.
_HEAD_BYTES: Final = 64 * 1024
_HEAD_MAX_BYTES: Final = 1024 * 1024
_CWD_RE: Final = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
_SESSION_ID_RE: Final = re.compile(rb'"sessionId"\s*:\s*("(?:[^"\\]|\\.)*")')
ASIDE_PREFIX: Final = "agent-aside_question-"
_CODEX_UUID_RE: Final = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I
)


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


@dataclass(frozen=True, slots=True)
class Discovery:
    """What `scan` found, plus why the rest was left out (for "why nothing?")."""

    files: list[SessionFile]
    # reason -> count: "unreadable", "too_old", "other_project", "no_cwd",
    # "duplicate", and "over_limit" (not examined: the limit was already met).
    skipped: Mapping[str, int] = field(default_factory=dict)
    roots: tuple[Path, ...] = ()


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
) -> Discovery:
    """Like `discover`, and also says what was skipped and why.

    `project` defaults to the current directory; sessions whose cwd is the
    project or anything under it count. `all_projects` drops the filter.
    `id_prefix` keeps only sessions whose id starts with it, decided from the
    file name (Claude: `<id>.jsonl`, Codex: `rollout-<ts>-<id>.jsonl`) before
    any file is opened, which is what makes `learn show <prefix>` cheap.
    """
    skipped: Counter[str] = Counter()
    projects_dir = claude_projects_dir(claude_dir)
    sessions_dir = codex_sessions_dir(codex_dir)
    candidates = [*_claude_candidates(projects_dir, skipped), *_codex_candidates(sessions_dir, skipped)]
    candidates.sort(key=lambda c: (-c.mtime, str(c.path)))

    cutoff = since.timestamp() if since is not None else None
    want = None if all_projects else _real(project if project is not None else Path.cwd())
    files: list[SessionFile] = []
    seen: set[tuple[str, str]] = set()
    agents_by_dir: dict[Path, dict[str, tuple[Path, ...]]] = {}

    for cand in candidates:
        if id_prefix is not None and not cand.session_id.startswith(id_prefix):
            continue
        if cutoff is not None and cand.mtime < cutoff:
            skipped["too_old"] += 1
            continue
        if limit is not None and len(files) >= limit:
            skipped["over_limit"] += 1
            continue
        try:
            head = read_head(cand.path, cand.provider)
        except OSError:
            skipped["unreadable"] += 1
            continue
        if want is not None:
            if head.cwd is None:
                skipped["no_cwd"] += 1
                continue
            if not _within(_real_cached(head.cwd), want):
                skipped["other_project"] += 1
                continue
        session_id = head.session_id or cand.session_id
        key = (cand.provider, session_id)
        if key in seen:
            # The same session under two directories (a moved checkout): keep the newest.
            skipped["duplicate"] += 1
            continue
        seen.add(key)
        subagents = cand.subagent_paths
        if cand.provider == "claude":
            directory = cand.path.parent
            if directory not in agents_by_dir:
                agents_by_dir[directory] = _old_layout_agents(directory, skipped)
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
            )
        )
    return Discovery(files=files, skipped=dict(skipped), roots=(projects_dir, sessions_dir))


# ---------------------------------------------------------------- heads


@dataclass(frozen=True, slots=True)
class Head:
    cwd: str | None
    session_id: str | None


def read_head(path: Path, provider: Provider) -> Head:
    """The cwd (and session id) from the first lines of a transcript. Raises OSError."""
    with path.open("rb") as fh:
        data = fh.read(_HEAD_BYTES)
        cwd, session_id, complete = _scan_lines(data, provider)
        # Keep reading while the only thing we have is an unfinished giant line.
        while cwd is None and not complete and len(data) < _HEAD_MAX_BYTES:
            more = fh.read(_HEAD_BYTES)
            if not more:
                break
            data += more
            cwd, session_id, complete = _scan_lines(data, provider)
    if cwd is None:
        # Last resort on a truncated line: the envelope's "cwd" key appears
        # unescaped only at object level, never inside a string value.
        match = _CWD_RE.search(data)
        if match:
            cwd = _json_str(match.group(1))
    if session_id is None and provider == "claude":
        match = _SESSION_ID_RE.search(data)
        if match:
            session_id = _json_str(match.group(1))
    return Head(cwd=cwd, session_id=session_id)


def _scan_lines(data: bytes, provider: Provider) -> tuple[str | None, str | None, bool]:
    """(cwd, session_id, done): done means stop reading (found, or the head ran out of lines)."""
    lines = data.split(b"\n")
    tail_partial = not data.endswith(b"\n")
    complete_lines = lines[:-1] if tail_partial else lines
    session_id: str | None = None
    for raw in complete_lines[:200]:
        if not raw.strip():
            continue
        try:
            obj = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        if provider == "codex":
            payload = obj.get("payload")
            if isinstance(payload, dict):
                if obj.get("type") == "session_meta":
                    sid = payload.get("id") or payload.get("session_id")
                    if isinstance(sid, str):
                        session_id = sid
                cwd = payload.get("cwd")
                if isinstance(cwd, str) and cwd:
                    return cwd, session_id, True
        else:
            sid = obj.get("sessionId")
            if session_id is None and isinstance(sid, str) and sid:
                session_id = sid
            cwd = obj.get("cwd")
            if isinstance(cwd, str) and cwd:
                return cwd, session_id, True
    return None, session_id, not tail_partial or len(complete_lines) >= 200


def _json_str(literal: bytes) -> str | None:
    try:
        value = msgspec.json.decode(literal)
    except msgspec.DecodeError:
        return None
    return value if isinstance(value, str) and value else None


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


def _scandir(path: Path, skipped: Counter[str]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except FileNotFoundError:
        return []
    except OSError:
        skipped["unreadable"] += 1
        return []


def _is_session_name(name: str) -> bool:
    # `._*` are macOS resource forks copied onto other filesystems.
    return name.endswith(".jsonl") and not name.startswith(("._", "agent-"))


def _claude_candidates(projects_dir: Path, skipped: Counter[str]) -> Iterator[_Candidate]:
    for project_entry in _scandir(projects_dir, skipped):
        if not _is_dir(project_entry):
            continue
        for entry in _scandir(Path(project_entry.path), skipped):
            if not _is_session_name(entry.name):
                continue
            try:
                st = entry.stat()
            except OSError:
                skipped["unreadable"] += 1
                continue
            if not _stat_is_file(st):
                continue
            stem = entry.name[: -len(".jsonl")]
            agents = _subagents(Path(project_entry.path) / stem / "subagents", skipped)
            subagents = tuple(p for p in agents if not is_aside_name(p.name))
            asides = tuple(p for p in agents if is_aside_name(p.name))
            yield _Candidate(Path(entry.path), "claude", stem, st.st_mtime, st.st_size, subagents,
                             asides)


def _subagents(directory: Path, skipped: Counter[str]) -> tuple[Path, ...]:
    if not directory.is_dir():
        return ()
    return tuple(
        sorted(
            Path(e.path)
            for e in _scandir(directory, skipped)
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


def _old_layout_agents(directory: Path, skipped: Counter[str]) -> dict[str, tuple[Path, ...]]:
    """Older builds wrote `agent-*.jsonl` beside the parent; its sessionId names the parent.

    Read per project directory, and only for directories a selected session
    lives in: the old layout left hundreds of these per busy project.
    """
    found: dict[str, list[Path]] = {}
    for entry in _scandir(directory, skipped):
        name = entry.name
        if not (name.startswith("agent-") and name.endswith(".jsonl")):
            continue
        try:
            head = read_head(Path(entry.path), "claude")
        except OSError:
            skipped["unreadable"] += 1
            continue
        if head.session_id:
            found.setdefault(head.session_id, []).append(Path(entry.path))
    return {k: tuple(v) for k, v in found.items()}


def _codex_candidates(sessions_dir: Path, skipped: Counter[str]) -> Iterator[_Candidate]:
    if not sessions_dir.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(
        sessions_dir, onerror=lambda _err: skipped.update(["unreadable"])
    ):
        dirnames.sort()
        for name in sorted(filenames):
            if not (name.startswith("rollout-") and name.endswith(".jsonl")):
                continue
            path = Path(dirpath) / name
            try:
                st = path.stat()
            except OSError:
                skipped["unreadable"] += 1
                continue
            stem = name[: -len(".jsonl")]
            match = _CODEX_UUID_RE.search(stem)
            yield _Candidate(path, "codex", match.group(1) if match else stem, st.st_mtime, st.st_size)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _stat_is_file(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode)


# ---------------------------------------------------------------- paths


def _real(path: Path) -> str:
    """realpath, without trailing separators; case-folded where the filesystem folds case."""
    real = os.path.realpath(os.path.expanduser(str(path)))
    if sys.platform in ("darwin", "win32"):
        real = real.casefold()
    return real.rstrip(os.sep) or os.sep


@functools.lru_cache(maxsize=4096)
def _real_cached(cwd: str) -> str:
    # Most sessions of a project share one cwd; realpath walks every component.
    return _real(Path(cwd))


def _within(path: str, root: str) -> bool:
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


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
