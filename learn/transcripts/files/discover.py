"""Find the session transcripts on disk, newest first.

Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded-cwd>/<id>.jsonl`,
with subagent transcripts either beside it (`agent-*.jsonl`, older builds) or
under `<id>/subagents/agent-*.jsonl`. Codex: `<CODEX_HOME or ~/.codex>/sessions/
YYYY/MM/DD/rollout-*.jsonl`, and `archived_sessions/rollout-*.jsonl` once the
person archives a thread (still their words); either may be `.jsonl.zst`.
Gemini CLI: `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/session-*.json[l]`
(`gemini.places`); Copilot CLI: `<COPILOT_HOME or ~/.copilot>/session-state/<id>/
events.jsonl`; OpenCode: the sessions of its stores under `$XDG_DATA_HOME/opencode`
(`opencode.places`, and `opencode.project_storage` for the per-project store of its
first versions). A Gemini CLI session known only from `logs.json` (the builds before
chat recording, `gemini.logs`) is listed too. Their walks are `agent_listings`.

The project filter cannot trust the directory name: the encoding replaces every
non-alphanumeric with '-', so `/a/b-c` and `/a/b/c` share a directory, and a
symlinked checkout is recorded under whichever path the shell was in. So the
cwd is read from the head of each candidate file (a few KB, not the file:
`heads`; the directory walk is `listing`) and compared by realpath. Heads are read newest first and only until the limit is
met, so a `--limit 20` run over a 5,000-file history reads ~20 heads.

A session's id is what its client calls it: a Claude Code session is its file
name (`<id>.jsonl`; a resumed session's file opens with lines copied from the
session it resumed, which carry the *old* id: reading the id from the first line
listed a real 3.8 MB session as a "duplicate" of its parent and dropped it). A
Codex session is its `session_meta` id, else the uuid in its file name; a
Gemini CLI session its `sessionId`, a Copilot CLI session its folder, an OpenCode
session its id in the store.

Codex subagent rollouts (a review, a compaction, a spawned thread: see
`codex.meta.subagent_kind`) are not sessions of their own, like Claude Code's
`agent-*.jsonl`, and neither are Gemini CLI subagents (`chats/<parent>/<id>.jsonl`)
or OpenCode child sessions (`parent_id`): they attach to their parent when it is
listed, and are reported as skipped ("subagent") either way.

`--since` is decided by last activity, the newest timestamp in the file's tail,
not its mtime, which a copy, a sync or a restore resets.

Nothing here writes, and a directory or file that cannot be read is skipped and
recorded, never fatal: the history belongs to the user and is often pruned or
half-synced under us. Every file left out is listed in `Discovery.skipped_files`
with its reason, so nothing disappears silently.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Protocol

import msgspec

from learn.projects import (
    Hints,
    Known,
    is_path,
    key_within,
    named_folder,
    project_here,
    project_of,
)
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.files.agent_listings import (
    copilot_candidates,
    gemini_candidates,
    opencode_candidates,
    utf8_only,
)
from learn.transcripts.files.heads import Head, Provider, last_activity, read_head
from learn.transcripts.files.listing import (
    SkippedFile,
    Skips,
    claude_candidates,
    claude_projects_dir,
    claude_session_id,
    codex_candidates,
    codex_sessions_dir,
    old_layout_agents,
)
from learn.transcripts.files.other_projects import StoredHead, elsewhere
from learn.transcripts.files.sources import SourceStat
from learn.transcripts.gemini.places import gemini_dir
from learn.transcripts.opencode.places import data_dir as opencode_data_dir

__all__ = [
    "Discovery",
    "HeadReader",
    "SessionFile",
    "discover",
    "parse_since",
    "scan",
]


# An mtime this far before the cutoff decides "too old" without reading the
# tail: a file's last write is never before its last line's timestamp (both
# come from the same clock), so only a restored-from-archive time could be
# older, and zip archives store local times (hence a day of slack, not zero).
_MTIME_SLACK_SECONDS: Final = 86_400.0

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
    # The project the session belongs to: its repository (learn.projects.project_of),
    # one for every worktree, sub-folder and spelling of it.
    project_id: str | None = None
    # The file's identity as discovery stat'ed it (`sources.source_stat`), None when
    # it took none (a session held in a store): the session index compares this.
    stat: SourceStat | None = field(default=None, compare=False, repr=False)


class HeadReader(Protocol):
    """Where discovery gets a file's head and last activity, and what learn knows of
    the folders sessions ran in (learn.index.indexed.CachedHeads)."""

    def read_head(self, path: Path, provider: Provider,
                  stat: SourceStat | None = None) -> Head: ...

    def last_activity(self, path: Path) -> float | None: ...

    def projects(self) -> Known: ...

    def unchanged_head(self, path: str, st: os.stat_result) -> StoredHead | None:
        """The head known of `path` while the file is as `st` says, without reading
        it; None when none is known (`scan(quick=True)`)."""
        ...


class Discovery(msgspec.Struct, frozen=True):
    """What `scan` found, plus why the rest was left out (for "why nothing?")."""

    files: list[SessionFile]
    # reason -> count: "unreadable", "too_old", "other_project", "no_cwd",
    # "duplicate", "subagent" (a Codex, Gemini CLI or OpenCode subagent's file), and "over_limit"
    # (not examined: the limit was already met).
    skipped: Mapping[str, int] = msgspec.field(default_factory=dict)
    roots: tuple[Path, ...] = ()
    # The same, file by file.
    skipped_files: tuple[SkippedFile, ...] = ()
    # The project asked for (learn.projects.project_of of `--project` or the current
    # directory); None over every project.
    project: str | None = None


def with_unread(discovery: Discovery, unread: Sequence[tuple[SessionFile, str]]) -> Discovery:
    """`discovery` with the files listed but not read after all (gone by then, or a reader
    failed: `reading.read_row`) counted as "unreadable" skips, each with its detail; they
    stay in `files` (everything discovered, read or not), as an unreadable head leaves them."""
    if not unread:
        return discovery
    skips = Skips()
    for f, detail in unread:
        skips.add("unreadable", f.path, f.provider, f.session_id, detail)
    counts = dict(discovery.skipped)
    counts["unreadable"] = counts.get("unreadable", 0) + len(unread)
    return msgspec.structs.replace(discovery, skipped=counts,
                                   skipped_files=(*discovery.skipped_files, *skips.files))


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
    quick: bool = False,
) -> Discovery:
    """Like `discover`, and also says what was skipped and why.

    `project` defaults to the current directory; the sessions of its project
    count (learn.projects.project_of: the repository, with its worktrees and
    sub-folders, and anything under the folder named). `all_projects` drops the
    filter; each file's `project_id` says its project either way.
    `id_prefix` keeps only sessions whose id starts with it, decided from the
    file name (Claude: `<id>.jsonl`, Codex: `rollout-<ts>-<id>.jsonl`) before
    any file is opened, which is what makes `learn show <prefix>` cheap.
    `heads` reads heads and last activity (the session index keeps them, so
    an unchanged file is not opened); default: from the file.
    `quick` (with `heads` and a project): a file whose unchanged head places it
    in another project is left out as it is listed, before its candidate is built
    (its subagent folder looked up, its head read), and is neither counted nor
    listed in `skipped`. The files are the full scan's: each file left out is
    decided by the folders learn knew before the scan, so should a file read in
    the scan bring a folder new to them, the scan is done again without leaving
    any out. `learn show` reads the 41 sessions of one project in a home of 1,000
    this way: the full scan of every file (listed, stat'ed, its head looked up)
    was ~0.04 s of its 0.3 s (issue 32).
    """
    def once(fast: bool) -> Discovery:
        return _scan(project=project, all_projects=all_projects, since=since, limit=limit,
                     claude_dir=claude_dir, codex_dir=codex_dir, id_prefix=id_prefix,
                     heads=heads, quick=fast)

    if quick and heads is not None and not all_projects:
        try:
            return once(True)
        except _NewFolder:
            pass
    return once(False)


class _NewFolder(Exception):
    """A quick scan read a file of a folder new to what learn knew (see `scan`)."""


def _scan(
    *,
    project: Path | None,
    all_projects: bool,
    since: datetime | None,
    limit: int | None,
    claude_dir: Path | None,
    codex_dir: Path | None,
    id_prefix: str | None,
    heads: HeadReader | None,
    quick: bool,
    known: Known | None = None,
) -> Discovery:
    read_head_of = heads.read_head if heads is not None else read_head
    last_activity_of = heads.last_activity if heads is not None else last_activity
    again = known is not None
    if known is None:
        known = heads.projects() if heads is not None else Known()
    skips = Skips()
    projects_dir = claude_projects_dir(claude_dir)
    sessions_dir = codex_sessions_dir(codex_dir)
    archived_dir = sessions_dir.with_name("archived_sessions")
    asked = project if project is not None else Path.cwd()
    want: str | None = None
    named_key = ""
    if not all_projects:
        named = named_folder(project)
        known.add_root(named)
        want = project_here(named, known)
        named_key = known.key(named)
    drop = (elsewhere(heads.unchanged_head, known, want, named_key)
            if quick and heads is not None and want is not None else None)
    gemini_base, copilot_base, opencode_base = gemini_dir(), copilot_dir(), opencode_data_dir()
    candidates = [
        *claude_candidates(projects_dir, skips, id_prefix or "", drop),
        *codex_candidates(sessions_dir, skips, drop, id_prefix or ""),
        *codex_candidates(archived_dir, skips, drop, id_prefix or ""),
        # Claude's and Codex's walks check names as they list (before a stat).
        *utf8_only(gemini_candidates(gemini_base, skips, () if all_projects else (asked,)),
                   skips),
        *utf8_only(copilot_candidates(copilot_base, skips), skips),
        *utf8_only(opencode_candidates(opencode_base, skips,
                                       () if all_projects else (asked,)), skips),
    ]
    candidates.sort(key=lambda c: (-c.mtime, str(c.path)))

    cutoff = since.timestamp() if since is not None else None
    files: list[SessionFile] = []
    hints_of: dict[Path, Hints] = {}
    kept: dict[tuple[str, str], Path] = {}
    agents_by_dir: dict[Path, dict[str, tuple[Path, ...]]] = {}
    children: dict[tuple[str, str], list[Path]] = {}

    for cand in candidates:
        if id_prefix is not None and not _may_be(cand.session_id, id_prefix, cand.whole_id):
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
            head = (heads.read_head(cand.path, cand.provider, cand.stat) if heads is not None
                    else read_head(cand.path, cand.provider))
        except OSError as exc:
            skips.add("unreadable", cand.path, cand.provider, cand.session_id,
                      exc.strerror or str(exc))
            continue
        # Claude: the file name (see the module docstring), unless it is not an id
        # (a copy renamed by hand): then, as the session view says, its content's.
        # Codex: session_meta. `learn show` finds every id listed.
        by_name = cand.provider == "claude" and claude_session_id(cand.path) is not None
        session_id = cand.session_id if by_name else head.session_id or cand.session_id
        if id_prefix is not None and not session_id.startswith(id_prefix):
            continue
        if head.subagent is not None:
            # A Codex, Gemini or OpenCode subagent: its parent's, never a session of its own.
            skips.add("subagent", cand.path, cand.provider, session_id,
                      f"{head.subagent} of {head.parent_id or 'an unknown session'}")
            if head.parent_id:
                children.setdefault((cand.provider, head.parent_id), []).append(cand.path)
            continue
        # A Gemini CLI record names no cwd: its project folder does.
        cwd = head.cwd or cand.project
        hints = hints_of[cand.path] = Hints(head.branch, head.repository, head.commit)
        if drop is not None and not known.holds(cwd, hints):
            raise _NewFolder  # the files left out were decided without this folder
        known.add_folder(cwd, hints)
        project_id = project_of(cwd, known, hints)
        if want is not None:
            if cwd is None:
                skips.add("no_cwd", cand.path, cand.provider, session_id)
                continue
            # The project's sessions, and any held in the folder named (`--project ~/code`
            # reads every project below it).
            if project_id != want and not (is_path(cwd)
                                           and key_within(known.key(cwd), named_key)):
                skips.add("other_project", cand.path, cand.provider, session_id, cwd)
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
                agents_by_dir[directory] = old_layout_agents(directory, skips, read_head_of)
            subagents += agents_by_dir[directory].get(session_id, ())
        files.append(
            SessionFile(
                path=cand.path,
                provider=cand.provider,
                session_id=session_id,
                mtime=cand.mtime,
                size=cand.size,
                project=cwd,
                subagent_paths=tuple(sorted(set(subagents))),
                aside_paths=cand.aside_paths,
                last_activity=last,
                project_id=project_id,
                stat=cand.stat,
            )
        )
    if want is not None and not again and project_here(named, known) != want:
        # The folder named lies below one sessions ran in, in no checkout: its project
        # is that folder's (learn.projects), which only these heads told. Scanned again
        # knowing them, as the next listing would have from the index: a first listing
        # from `w/trunc/sub/dir` showed none of `w/trunc`'s sessions, the second all.
        return _scan(project=project, all_projects=all_projects, since=since, limit=limit,
                     claude_dir=claude_dir, codex_dir=codex_dir, id_prefix=id_prefix,
                     heads=heads, quick=False, known=known)
    if want is None:
        # Over every project, each is decided once every head is known: a folder
        # read after the one below it still holds it (learn.projects, rule 6).
        files = [f if (pid := project_of(f.project, known, hints_of[f.path])) == f.project_id
                 else replace(f, project_id=pid) for f in files]
    if children:
        files = [
            replace(f, subagent_paths=tuple(sorted(
                {*f.subagent_paths, *children[(f.provider, f.session_id)]})))
            if (f.provider, f.session_id) in children else f
            for f in files
        ]
    roots = (projects_dir, sessions_dir, gemini_base / "tmp", copilot_base / "session-state",
             opencode_base)
    return Discovery(files=files, skipped=dict(skips.counts),
                     roots=tuple(r for r in roots if r in (projects_dir, sessions_dir) or r.exists()),
                     skipped_files=tuple(skips.files), project=want)


def _may_be(listed: str, prefix: str, whole: bool) -> bool:
    """Whether a candidate's id from its name can be one `prefix` asks for (a name with
    part of the id is decided again once its head says the whole id)."""
    return listed.startswith(prefix) or (not whole and prefix.startswith(listed))


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
