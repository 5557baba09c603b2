"""Stage 1, read: discover the session files, parse them into views, run the
detectors, and cut what programs wrote (repeated prompts, templates) from what
the person said. Through the session index: an unchanged file is not opened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learn.pipeline.types import Clock, Progress, RunOptions, Trace
from learn.records.candidate import MinedCandidate
from learn.textfold import fold, occurring

if TYPE_CHECKING:
    from learn.config import Config
    from learn.store.session_index import IndexRow, SessionIndex
    from learn.transcripts.files.discover import Discovery, SessionFile
    from learn.transcripts.templates.keys import Keys
    from learn.transcripts.view.model import Session


@dataclass
class Read:
    """The sessions a run works on, newest first, and what came with them."""

    files: Sequence[SessionFile]  # every file discovered, read or not
    skipped: dict[str, int]  # files discovery passed over, by reason
    sessions: list[Session]  # the person's sessions, machinery cut
    detected: dict[str, tuple[MinedCandidate, ...]]  # session id -> detector candidates
    digests: dict[Path, str]  # file -> content digest (the mining cache key's source)
    fingerprints: Sequence[str]  # prompts programs repeat (render leaves them out)
    suggestions: list[dict[str, Any]]  # "make this a command" for prompts pasted by hand
    programmatic: int  # sessions a program started, set aside
    # session id -> its project (learn.projects.project_of, decided at discovery):
    # the repository, one for its worktrees, sub-folders and spellings.
    projects: dict[str, str] = field(default_factory=dict)
    project: str | None = None  # the project read (None: every project)
    # Each file's session-index entry as read (None: unreadable): what a warm run compares.
    entries: dict[str, IndexRow | None] = field(default_factory=dict)
    # Sessions whose every typed turn was cut as a prompt repeated across sessions or a
    # template's text: read, and nothing of the person's left to mine (the digest says so).
    only_repeated: frozenset[str] = frozenset()
    # Sessions read with nothing in them (no typed turn, no tool call: only client
    # commands such as `/login`, only summary lines): not mined, detected or measured,
    # but read, so counted with nothing typed, as `learn plan` counts them.
    empty: tuple[Session, ...] = ()


def discover(options: RunOptions, index: SessionIndex) -> Discovery:
    """The session files in the run's scope, heads read through the session index."""
    from learn.index.indexed import CachedHeads
    from learn.transcripts.files.discover import scan

    heads = CachedHeads(index)
    discovery = scan(
        project=None if options.all_projects else options.project_dir(),
        all_projects=options.all_projects,
        since=options.since,
        limit=options.limit,
        heads=heads,
    )
    heads.save()
    return discovery


def read_sessions(options: RunOptions, config: Config, *, clock: Clock, trace: Trace,
                  progress: Progress | None) -> Read:
    from learn.detect.to_candidates import is_typed_reason
    from learn.index.indexed import indexed_views
    from learn.store import open_store
    from learn.transcripts.files.discover import with_unread
    from learn.transcripts.templates.entries import learn_keys
    from learn.transcripts.templates.keys import Keys
    from learn.transcripts.view.replay import (
        replay_fingerprints,
    )

    # (closed before the model is called: nothing holds the store while it waits)
    with open_store(options.store_path, local_only=True) as local:
        index = local.index
        with clock.stage("discover"):
            discovery = discover(options, index)
            files = discovery.files
            trace.discovered = len(files)
            fingerprints: Sequence[str] = replay_fingerprints(_templates(files, options))

        sessions: list[Session] = []
        detected: dict[str, tuple[MinedCandidate, ...]] = {}
        digests: dict[Path, str] = {}
        empty: list[Session] = []
        keys = Keys()  # each turn's keys as the index stored them: what the judgement compares
        rows: list[IndexRow] = []
        unread: list[tuple[SessionFile, str]] = []
        with clock.stage("parse"):
            for item in indexed_views(
                files, fingerprints_for=lambda _: fingerprints, index=index,
                min_confidence=config.mining.min_signal_confidence,
                progress=(lambda done, total: progress("parse", done, total)) if progress else None,
                unread=lambda f, why: unread.append((f, why)),
            ):
                rows.append(item.row)
                session = item.session
                if not session.human_turns and not session.tool_calls:
                    # Nothing in it (only `/login`, only summary lines): read and counted,
                    # not worked on. Dropped here uncounted, 4 of 12 real Claude Code
                    # sessions were in `learn plan` and said nowhere in the digest
                    # ("Read 8 sessions"); kept with the others, each would count as a
                    # session the rules held in (learn.reduce.outcomes) with nothing said.
                    empty.append(session)
                    continue
                sessions.append(session)
                learn_keys(session, item.row.keys, keys)
                digests[item.file.path] = item.digest
                # The person's plain words a detector rated high are candidates only
                # offline: with a model, the miner reads them (detect.to_candidates).
                detected[session.id] = item.detected if options.offline else tuple(
                    c for c in item.detected if is_typed_reason(c))
            # Newest first, like discovery, whatever order the parse pool finished in.
            sessions.sort(key=lambda s: s.last_activity or datetime.min.replace(tzinfo=UTC), reverse=True)
            typed = {s.id for s in sessions if s.human_turns}
            sessions, fingerprints, detected, suggestions, programmatic = _drop_repeated_prompts(
                sessions, fingerprints, detected,
                include_programmatic=options.include_programmatic, keys=keys,
            )
            only_repeated = frozenset(s.id for s in sessions
                                      if s.id in typed and not s.human_turns)
    by_path = {f.path: f.project_id for f in files if f.project_id}
    projects = {s.id: by_path[s.path] for s in sessions if s.path in by_path}
    # A file gone or failed to read by now is an "unreadable" skip, as the listing says.
    skipped = dict(with_unread(discovery, unread).skipped)
    return Read(files, skipped, sessions, detected, digests, fingerprints,
                suggestions, programmatic, projects, discovery.project, entries(files, rows),
                only_repeated, tuple(empty))


def entries(files: Sequence[SessionFile], rows: Sequence[IndexRow]) -> dict[str, IndexRow | None]:
    """Each file's entry as the run read it (None: unreadable), for `warm.inputs_key`."""
    by_path: dict[str, IndexRow | None] = {str(f.path): None for f in files}
    for row in rows:
        if row.path in by_path:
            by_path[row.path] = row
    return by_path


def _templates(files: Sequence[SessionFile], options: RunOptions) -> list[str]:
    from learn.transcripts.view.replay_files import (
        load_templates,
    )
    from learn.windows_names import not_opened

    projects: set[Path | None] = set()
    if options.all_projects:
        # Never a folder on a share: reading its commands asks the server, with your login.
        projects.update(Path(f.project) for f in files
                        if f.project and not_opened(f.project) is None)
    else:
        projects.add(options.project_dir())
    templates: list[str] = []
    seen: set[str] = set()
    for project in sorted(projects, key=str) or [None]:
        for t in load_templates(project):
            if t not in seen:
                seen.add(t)
                templates.append(t)
    return templates


def _drop_repeated_prompts(
    sessions: list[Session],
    fingerprints: Sequence[str],
    detected: dict[str, tuple[MinedCandidate, ...]],
    *,
    include_programmatic: bool = False,
    keys: Keys | None = None,
) -> tuple[list[Session], Sequence[str], dict[str, tuple[MinedCandidate, ...]],
           list[dict[str, Any]], int]:
    """What programs wrote is machinery (transcripts.scripted.machinery): prompts
    repeated across sessions and template instances are cut from the views, from
    what the renderer sends the miner and from the detectors' candidates, and a
    session a program started is set aside unless `include_programmatic`. The
    prompts a person pasted by hand become "make this a command" suggestions.
    Returns the sessions kept and how many were set aside as programmatic."""
    from learn.redaction.redact import redact
    from learn.transcripts.templates.scripted import command_suggestion, machinery

    found = machinery(sessions, fingerprints, include_programmatic=include_programmatic, keys=keys)
    kept: list[Session] = []
    out: dict[str, tuple[MinedCandidate, ...]] = {}
    for before, after in zip(sessions, found.views, strict=True):
        if after.origin == "programmatic" and not include_programmatic:
            continue  # nothing of it is the person's: not mined, no detector candidates
        kept.append(after)
        cands = detected.get(after.id, ())
        if after is not before and cands:
            # A candidate quoting words that were cut is the program's, not the person's.
            texts = [fold(c.text) for c in cands]
            kept_words = occurring(texts, [fold(t.text) for t in after.human_turns])
            all_words = occurring(texts, [fold(t.text) for t in before.human_turns])
            cands = tuple(c for c, left, said in zip(cands, kept_words, all_words, strict=True)
                          if left or not said)
        if after.id in detected:
            out[after.id] = cands
    suggestions = [command_suggestion(p) for p in found.prompts if p.by_hand]
    for s in suggestions:
        s["excerpt"] = redact(str(s["excerpt"]))
    return kept, found.fingerprints, out, suggestions, found.set_aside
